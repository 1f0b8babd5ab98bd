#include "ui/predict/prediction_data.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <cmath>

#include "core/checkpoint/model_folders.hpp"
#include "core/export/model_export.hpp"
#include "core/text/byte_level_bpe_tokenizer.hpp"
#include "core/text/token_pieces.hpp"
#include "ui/figures/figure_text.hpp"

namespace qkv::ui {
namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::Predictions)
};

const qkv::SubwordTokenization& readoutSequence(const qkv::ModelOverview& overview)
{
    return overview.model->recipe.encoderDecoder() ? overview.sentences.decoder : overview.sentences.sequence;
}

QStringList chipTexts(const qkv::SubwordTokenization& sequence)
{
    QStringList texts;
    for (const qkv::SubwordToken& token : sequence.tokens) texts << QString::fromStdString(token.display);
    return texts;
}

const qkv::PositionPredictions* findPosition(const std::vector<qkv::PositionPredictions>& all, qkv::Index position)
{
    for (const qkv::PositionPredictions& p : all)
        if (p.position == position) return &p;
    return nullptr;
}

// p_t at `position` of `run` (core's softmax of that logits row).
qkv::Expected<double> probabilityAt(const qkv::ModelRun& run, qkv::Index position, std::int32_t id)
{
    const qkv::Index row = run.logitRow(position);
    if (row < 0) return qkv::Error{"the run has no logits at position " + std::to_string(position)};
    return qkv::tokenProbability(run.logits.row(row), id);
}

}  // namespace

PredictedTokenNames::PredictedTokenNames(const qkv::PretrainedModel& model)
{
    const bool target = model.recipe.encoderDecoder();
    const std::optional<qkv::SubwordTokenizer>& tokenizer = target ? model.targetTokenizer : model.tokenizer;
    if (!tokenizer) return;
    const std::vector<std::string> pieces = qkv::tokenPieceTable(*tokenizer, model.recipe.vocabularySize);
    // Pieces shown as the chips show them ("Ġcat" and "▁cat" as "·cat").
    names_.reserve(pieces.size());
    for (const std::string& piece : pieces)
        names_.push_back(QString::fromStdString(piece.empty() ? piece : tokenizer->displayPiece(piece)));
}

QString PredictedTokenNames::of(std::int32_t id) const
{
    if (id >= 0 && static_cast<std::size_t>(id) < names_.size() && !names_[static_cast<std::size_t>(id)].isEmpty())
        return names_[static_cast<std::size_t>(id)];
    return Text::tr("id %1").arg(id);
}

QString modelName(const qkv::PretrainedModel& model)
{
    const QFileInfo file(QString::fromStdString(model.checkpoint.path));
    // .../models--Org--Name/snapshots/<commit>/model.safetensors: the cache's name for it.
    const std::string cached = qkv::cachedSnapshotModelName(file.absolutePath().toStdString());
    if (!cached.empty()) return QString::fromStdString(cached);
    const QString name = file.fileName();
    if (name == QLatin1String("model.safetensors") || name.endsWith(QLatin1String(".index.json")))
        return file.absoluteDir().dirName();
    return name.endsWith(QLatin1String(".safetensors")) ? name.chopped(12) : name;
}

QString readoutSentence(const qkv::PretrainedModel& model, const QString& source, const QString& target)
{
    return model.recipe.causal() || model.recipe.encoderDecoder() ? target : source;
}

QStringList readoutTokens(const qkv::ModelOverview& overview) { return chipTexts(readoutSequence(overview)); }

QStringList rolloutTokens(const qkv::ModelOverview& overview) { return chipTexts(overview.sentences.sequence); }

QString predictionPositionName(const qkv::ModelOverview& overview, qkv::Index position)
{
    const QStringList tokens = readoutTokens(overview);
    const QString token = position >= 0 && position < tokens.size() ? tokens[static_cast<int>(position)] : QString();
    if (overview.model->recipe.readout == qkv::ReadoutKind::MaskedLm)
        return Text::tr("«%1» (position %2)").arg(token).arg(position);
    return Text::tr("after «%1» (position %2)").arg(token).arg(position);
}

std::vector<qkv::Index> overviewPredictionPositions(const qkv::ModelOverview& overview)
{
    std::vector<qkv::Index> positions;
    for (const qkv::PositionPredictions& p : overview.baselinePredictions) positions.push_back(p.position);
    return positions;
}

qkv::Index defaultPredictionPosition(const qkv::ModelOverview& overview)
{
    if (overview.baselinePredictions.empty()) return -1;
    return overview.model->recipe.readout == qkv::ReadoutKind::MaskedLm ? overview.baselinePredictions.front().position
                                                                        : overview.baselinePredictions.back().position;
}

qkv::Index queryRowPosition(const qkv::ModelOverview& overview, qkv::Index shownLayer, qkv::Index queryRow)
{
    if (!overview.run || shownLayer < 0 || shownLayer >= overview.layerCount()) return -1;
    // An encoder-decoder's encoder layers have the source as queries; the readout reads the target.
    if (overview.model->recipe.encoderDecoder() && overview.layer(shownLayer).stack != qkv::ModelStack::Decoder)
        return -1;
    return findPosition(overview.baselinePredictions, queryRow) ? queryRow : -1;
}

qkv::Expected<PredictionComparison> comparePredictions(const qkv::ModelOverview& overview, qkv::Index position,
                                                       const PredictedTokenNames& names)
{
    if (!overview.model || !overview.baseline || !overview.run) return qkv::Error{"no model run"};
    if (overview.model->recipe.readout == qkv::ReadoutKind::None)
        return qkv::Error{
            Text::tr("This model has no readout (language-model head): it predicts no tokens.").toStdString()};
    const qkv::PositionPredictions* before = findPosition(overview.baselinePredictions, position);
    const qkv::PositionPredictions* after = findPosition(overview.predictions, position);
    if (!before || !after) return qkv::Error{"the model does not predict at position " + std::to_string(position)};
    std::vector<std::int32_t> ids;
    for (const auto* list : {before, after})
        for (const qkv::TokenProbability& token : list->top)
            if (std::find(ids.begin(), ids.end(), token.id) == ids.end()) ids.push_back(token.id);
    PredictionComparison comparison;
    comparison.position = position;
    comparison.positionName = predictionPositionName(overview, position);
    comparison.masked = overview.model->recipe.readout == qkv::ReadoutKind::MaskedLm;
    comparison.headsOff = overview.ablatedHeads().size();
    comparison.headsOffText = headsOffText(*overview.model, overview.ablatedHeads());
    for (const std::int32_t id : ids) {
        const qkv::Expected<double> p0 = probabilityAt(*overview.baseline, position, id);
        if (!p0) return qkv::Error{p0.error()};
        const qkv::Expected<double> p1 = probabilityAt(*overview.run, position, id);
        if (!p1) return qkv::Error{p1.error()};
        comparison.rows.push_back({id, names.of(id), *p0, *p1});
    }
    std::stable_sort(comparison.rows.begin(), comparison.rows.end(),
                     [](const PredictionRow& a, const PredictionRow& b) {
                         return a.before != b.before ? a.before > b.before : a.after > b.after;
                     });
    return comparison;
}

QString headText(const qkv::PretrainedModel& model, const qkv::ModelHead& head)
{
    return QString::fromStdString(qkv::modelHeadText(model, head));
}

QString headsOffText(const qkv::PretrainedModel& model, const std::set<qkv::ModelHead>& heads)
{
    QStringList texts;
    for (const qkv::ModelHead& head : heads) texts << headText(model, head);
    return texts.join(QStringLiteral(", "));
}

QString layerLabel(const qkv::ModelOverview& overview, qkv::Index modelIndex)
{
    const qkv::CheckpointLayer& layer = overview.layer(modelIndex).layer;
    return Text::tr("%1 · %2").arg(layer.index).arg(QString::fromStdString(layer.name));
}

QString probabilityText(double probability)
{
    const double percent = 100.0 * probability;
    QString text = QString::number(percent, 'f', std::abs(percent) < 0.1 && percent != 0.0 ? 3 : 1);
    return Text::tr("%1 %").arg(text);
}

QString pointsNumber(double change)
{
    const double points = 100.0 * change;
    const QString number = QString::number(std::abs(points), 'f', std::abs(points) < 0.1 && points != 0.0 ? 3 : 1);
    return (points < 0 ? QStringLiteral("−") : QStringLiteral("+")) + number;
}

QString pointsText(double change) { return Text::tr("%1 pp").arg(pointsNumber(change)); }

}  // namespace qkv::ui
