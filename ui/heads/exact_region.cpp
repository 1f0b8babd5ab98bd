#include "ui/heads/exact_region.hpp"

#include <QObject>
#include <QPainter>

#include <algorithm>

#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {
namespace {

constexpr double kPad = 4.0;

// Labels of the drawn rows (or columns): each block's first position and its token ("1,024 cat"),
// as the full maps label theirs; the heatmap thins them so that none overlap.
QStringList positionLabels(const std::vector<qkv::Index>& edges, qkv::Index first,
                           const std::vector<std::string>& tokens)
{
    QStringList labels;
    for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
        const qkv::Index position = first + edges[i];
        labels << QStringLiteral("%1 %2").arg(groupedInteger(position), tokenText(tokens, position));
    }
    return labels;
}

// A label wider than any the heatmap draws whole (it elides longer ones): the gutters the
// widest tokens take, before the region's tokens are known.
QString widestLabel() { return QString(64, QLatin1Char('M')); }

}  // namespace

// The title's lines (regionTitle's first, wrapped to two, and the hint), then the heatmap, with
// its colour bar at the right (regionLegendRect).
QRectF regionHeatmapRect(const QRectF& target, const QFontMetricsF& metrics)
{
    return target.adjusted(0, 3 * metrics.height() + kPad, -(regionLegendWidth(metrics) + kPad), 0);
}

double regionLegendWidth(const QFontMetricsF& metrics)
{
    return verticalLegendWidth(metrics, QStringLiteral("0.0025"));
}

QSize regionPixels(const QRectF& target, const RegionBounds& bounds, const QFontMetricsF& metrics,
                   double devicePixelRatio)
{
    HeatmapStyle style;
    style.rowLabels = style.columnLabels = QStringList{widestLabel()};
    style.rowAxisTitle = style.columnAxisTitle = QStringLiteral("queries");
    const HeatmapLayout layout(regionHeatmapRect(target, metrics), static_cast<int>(bounds.rows()),
                               static_cast<int>(bounds.columns()), style, metrics);
    return {std::max(1, static_cast<int>(layout.cellsRect().width() * devicePixelRatio)),
            std::max(1, static_cast<int>(layout.cellsRect().height() * devicePixelRatio))};
}

HeatmapStyle regionStyle(const ExactRegion& region, const qkv::Result& result, ColormapName colormap,
                         qkv::Index selectedQuery, qkv::Index selectedKey)
{
    HeatmapStyle style;
    style.colormap = colormap;
    style.minValue = 0;
    style.maxValue = region.largest > 0 ? region.largest : 1.0;
    style.rowAxisTitle = QObject::tr("queries (position, token)");
    style.columnAxisTitle = QObject::tr("keys (position, token)");
    const RegionBounds& b = region.bounds;
    style.rowLabels = positionLabels(region.rowEdges, b.firstRow, result.queryLabels);
    style.columnLabels = positionLabels(region.columnEdges, b.firstColumn, result.keyLabels);
    if (b.contains(selectedQuery, selectedKey)) {
        style.highlightedCell = QPoint(static_cast<int>(qkv::blockOfPosition(region.columnEdges, selectedKey - b.firstColumn)),
                                       static_cast<int>(qkv::blockOfPosition(region.rowEdges, selectedQuery - b.firstRow)));
    }
    return style;
}

QImage regionImage(const ExactRegion& region, ColormapName colormap)
{
    return heatmapImage(region.drawn, colormap, 0.0, region.largest > 0 ? region.largest : 1.0);
}

HeatmapLayout regionLayout(const ExactRegion& region, const QRectF& target, const HeatmapStyle& style,
                           const QFontMetricsF& metrics)
{
    return HeatmapLayout(regionHeatmapRect(target, metrics), static_cast<int>(region.drawn.rows()),
                         static_cast<int>(region.drawn.cols()), style, metrics);
}

std::pair<qkv::Index, qkv::Index> regionPositionAt(const HeatmapLayout& layout, const RegionBounds& bounds,
                                                   const QPointF& point)
{
    const QRectF cells = layout.cellsRect();
    if (bounds.empty() || !cells.contains(point)) return {-1, -1};
    auto along = [](double offset, double length, qkv::Index first, qkv::Index count) {
        const auto at = static_cast<qkv::Index>(offset / length * static_cast<double>(count));
        return first + std::clamp<qkv::Index>(at, 0, count - 1);
    };
    return {along(point.y() - cells.top(), cells.height(), bounds.firstRow, bounds.rows()),
            along(point.x() - cells.left(), cells.width(), bounds.firstColumn, bounds.columns())};
}

QPointF regionPointOf(const HeatmapLayout& layout, const RegionBounds& bounds, qkv::Index query, qkv::Index key)
{
    const QRectF cells = layout.cellsRect();
    return {cells.left() + (static_cast<double>(key - bounds.firstColumn) + 0.5) * cells.width() /
                               static_cast<double>(bounds.columns()),
            cells.top() + (static_cast<double>(query - bounds.firstRow) + 0.5) * cells.height() /
                              static_cast<double>(bounds.rows())};
}

QString regionTitle(const ExactRegion& region)
{
    const RegionBounds& b = region.bounds;
    QString first = QObject::tr("Exact region: queries %1–%2 × keys %3–%4")
                        .arg(groupedInteger(b.firstRow), groupedInteger(b.endRow - 1), groupedInteger(b.firstColumn),
                             groupedInteger(b.endColumn - 1));
    QString hint = QObject::tr("wheel zooms, drag zooms into a rectangle, click selects a cell");
    if (region.reduced())
        hint = QObject::tr("each pixel the largest of %1 × %2 · %3")
                   .arg(readableNumber(static_cast<double>(b.rows()) / static_cast<double>(region.drawn.rows())),
                        readableNumber(static_cast<double>(b.columns()) / static_cast<double>(region.drawn.cols())),
                        hint);
    return first + QLatin1Char('\n') + hint;
}

QString regionToolTip(const ExactRegion& region, const qkv::Result& result, qkv::Index query, qkv::Index key)
{
    const RegionBounds& b = region.bounds;
    if (!b.contains(query, key)) return {};
    const float weight = region.values(query - b.firstRow, key - b.firstColumn);
    QString text = QObject::tr("query %1 “%2” × key %3 “%4”: weight %5 (exact)")
                       .arg(groupedInteger(query), tokenText(result.queryLabels, query), groupedInteger(key),
                            tokenText(result.keyLabels, key), preciseNumber(weight));
    if (result.attention.mask.masked(query, key)) text += QObject::tr(", masked");
    if (region.reduced()) {
        // Inside the region (checked above): both blocks exist.
        const auto i = static_cast<std::size_t>(qkv::blockOfPosition(region.rowEdges, query - b.firstRow));
        const auto j = static_cast<std::size_t>(qkv::blockOfPosition(region.columnEdges, key - b.firstColumn));
        text += QObject::tr("\nthis pixel: the largest of queries %1–%2 × keys %3–%4, %5")
                    .arg(groupedInteger(b.firstRow + region.rowEdges[i]), groupedInteger(b.firstRow + region.rowEdges[i + 1] - 1),
                         groupedInteger(b.firstColumn + region.columnEdges[j]),
                         groupedInteger(b.firstColumn + region.columnEdges[j + 1] - 1),
                         preciseNumber(region.drawn(static_cast<qkv::Index>(i), static_cast<qkv::Index>(j))));
    }
    return text;
}

void paintExactRegion(QPainter& painter, const QRectF& target, const ExactRegion& region, const HeatmapStyle& style,
                      const QImage& image)
{
    painter.save();
    const QFontMetricsF metrics(painter.font(), painter.device());
    const QStringList lines = regionTitle(region).split('\n');
    const double line = metrics.height();
    painter.setPen(style.textColor);
    // The bounds wrap onto a second line where the panel is narrow (1000 x 700).
    painter.drawText(QRectF(target.left(), target.top(), target.width(), 2 * line),
                     Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, lines.value(0));
    QColor hint = style.textColor;  // the last line, quieter
    hint.setAlphaF(0.6);
    painter.setPen(hint);
    painter.drawText(QRectF(target.left(), target.top() + 2 * line, target.width(), line),
                     Qt::AlignLeft | Qt::AlignVCenter, metrics.elidedText(lines.value(1), Qt::ElideRight, target.width()));
    const QRectF map = regionHeatmapRect(target, metrics);
    paintHeatmap(painter, map, region.drawn, style, image);
    // The region's own scale: 0 to its largest weight, said on the bar.
    painter.setPen(style.textColor);
    const QRectF legend(map.right() + kPad, map.top() + line, regionLegendWidth(metrics), map.height() - 3 * line);
    paintColorLegend(painter, legend, style.colormap, style.minValue, style.maxValue,
                     QObject::tr("attention weight"));  // 0 to the region's largest
    painter.restore();
}

}  // namespace qkv::ui
