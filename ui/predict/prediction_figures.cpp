#include "ui/predict/prediction_figures.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "core/families/family.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/render/chart_builder.hpp"
#include "ui/render/chart_render.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_painter.hpp"
#include "ui/wholemodel/whole_model_figure_parts.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::PredictionFigure)
};

constexpr double kMargin = 8.0;
constexpr qkv::Index kLabelledTokens = 64;  // token labels on the axes up to this many tokens

const QColor kBeforeColor(0x43, 0x93, 0xc3);
const QColor kAfterColor(0xe0, 0x7b, 0x39);

QString rolloutTitle(const RolloutPicture& picture)
{
    return Text::tr("Attention rollout through layer %1").arg(picture.stopLayer);
}

QString rolloutSubtitle(const RolloutPicture& picture)
{
    QString line = Text::tr(
                       "Abnar & Zuidema (2020): the mean of the heads' A plus I, rows renormalised, multiplied "
                       "through the first %1 of the %2 self-attention layers")
                       .arg(picture.stop + 1)
                       .arg(picture.stops);
    if (picture.encoderDecoder) line += Text::tr(" · it follows the encoder (the stack that reads the source)");
    return line;
}

// The heatmap's square cells inside `area`, with room for its labels.
QRectF squareHeatmapRect(const QRectF& area, qkv::Index n, const HeatmapStyle& style, const QFontMetricsF& metrics)
{
    const QMarginsF gutters = HeatmapLayout::gutters(style, metrics);
    const double side = std::max(1.0, std::min(area.width() - gutters.left() - gutters.right(),
                                               area.height() - gutters.top() - gutters.bottom()));
    const double cells = n > 0 ? std::floor(side / static_cast<double>(n)) * static_cast<double>(n) : side;
    return QRectF(area.left(), area.top(), std::max(cells, 1.0) + gutters.left() + gutters.right(),
                  std::max(cells, 1.0) + gutters.top() + gutters.bottom());
}

// Keeps every k-th token label, k the fewest cells a whole line of text (ascent and descent) takes:
// GPT-2's "·g" above "·h" touched where labels were only an ascent apart. A multiple of the
// layout's own step, so that the labels it draws are the ones kept.
void thinLabelsToWholeLines(HeatmapStyle& style, const HeatmapLayout& layout, const QFontMetricsF& metrics)
{
    const double cell = layout.cellHeight();
    if (cell <= 0 || cell >= metrics.height()) return;
    const int own = std::max(layout.rowLabelStep(), 1);
    const int step = static_cast<int>(std::ceil(std::ceil(metrics.height() / cell) / own)) * own;
    for (QStringList* labels : {&style.rowLabels, &style.columnLabels})
        for (int i = 0; i < labels->size(); ++i)
            if (i % step != 0) (*labels)[i].clear();
}

bool hasPredictions(const FigureInput& input) { return input.overview && !input.overview->baselinePredictions.empty(); }

}  // namespace

RolloutPicture makeRolloutPicture(const qkv::ModelOverview& overview, qkv::Index stop)
{
    RolloutPicture picture;
    picture.encoderDecoder = overview.model->recipe.encoderDecoder();
    const std::vector<qkv::Index> layers = qkv::rolloutLayers(*overview.model, *overview.run);
    picture.stops = static_cast<qkv::Index>(layers.size());
    if (layers.empty()) {
        picture.problem = Text::tr("This model has no self-attention layer to roll out.");
        return picture;
    }
    picture.stop = stop < 0 ? picture.stops - 1 : std::min(stop, picture.stops - 1);
    const qkv::LayerRun& layer = overview.layer(layers[static_cast<std::size_t>(picture.stop)]);
    picture.stopLayer = layerLabel(overview, layer.modelIndex);
    picture.stopIndex = layer.layer.index;
    picture.tokens = rolloutTokens(overview);
    qkv::Expected<qkv::MatrixD> rollout = qkv::modelRollout(*overview.model, *overview.run, picture.stop);
    if (!rollout)
        picture.problem = QString::fromStdString(rollout.error());
    else
        picture.rollout = std::move(*rollout);
    return picture;
}

void paintRollout(QPainter& painter, const QRectF& target, const RolloutPicture& picture, const FigureOptions& options)
{
    painter.save();
    painter.setFont(options.font);
    const QFontMetricsF metrics(painter.font(), painter.device());
    const QRectF area = target.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    painter.setPen(options.text);
    const QFont title = figureTitleFont(options.font);
    double y = area.top();
    y += drawWrappedText(painter, QPointF(area.left(), y), area.width(), Qt::AlignLeft, title,
                         picture.problem.isEmpty() ? rolloutTitle(picture) : Text::tr("Attention rollout"));
    QColor muted = options.text;
    muted.setAlpha(170);
    painter.setPen(muted);
    if (picture.stops > 0)
        y += drawWrappedText(painter, QPointF(area.left(), y), area.width(), Qt::AlignLeft, options.font,
                             rolloutSubtitle(picture));
    painter.setPen(options.text);
    if (!picture.problem.isEmpty() || picture.rollout.size() == 0) {
        painter.drawText(QRectF(area.left(), y, area.width(), area.bottom() - y).adjusted(20, 20, -20, -20),
                         Qt::AlignCenter | Qt::TextWordWrap, picture.problem);
        painter.restore();
        return;
    }
    const double largest = picture.rollout.maxCoeff();
    const double top = std::min(1.0, niceCeiling(largest));
    const QString legend = Text::tr(
                               "share of input token (each row sums to 1; colours from 0 to %1, the largest share "
                               "is %2)")
                               .arg(readableNumber(top), preciseNumber(largest));
    const double legendWidth = std::min(area.width(), 560.0);
    const double legendHeight = horizontalLegendHeight(metrics, legendWidth, legend);
    y += 6;
    paintColorLegend(painter, QRectF(area.left(), y, legendWidth, legendHeight), ColormapName::Viridis, 0.0, top,
                     legend);
    y += legendHeight + 8;

    const auto n = picture.rollout.rows();
    HeatmapStyle style;
    style.colormap = ColormapName::Viridis;
    style.minValue = 0.0;
    style.maxValue = top;
    if (n <= kLabelledTokens) style.rowLabels = style.columnLabels = picture.tokens;
    style.rowAxisTitle = Text::tr("positions after layer %1").arg(picture.stopIndex);
    style.columnAxisTitle = Text::tr("input tokens");
    style.textColor = options.text;
    const QRectF heatmap =
        squareHeatmapRect(QRectF(area.left(), y, area.width(), area.bottom() - y), n, style, metrics);
    thinLabelsToWholeLines(style, HeatmapLayout(heatmap, static_cast<int>(n), static_cast<int>(n), style, metrics),
                           metrics);
    paintHeatmap(painter, heatmap, picture.rollout.cast<float>(), style);
    painter.restore();
}

QStringList predictionsSubtitle(const qkv::ModelOverview& overview, const QString& prompt)
{
    const qkv::Index heads = overview.layerCount() > 0 ? overview.layer(0).attention.headCount() : 0;
    return {Text::tr("Model: %1 (%2, %3 layers × %4 heads)")
                .arg(modelName(*overview.model), QString::fromUtf8(qkv::familyName(overview.model->recipe.family).data()))
                .arg(overview.layerCount())
                .arg(heads),
            Text::tr("Prompt: “%1”").arg(prompt.simplified())};
}

void paintPredictions(QPainter& painter, const QRectF& target, const PredictionComparison& comparison,
                      const QStringList& subtitle, const FigureOptions& options)
{
    // The heading names what the chart is of: its title, then the model and the prompt, each on
    // one line (the model's name elided at its end, the prompt in its middle: its start and the
    // tokens just before the last position both stay).
    painter.save();
    const QRectF area = target.adjusted(kMargin, kMargin, -kMargin, 0);
    ChartModel chart = predictionsChart(comparison);
    const QFont title = figureTitleFont(options.font);
    painter.setPen(options.text);
    double y = area.top();
    y += drawWrappedText(painter, QPointF(area.left(), y), area.width(), Qt::AlignLeft, title, chart.title);
    painter.setFont(options.font);
    const QFontMetricsF metrics(options.font, painter.device());
    QColor muted = options.text;
    muted.setAlpha(170);
    painter.setPen(muted);
    for (int i = 0; i < subtitle.size(); ++i) {
        const Qt::TextElideMode elide = i + 1 == subtitle.size() ? Qt::ElideMiddle : Qt::ElideRight;
        painter.drawText(QRectF(area.left(), y, area.width(), metrics.height()), Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(subtitle[i], elide, area.width()));
        y += metrics.height();
    }
    painter.restore();
    chart.title.clear();  // drawn above
    renderChart(painter, QRectF(target.left(), y + 2, target.width(), target.bottom() - y - 2), chart,
                ChartStyle{options.text, options.background, options.font});
}

QString everyHeadOnName() { return Text::tr("every head on"); }

QString headsOffName(const PredictionComparison& comparison)
{
    return comparison.headsOff == 1 ? Text::tr("with head %1 switched off").arg(comparison.headsOffText)
                                    : Text::tr("with heads %1 switched off").arg(comparison.headsOffText);
}

ChartModel predictionsChart(const PredictionComparison& comparison)
{
    ChartModel m;
    m.title = comparison.masked ? Text::tr("Most likely tokens at %1").arg(comparison.positionName)
                                : Text::tr("Most likely next tokens %1").arg(comparison.positionName);
    m.horizontalBars = true;
    m.x.title = Text::tr("probability");
    m.y.title = comparison.headsOff > 0 ? Text::tr("token, change (pp)") : Text::tr("token");
    ChartSeries before = ChartSeries::of(everyHeadOnName(), kBeforeColor, ChartSeries::Kind::Bars);
    ChartSeries after = ChartSeries::of(headsOffName(comparison), kAfterColor, ChartSeries::Kind::Bars);
    double largest = 0.0;
    // Horizontal bars list their categories bottom-up: the most likely token last, so it is on top.
    for (auto row = comparison.rows.rbegin(); row != comparison.rows.rend(); ++row) {
        m.categories << (comparison.headsOff > 0 ? Text::tr("«%1» %2").arg(row->token, pointsNumber(row->change()))
                                                 : Text::tr("«%1»").arg(row->token));
        before.values.push_back(row->before);
        after.values.push_back(row->after);
        largest = std::max({largest, row->before, row->after});
    }
    m.x.minimum = 0.0;
    m.x.maximum = std::min(1.0, niceCeiling(largest));
    m.x.ceiling = 1.0;  // a probability
    m.series.push_back(before);
    if (comparison.headsOff > 0) m.series.push_back(after);
    return m;
}

std::vector<Figure> predictionFigures()
{
    Figure rollout;
    rollout.name = QStringLiteral("rollout");
    rollout.title = Text::tr("Attention rollout");
    rollout.view = kPredictionViewId;
    rollout.defaultSize = QSizeF(760, 820);
    rollout.minimumSize = QSizeF(420, 460);
    rollout.unavailable = [](const FigureInput& input) { return whyNoModelOverview(input); };
    rollout.paint = [](QPainter& painter, const QRectF& rect, const FigureInput& input) {
        paintRollout(painter, rect, makeRolloutPicture(*input.overview, input.options.rolloutStop), input.options);
    };

    Figure predictions;
    predictions.name = QStringLiteral("predictions");
    predictions.title = Text::tr("Predictions with heads switched off");
    predictions.view = kPredictionViewId;
    predictions.defaultSize = QSizeF(860, 520);
    predictions.minimumSize = QSizeF(480, 320);
    predictions.unavailable = [](const FigureInput& input) {
        if (const QString why = whyNoModelOverview(input); !why.isEmpty()) return why;
        if (!hasPredictions(input))
            return Text::tr(
                "This model predicts no tokens here: it has no readout, or the sentence has no [MASK] "
                "to fill.");
        return QString();
    };
    predictions.paint = [](QPainter& painter, const QRectF& rect, const FigureInput& input) {
        const qkv::ModelOverview& overview = *input.overview;
        const std::vector<qkv::Index> positions = overviewPredictionPositions(overview);
        qkv::Index position = input.options.predictionPosition;
        if (std::find(positions.begin(), positions.end(), position) == positions.end())
            position = defaultPredictionPosition(overview);
        const qkv::Expected<PredictionComparison> comparison =
            comparePredictions(overview, position, PredictedTokenNames(*overview.model));
        if (!comparison) {
            painter.drawText(rect.adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap,
                             QString::fromStdString(comparison.error()));
            return;
        }
        const QString prompt =
            readoutSentence(*overview.model, QString::fromStdString(input.result->config.sourceText),
                            QString::fromStdString(input.result->config.targetText));
        paintPredictions(painter, rect, *comparison, predictionsSubtitle(overview, prompt), input.options);
    };
    return {rollout, predictions};
}

}  // namespace qkv::ui
