#include "ui/patching/patching_data.hpp"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>

#include "core/analysis/predictions.hpp"
#include "core/pipeline/pretrained_run.hpp"
#include "core/text/token_pieces.hpp"
#include "ui/predict/prediction_data.hpp"

namespace qkv::ui {
namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::Patching)
};

constexpr double kNotComputed = std::numeric_limits<double>::quiet_NaN();

// The run's top-1 at its last position (its logits' last row).
std::int32_t lastTop(const qkv::ModelRun& run)
{
    const qkv::Index row = run.logitRow(static_cast<qkv::Index>(run.tokens.ids.size()) - 1);
    if (row < 0) return -1;
    qkv::Expected<std::vector<qkv::TokenProbability>> top = qkv::topPredictions(run.logits.row(row), 1);
    return top && !top->empty() ? top->front().id : -1;
}

QStringList chips(const qkv::SubwordTokenization& tokens)
{
    QStringList out;
    for (const qkv::SubwordToken& token : tokens.tokens) out << QString::fromStdString(token.display);
    return out;
}

// Rows of `rows` (a stopped run holds fewer than the model's layers) as an L x columns matrix,
// NaN where not computed.
qkv::MatrixD gridMatrix(const std::vector<std::vector<double>>& rows, qkv::Index layers, qkv::Index columns)
{
    qkv::MatrixD m = qkv::MatrixD::Constant(layers, columns, kNotComputed);
    for (std::size_t l = 0; l < rows.size() && static_cast<qkv::Index>(l) < layers; ++l)
        for (std::size_t c = 0; c < rows[l].size() && static_cast<qkv::Index>(c) < columns; ++c)
            m(static_cast<qkv::Index>(l), static_cast<qkv::Index>(c)) = rows[l][c];
    return m;
}

// The layers as a grid's rows name them: their index (the tab's layer names, such as
// "transformer.h.0.attn", would leave the cells no room).
QStringList layerNames(const qkv::ModelOverview& overview)
{
    QStringList names;
    for (qkv::Index l = 0; l < overview.layerCount(); ++l) names << QString::number(overview.layer(l).layer.index);
    return names;
}

QString number(double value) { return QString::number(value, 'f', 2).replace('-', QChar(0x2212)); }

}  // namespace

qkv::Expected<PatchingPrompts> patchingPrompts(std::shared_ptr<const qkv::ModelOverview> overview,
                                               const QString& corruptText)
{
    if (!overview || !overview->model) return qkv::Error{"no model runs on the sentence"};
    const qkv::PretrainedModel& model = *overview->model;
    if (qkv::Status s = qkv::checkPatchingModel(model); !s) return qkv::Error{s.error()};
    qkv::Expected<qkv::ModelSentences> corrupt = qkv::modelSentences(model, std::string(), corruptText.toStdString());
    if (!corrupt) return qkv::Error{"the corrupted prompt: " + corrupt.error()};
    qkv::Expected<qkv::PatchingRuns> runs = qkv::patchingRuns(model, overview->sentences.tokens.ids, corrupt->tokens.ids);
    if (!runs) return qkv::Error{runs.error()};
    PatchingPrompts prompts;
    prompts.overview = overview;
    prompts.model = overview->model;
    prompts.corruptText = corruptText;
    prompts.cleanTokens = chips(overview->sentences.sequence);
    prompts.corruptTokens = chips(corrupt->sequence);
    for (std::size_t p = 0; p < corrupt->tokens.ids.size(); ++p)
        prompts.differs.push_back(overview->sentences.tokens.ids[p] != corrupt->tokens.ids[p]);
    prompts.runs = std::move(*runs);
    prompts.cleanWhole = overview->baseline;
    qkv::RunOptions options;
    options.previous = overview->baseline;  // the positions before the first change, as they were
    qkv::Expected<qkv::ModelRun> corruptWhole = qkv::runPretrainedModel(model, corrupt->tokens, options);
    if (!corruptWhole) return qkv::Error{"the corrupted prompt: " + corruptWhole.error()};
    prompts.corruptWhole = std::make_shared<const qkv::ModelRun>(std::move(*corruptWhole));
    prompts.cleanTop = lastTop(*prompts.cleanWhole);
    prompts.corruptTop = lastTop(*prompts.corruptWhole);
    return prompts;
}

QString tokenText(const qkv::PretrainedModel& model, std::int32_t id)
{
    if (!model.tokenizer || id < 0) return {};
    const std::vector<std::string> pieces = qkv::tokenPieceTable(*model.tokenizer, model.recipe.vocabularySize);
    if (static_cast<std::size_t>(id) >= pieces.size()) return {};
    return QString::fromStdString(model.tokenizer->decodePieces({pieces[static_cast<std::size_t>(id)]}));
}

QString tokenChip(const qkv::PretrainedModel& model, std::int32_t id) { return PredictedTokenNames(model).of(id); }

PatchGridData headsGridData(const PatchingPrompts& prompts, const qkv::PatchingGrids& grids)
{
    const qkv::ModelOverview& overview = *prompts.overview;
    qkv::Index h = 0;
    for (const qkv::CheckpointLayer& layer : prompts.model->layersInModelOrder) h = std::max(h, layer.headCount);
    PatchGridData data;
    data.title = Text::tr("Heads patched");
    data.subtitle = Text::tr("Recovered fraction: each head's output z taken from the clean run into the corrupted one, at "
                             "every position; 1 recovers the whole clean answer %1 over %2, 0 none")
                        .arg(tokenChip(*prompts.model, grids.answer), tokenChip(*prompts.model, grids.wrong));
    data.values = gridMatrix(grids.heads, overview.layerCount(), h);
    data.rowLabels = layerNames(overview);
    for (qkv::Index i = 0; i < h; ++i) data.columnLabels << QString::number(i + 1);
    data.rowAxis = Text::tr("layer");
    data.columnAxis = Text::tr("head");
    data.legendLabel = Text::tr("recovered fraction");
    data.high = symmetricRange(data.values);
    data.low = -data.high;
    return data;
}

PatchGridData residualGridData(const PatchingPrompts& prompts, const qkv::PatchingGrids& grids)
{
    const qkv::ModelOverview& overview = *prompts.overview;
    PatchGridData data;
    data.title = Text::tr("Residual stream patched");
    data.subtitle = Text::tr("Recovered fraction: the residual stream entering each layer at one position taken from the clean run; "
                             "tokens that differ between the prompts are bold and underlined (clean/corrupted)");
    data.values = gridMatrix(grids.residual, overview.layerCount(), static_cast<qkv::Index>(prompts.cleanTokens.size()));
    data.rowLabels = layerNames(overview);
    for (int p = 0; p < prompts.cleanTokens.size(); ++p) {
        const bool differs = prompts.differs[static_cast<std::size_t>(p)];
        data.columnLabels << (differs ? prompts.cleanTokens[p] + QLatin1Char('/') + prompts.corruptTokens.value(p)
                                      : prompts.cleanTokens[p]);
        data.markedColumns.push_back(differs);
    }
    data.rowAxis = Text::tr("layer (its input)");
    data.columnAxis = Text::tr("position: clean prompt's token");
    data.legendLabel = Text::tr("recovered fraction");
    data.high = symmetricRange(data.values);
    data.low = -data.high;
    return data;
}

qkv::Expected<LogitLensShown> logitLensShown(std::shared_ptr<const qkv::ModelOverview> overview, std::int32_t answer)
{
    if (!overview || !overview->model || !overview->baseline) return qkv::Error{"no model runs on the sentence"};
    const qkv::PretrainedModel& model = *overview->model;
    const qkv::ModelRun& run = *overview->baseline;
    qkv::Expected<std::vector<qkv::LogitLensLayer>> layers = qkv::logitLens(model, run, 5);
    if (!layers) return qkv::Error{layers.error()};
    LogitLensShown shown;
    shown.overview = overview;
    shown.layers = std::move(*layers);
    shown.answer = answer >= 0 ? answer : lastTop(run);
    // The answer's probability after each layer needs the whole softmax at the last position,
    // not its top 5: the lens of a run cut to that one position (the lens of a position reads only
    // its own hidden rows), with every token of the vocabulary.
    const auto n = static_cast<qkv::Index>(run.tokens.ids.size());
    qkv::ModelRun last;
    last.tokens.ids = {run.tokens.ids.back()};
    for (const qkv::MatrixF& h : run.hiddenStates) last.hiddenStates.push_back(h.bottomRows(1));
    last.logits = run.logits.row(run.logitRow(n - 1));
    last.logitPositions = {0};
    qkv::Expected<std::vector<qkv::LogitLensLayer>> whole = qkv::logitLens(model, last, model.recipe.vocabularySize);
    if (!whole) return qkv::Error{whole.error()};
    for (const qkv::LogitLensLayer& layer : *whole) {
        double p = 0.0;
        for (const qkv::TokenProbability& t : layer.positions.front().top)
            if (t.id == shown.answer) p = t.probability;
        shown.answerProbability.push_back(p);
    }
    return shown;
}

PatchGridData logitLensGridData(const LogitLensShown& lens)
{
    const qkv::ModelOverview& overview = *lens.overview;
    const PredictedTokenNames names(*overview.model);
    const QStringList tokens = chips(overview.sentences.sequence);
    const auto L = static_cast<qkv::Index>(lens.layers.size());
    const auto n = static_cast<qkv::Index>(tokens.size());
    PatchGridData data;
    data.title = Text::tr("Logit lens: the top next token after each layer");
    data.subtitle = Text::tr("The residual stream after each layer through the final norm and the readout; each cell "
                             "the most likely next token, coloured by its probability");
    data.values = qkv::MatrixD::Constant(n, L, kNotComputed);
    QStringList texts;
    for (qkv::Index p = 0; p < n; ++p)
        for (qkv::Index l = 0; l < L; ++l) {
            const std::vector<qkv::TokenProbability>& top = lens.layers[static_cast<std::size_t>(l)].positions[static_cast<std::size_t>(p)].top;
            data.values(p, l) = top.empty() ? kNotComputed : top.front().probability;
            texts << (top.empty() ? QString() : names.of(top.front().id));
        }
    data.cellTexts = texts;
    data.rowLabels = tokens;
    data.columnLabels = layerNames(overview);
    data.rowAxis = Text::tr("position: token read");
    data.columnAxis = Text::tr("after layer");
    data.legendLabel = Text::tr("probability of the top token");
    data.colormap = ColormapName::Viridis;
    data.low = 0.0;
    data.high = 1.0;
    return data;
}

QString topFiveText(const qkv::PretrainedModel& model, const qkv::PositionPredictions& position)
{
    const PredictedTokenNames names(model);
    QStringList parts;
    for (const qkv::TokenProbability& t : position.top) parts << Text::tr("«%1» %2").arg(names.of(t.id), probabilityText(t.probability));
    return parts.join(QStringLiteral(", "));
}

QString headsSentence(const PatchingPrompts& prompts, const qkv::PatchingGrids& grids)
{
    struct Cell {
        double r;
        qkv::ModelHead head;
    };
    std::vector<Cell> cells;
    for (std::size_t l = 0; l < grids.heads.size(); ++l)
        for (std::size_t i = 0; i < grids.heads[l].size(); ++i)
            cells.push_back({grids.heads[l][i], {static_cast<qkv::Index>(l), static_cast<qkv::Index>(i)}});
    if (cells.empty()) return Text::tr("Heads: none patched yet.");
    std::stable_sort(cells.begin(), cells.end(), [](const Cell& a, const Cell& b) { return std::abs(a.r) > std::abs(b.r); });
    QStringList parts;
    for (std::size_t k = 0; k < std::min<std::size_t>(3, cells.size()); ++k)
        parts << (k == 0 ? Text::tr("%1 recovers %2 of the answer") : Text::tr("%1 %2"))
                     .arg(headText(*prompts.model, cells[k].head), number(cells[k].r));
    return Text::tr("Heads: %1.").arg(parts.join(QStringLiteral(", ")));
}

QString residualSentence(const PatchingPrompts& prompts, const qkv::PatchingGrids& grids)
{
    if (grids.residual.empty()) return Text::tr("Residual: none patched yet.");
    const auto layerName = [&](std::size_t l) { return QString::number(prompts.model->layersInModelOrder[l].index); };
    const auto at = [&](std::size_t l, std::size_t p) { return grids.residual[l][p]; };
    // Where the answer enters: the position that recovers most at the first layer's input. It
    // stays there up to the last layer whose input at that position recovers most of it, and is
    // at the last position from the first layer whose input there does.
    const std::vector<double>& first = grids.residual.front();
    const auto enters = static_cast<std::size_t>(std::max_element(first.begin(), first.end()) - first.begin());
    const std::size_t last = first.size() - 1;
    std::size_t stays = 0;
    for (std::size_t l = 0; l < grids.residual.size(); ++l)
        if (at(l, enters) > 0.5) stays = l;
    std::optional<std::size_t> moved;
    for (std::size_t l = 0; l < grids.residual.size() && !moved; ++l)
        if (at(l, last) > 0.5) moved = l;
    QString text = Text::tr("Residual: the answer enters at position %1 («%2», %3)")
                       .arg(enters)
                       .arg(prompts.cleanTokens.value(static_cast<int>(enters)), number(first[enters]));
    if (stays > 0 && enters != last)
        text += Text::tr(", is still there at the input of layer %1 (%2)").arg(layerName(stays), number(at(stays, enters)));
    if (enters == last) return text + QLatin1Char('.');
    if (moved)
        return text + Text::tr(" and is at the last position from the input of layer %1 (%2).")
                          .arg(layerName(*moved), number(at(*moved, last)));
    return text + Text::tr(" and reaches the last position only in layer %1's block.").arg(layerName(stays));
}

namespace {
std::mutex shownMutex;
PatchingShown& shownSlot()
{
    static PatchingShown shown;
    return shown;
}
}  // namespace

PatchingShown shownPatching()
{
    const std::lock_guard lock(shownMutex);
    return shownSlot();
}

void setShownPatching(PatchingShown shown)
{
    const std::lock_guard lock(shownMutex);
    shownSlot() = std::move(shown);
}

}  // namespace qkv::ui
