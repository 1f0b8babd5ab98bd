#include "ui/modelgrid/model_grid_text.hpp"

#include <QCoreApplication>

#include <cmath>

#include "core/families/attention_rules.hpp"
#include "core/families/model_names.hpp"
#include "ui/figures/figure_text.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::ModelGridText)
};

QStringList tokenDisplays(const qkv::SubwordTokenization& tokens)
{
    QStringList texts;
    for (const qkv::SubwordToken& token : tokens.tokens) texts << QString::fromStdString(token.display);
    return texts;
}

QString statisticValue(ModelStatistic statistic, double value)
{
    if (!std::isfinite(value))
        return statistic == ModelStatistic::OwnPositionWeight ? Text::tr("no value (cross-attention)")
                                                              : Text::tr("no value");
    if (statistic == ModelStatistic::MeanDistance) return Text::tr("%1 tokens").arg(value, 0, 'f', 3);
    return QString::number(value, 'f', 3);
}

QString tokenAt(const QStringList& texts, qkv::Index position)
{
    const QString text = position < texts.size() ? texts[static_cast<int>(position)] : QString();
    return Text::tr("«%1» (position %2)").arg(text.toHtmlEscaped()).arg(position);  // positions from 0
}

}  // namespace

const qkv::MatrixD& statisticGrid(const qkv::HeadStatisticGrids& grids, ModelStatistic statistic)
{
    switch (statistic) {
    case ModelStatistic::Entropy: return grids.entropy;
    case ModelStatistic::MeanDistance: return grids.meanDistance;
    case ModelStatistic::FirstTokenWeight: return grids.firstTokenWeight;
    case ModelStatistic::OwnPositionWeight: break;
    }
    return grids.ownPositionWeight;
}

QString statisticTitle(ModelStatistic statistic)
{
    switch (statistic) {
    case ModelStatistic::Entropy: return Text::tr("Entropy (normalised)");
    case ModelStatistic::MeanDistance: return Text::tr("Mean distance");
    case ModelStatistic::FirstTokenWeight: return Text::tr("First-token weight");
    case ModelStatistic::OwnPositionWeight: break;
    }
    return Text::tr("Own-position weight");
}

QString statisticLegend(ModelStatistic statistic)
{
    switch (statistic) {
    case ModelStatistic::Entropy: return Text::tr("entropy / ln(keys), 0 one key … 1 uniform");
    case ModelStatistic::MeanDistance: return Text::tr("mean Σ a |j − q| (tokens), 0 to the largest");
    case ModelStatistic::FirstTokenWeight: return Text::tr("mean weight on token 0, 0 to 1");
    case ModelStatistic::OwnPositionWeight: break;
    }
    return Text::tr("mean weight a_qq, 0 to 1");
}

QString layerKindWord(qkv::AttentionMode kind)
{
    switch (kind) {
    case qkv::AttentionMode::EncoderSelf: return Text::tr("self");
    case qkv::AttentionMode::DecoderCausal: return Text::tr("causal");
    case qkv::AttentionMode::Cross: break;
    }
    return Text::tr("cross");
}

QString layerWindowText(const qkv::CheckpointConfig& config, const qkv::CheckpointLayer& layer)
{
    if (layer.kind != qkv::AttentionMode::DecoderCausal) return {};
    return QString::fromStdString(qkv::layerWindowLabel(config, qkv::blockNumberOf(layer.name)));
}

QString layerWindowText(const qkv::ModelOverview& overview, qkv::Index layer)
{
    if (layer < 0 || layer >= overview.layerCount()) return {};
    return layerWindowText(overview.model->checkpoint.config, overview.layer(layer).layer);
}

QString layerLabel(const qkv::LayerRun& layer)
{
    return QStringLiteral("%1 · %2").arg(layer.layer.index).arg(layerKindWord(layer.layer.kind));
}

QStringList layerLabels(const qkv::ModelOverview& overview)
{
    QStringList labels;
    for (qkv::Index l = 0; l < overview.layerCount(); ++l) labels << layerLabel(overview.layer(l));
    return labels;
}

QString modelHeadName(const qkv::LayerRun& layer, qkv::Index head)
{
    return QStringLiteral("%1.%2").arg(layer.layer.index).arg(head + 1);
}

QString modelShapeLine(const qkv::ModelOverview& overview)
{
    const qkv::Index heads = overview.layerCount() > 0 ? overview.layer(0).attention.headCount() : 0;
    return Text::tr("%1, %2 layers × %3 heads")
        .arg(QString::fromStdString(qkv::modelDisplayName(overview.model->recipe.family, overview.model->checkpoint.config)))
        .arg(overview.layerCount())
        .arg(heads);
}

QStringList layerQueryTexts(const qkv::ModelOverview& overview, qkv::Index layer)
{
    return tokenDisplays(qkv::layerQueryTokens(*overview.model, overview.sentences, overview.layer(layer)));
}

QStringList layerKeyTexts(const qkv::ModelOverview& overview, qkv::Index layer)
{
    return tokenDisplays(qkv::layerKeyTokens(*overview.model, overview.sentences, overview.layer(layer)));
}

QString headToolTip(const qkv::ModelOverview& overview, qkv::Index layer, qkv::Index head)
{
    if (layer < 0 || layer >= overview.layerCount()) return {};
    const qkv::LayerRun& run = overview.layer(layer);
    if (head < 0 || head >= run.attention.headCount()) return {};
    QString text = Text::tr("<b>Layer %1 · %2</b><br>%3<br>")
                       .arg(run.layer.index)
                       .arg(modeTitle(run.layer.kind).toHtmlEscaped())
                       .arg(QString::fromStdString(run.layer.name).toHtmlEscaped());
    if (const QString window = layerWindowText(overview, layer); !window.isEmpty())
        text += Text::tr("Window: %1<br>").arg(window);
    text += Text::tr("<b>%1</b> (%2 for --ablate)").arg(headName(head), modelHeadName(run, head));
    if (overview.isAblated({layer, head})) text += Text::tr(" · <i>switched off</i>");
    for (int s = 0; s < kModelStatisticCount; ++s) {
        const auto statistic = static_cast<ModelStatistic>(s);
        text += QStringLiteral("<br>%1: %2")
                    .arg(statisticTitle(statistic).toHtmlEscaped(),
                         statisticValue(statistic, statisticGrid(overview.statistics, statistic)(layer, head)));
    }
    return text;
}

QString mapCellToolTip(const qkv::ModelOverview& overview, qkv::Index layer, qkv::Index head, qkv::Index query,
                       qkv::Index key)
{
    QString text = headToolTip(overview, layer, head);
    if (text.isEmpty()) return {};
    const qkv::MatrixF& map = overview.layer(layer).attention.heads[static_cast<std::size_t>(head)].attention;
    if (query < 0 || key < 0 || query >= map.rows() || key >= map.cols()) return text;
    text += Text::tr("<hr>Query %1<br>Key %2<br>Weight: %3 %")
                .arg(tokenAt(layerQueryTexts(overview, layer), query), tokenAt(layerKeyTexts(overview, layer), key))
                .arg(map(query, key) * 100.0, 0, 'f', 1);
    if (static_cast<std::size_t>(layer) < overview.valueNorms.size()) {
        const qkv::MatrixF& norms = overview.valueNorms[static_cast<std::size_t>(layer)].heads[static_cast<std::size_t>(head)];
        if (query < norms.rows() && key < norms.cols())
            text += Text::tr("<br>Value-weighted ‖a f(x)‖: %1").arg(norms(query, key), 0, 'f', 4);
    }
    return text;
}

}  // namespace qkv::ui
