#include "ui/modelgrid/model_statistics_figure.hpp"

#include <QCoreApplication>
#include <QMarginsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/render/color_legend.hpp"
#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_painter.hpp"
#include "ui/wholemodel/whole_model_figure_parts.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::ModelStatisticsFigure)
};

constexpr double kMargin = 8.0;
constexpr double kGap = 16.0;
constexpr double kPad = 4.0;

bool hasMissingValues(const qkv::MatrixD& grid)
{
    return grid.size() > 0 && !grid.array().isFinite().all();
}

QString legendText(const qkv::ModelOverview& overview, ModelStatistic statistic)
{
    QString text = statisticLegend(statistic);
    if (hasMissingValues(statisticGrid(overview.statistics, statistic)))
        text += Text::tr(" · hatched grey: no value (a cross-attention query has no own position among the keys)");
    return text;
}

double largestFinite(const qkv::MatrixD& grid)
{
    double largest = 0;
    for (qkv::Index r = 0; r < grid.rows(); ++r)
        for (qkv::Index c = 0; c < grid.cols(); ++c)
            if (std::isfinite(grid(r, c))) largest = std::max(largest, grid(r, c));
    return largest;
}

QString subtitleText(const qkv::ModelOverview& overview)
{
    return Text::tr("%1 · each head's mean over the queries of the typed sentence%2")
        .arg(modelShapeLine(overview),
             overview.ablatedHeads().empty() ? QString() : Text::tr(", with the switched-off heads off"));
}

int headCountOf(const qkv::ModelOverview& overview)
{
    return static_cast<int>(overview.statistics.entropy.cols());
}

}  // namespace

HeatmapStyle statisticStyle(const qkv::ModelOverview& overview, ModelStatistic statistic, const FigureOptions& options)
{
    HeatmapStyle style;
    style.colormap = ColormapName::Viridis;
    style.minValue = 0.0;
    style.maxValue = statistic == ModelStatistic::MeanDistance
                         ? std::max(1.0, largestFinite(overview.statistics.meanDistance))
                         : 1.0;
    style.title = statisticTitle(statistic);
    style.rowLabels = layerLabels(overview);
    for (int i = 0; i < headCountOf(overview); ++i) style.columnLabels << QString::number(i + 1);
    style.rowAxisTitle = Text::tr("layers");
    style.columnAxisTitle = Text::tr("heads");
    style.textColor = options.text;
    style.highlightColor = kSelectionColor;
    return style;
}

ModelStatisticsLayout::ModelStatisticsLayout(const QRectF& target, const qkv::ModelOverview& overview,
                                             const QFontMetricsF& metrics)
{
    const double line = metrics.lineSpacing();
    const QRectF area = target.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    title_ = QRectF(area.left(), area.top(), area.width(), line * 1.3);
    const double subtitleHeight = std::max(
        line, metrics.boundingRect(QRectF(0, 0, std::max(area.width(), 100.0), 1000), Qt::TextWordWrap, subtitleText(overview))
                  .height());
    subtitle_ = QRectF(area.left(), title_.bottom(), area.width(), subtitleHeight);
    const QRectF panels(area.left(), subtitle_.bottom() + kPad, area.width(), area.bottom() - subtitle_.bottom() - kPad);
    const int layers = static_cast<int>(overview.layerCount());
    const int heads = headCountOf(overview);
    const FigureOptions plain;
    // Four panels in 1, 2 or 4 columns: the arrangement with the largest cells.
    double best = -1;
    for (int columns : {1, 2, 4}) {
        const int rows = kModelStatisticCount / columns;
        const double w = (panels.width() - (columns - 1) * kGap) / columns;
        const double h = (panels.height() - (rows - 1) * kGap) / rows;
        std::array<QRectF, kModelStatisticCount> maps, legends;
        double cell = 1e9;
        for (int s = 0; s < kModelStatisticCount; ++s) {
            const auto statistic = static_cast<ModelStatistic>(s);
            const QRectF panel(panels.left() + (s % columns) * (w + kGap), panels.top() + (s / columns) * (h + kGap), w, h);
            const double legendHeight = horizontalLegendHeight(metrics, w, legendText(overview, statistic));
            const HeatmapStyle style = statisticStyle(overview, statistic, plain);
            const QRectF room(panel.left(), panel.top(), w, std::max(0.0, h - legendHeight - kPad));
            const HeatmapLayout layout(room, layers, heads, style, metrics);
            cell = std::min(cell, layout.cellWidth());
            // The heatmap as tall as it is drawn (HeatmapLayout centres it), its colour bar right below.
            const QMarginsF gutters = HeatmapLayout::gutters(style, metrics);
            const double used = std::min(room.height(), gutters.top() + layout.cellsRect().height() + gutters.bottom());
            maps[s] = QRectF(room.left(), room.top(), w, used);
            legends[s] = QRectF(panel.left(), maps[s].bottom() + kPad, w, legendHeight);
        }
        if (cell > best) {
            best = cell;
            // Rows of panels one below the other, each as tall as its tallest panel is drawn.
            double top = panels.top();
            for (int row = 0; row < rows; ++row) {
                double height = 0;
                for (int s = row * columns; s < (row + 1) * columns; ++s)
                    height = std::max(height, legends[s].bottom() - maps[s].top());
                for (int s = row * columns; s < (row + 1) * columns; ++s) {
                    const double shift = top - maps[s].top();
                    heatmaps_[s] = maps[s].translated(0, shift);
                    legends_[s] = legends[s].translated(0, shift);
                }
                top += height + kGap;
            }
        }
    }
}

bool statisticAt(const ModelStatisticsLayout& layout, const qkv::ModelOverview& overview, const QFontMetricsF& metrics,
                 const QPointF& point, StatisticHit& hit)
{
    for (int s = 0; s < kModelStatisticCount; ++s) {
        const auto statistic = static_cast<ModelStatistic>(s);
        const HeatmapLayout heatmap(layout.heatmapRect(statistic), static_cast<int>(overview.layerCount()),
                                    headCountOf(overview), statisticStyle(overview, statistic, {}), metrics);
        const QPoint cell = heatmap.cellAt(point);
        if (cell.x() < 0) continue;
        hit.statistic = statistic;
        hit.head = {cell.y(), cell.x()};
        return true;
    }
    return false;
}

QPointF statisticCellCenter(const ModelStatisticsLayout& layout, const qkv::ModelOverview& overview,
                            const QFontMetricsF& metrics, ModelStatistic statistic, qkv::ModelHead head)
{
    const HeatmapLayout heatmap(layout.heatmapRect(statistic), static_cast<int>(overview.layerCount()),
                                headCountOf(overview), statisticStyle(overview, statistic, {}), metrics);
    return heatmap.cellRect(static_cast<int>(head.layer), static_cast<int>(head.head)).center();
}

void paintModelStatistics(QPainter& painter, const QRectF& target, const FigureInput& input)
{
    if (!input.overview) return;
    const qkv::ModelOverview& overview = *input.overview;
    const FigureOptions& options = input.options;
    painter.save();
    painter.setFont(options.font);
    const QFontMetricsF metrics(painter.font(), painter.device());
    const ModelStatisticsLayout layout(target, overview, metrics);
    paintFigureHeading(painter, layout.titleRect(), layout.subtitleRect(), Text::tr("Per-head statistics of every layer"),
                       subtitleText(overview), options);
    const bool sameModel = input.result && input.result->wholeModel == overview.model;
    const int shownLayer = sameModel ? static_cast<int>(input.result->wholeModelLayer) : -1;
    for (int s = 0; s < kModelStatisticCount; ++s) {
        const auto statistic = static_cast<ModelStatistic>(s);
        const HeatmapStyle style = statisticStyle(overview, statistic, options);
        const qkv::MatrixF values = statisticGrid(overview.statistics, statistic).cast<float>();
        paintHeatmap(painter, layout.heatmapRect(statistic), values, style);
        if (options.showSelection && shownLayer >= 0 && shownLayer < overview.layerCount() && options.head >= 0 &&
            options.head < headCountOf(overview)) {
            const HeatmapLayout heatmap(layout.heatmapRect(statistic), static_cast<int>(overview.layerCount()),
                                        headCountOf(overview), style, metrics);
            painter.setPen(QPen(kSelectionColor, 2.5));
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(heatmap.cellRect(shownLayer, static_cast<int>(options.head)).adjusted(1, 1, -1, -1));
        }
        painter.setPen(options.text);
        paintColorLegend(painter, layout.legendRect(statistic), style.colormap, style.minValue, style.maxValue,
                         legendText(overview, statistic));
    }
    painter.restore();
}

}  // namespace qkv::ui
