#include "ui/predict/generation_steps.hpp"

#include <QCoreApplication>

#include <new>

#include "core/pipeline/pretrained_run.hpp"
#include "core/text/token_pieces.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::GenerationSteps)
};

}  // namespace

QString messageSentence(const std::string& message)
{
    QString text = QString::fromStdString(message);
    if (!text.isEmpty()) text[0] = text[0].toUpper();
    if (!text.endsWith(QLatin1Char('.'))) text += QLatin1Char('.');
    return text;
}

std::vector<qkv::MatrixF> choosingRows(const qkv::ModelRun& run, qkv::Index query)
{
    std::vector<qkv::MatrixF> rows;
    rows.reserve(run.layers.size());
    for (const auto& layer : run.layers) {
        const std::vector<qkv::HeadAttention>& heads = layer->attention.heads;
        const bool held =
            !heads.empty() && heads.front().attention.rows() > query && heads.front().attention.cols() > query;
        qkv::MatrixF block(held ? static_cast<qkv::Index>(heads.size()) : 0, held ? query + 1 : 0);  // h x p
        for (qkv::Index i = 0; i < block.rows(); ++i)
            block.row(i) = heads[static_cast<std::size_t>(i)].attention.row(query).head(query + 1);
        rows.push_back(std::move(block));
    }
    return rows;
}

GenerationEnd generateSteps(const GenerationPrompt& prompt, const qkv::GenerationOptions& options,
                            const std::function<void(QStringList)>& started,
                            const std::function<bool(GeneratedStep)>& step)
{
    try {
        const qkv::PretrainedModel& model = *prompt.model;
        const qkv::Expected<qkv::ModelSentences> sentences = qkv::modelSentences(model, prompt.source, prompt.target);
        if (!sentences) return {messageSentence(sentences.error())};
        const auto promptLength = static_cast<qkv::Index>(sentences->tokens.ids.size());
        if (const qkv::Status s = qkv::checkGeneration(model, promptLength, options); !s)
            return {messageSentence(s.error())};
        QStringList promptTexts;
        for (const qkv::SubwordToken& token : sentences->sequence.tokens)
            promptTexts << QString::fromStdString(token.display);
        started(std::move(promptTexts));

        const qkv::SubwordTokenizer* tokenizer = model.tokenizer ? &*model.tokenizer : nullptr;
        const std::vector<std::string> pieces =
            tokenizer ? qkv::tokenPieceTable(*tokenizer, model.recipe.vocabularySize) : std::vector<std::string>();
        const auto pieceOf = [&](std::int32_t id) {
            return static_cast<std::size_t>(id) < pieces.size() ? pieces[static_cast<std::size_t>(id)] : std::string();
        };
        // As the chips and the predictions name tokens (PredictedTokenNames).
        const auto textOf = [&](std::int32_t id) {
            const std::string piece = pieceOf(id);
            if (piece.empty() || !tokenizer) return Text::tr("id %1").arg(id);
            return QString::fromStdString(tokenizer->displayPiece(piece));
        };
        const qkv::Expected<qkv::Generation> generation = qkv::generateTokens(
            model, sentences->tokens.ids, options, [&](const qkv::GeneratedToken& token, const qkv::ModelRun& run) {
                GeneratedStep made;
                made.token = token;
                made.piece = pieceOf(token.id);
                made.text = textOf(token.id);
                for (const qkv::TokenProbability& top : token.top) made.alternatives << textOf(top.id);
                made.rows = choosingRows(run, token.position - 1);
                return step(std::move(made));
            });
        if (!generation) return {messageSentence(generation.error())};
        return {QString(), generation->stopped};
    } catch (const std::bad_alloc&) {
        return {Text::tr("Not enough memory to generate that many tokens after this prompt: ask for fewer.")};
    }
}

}  // namespace qkv::ui
