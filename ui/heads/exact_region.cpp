#include "ui/heads/exact_region.hpp"

#include <QObject>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/attention/streamed_layer.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/heads/pooled_panels.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {
namespace {

constexpr double kPad = 4.0;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// NaN over every block whose cells are all masked: the weights there are 0, not small.
void markMaskedBlocks(ExactRegion& region, const qkv::AttentionMask& mask)
{
    const RegionBounds& b = region.bounds;
    auto allMasked = [&](qkv::Index r0, qkv::Index r1, qkv::Index c0, qkv::Index c1) {
        for (qkv::Index r = r0; r < r1; ++r)
            for (qkv::Index c = c0; c < c1; ++c)
                if (!mask.masked(b.firstRow + r, b.firstColumn + c)) return false;
        return true;
    };
    for (std::size_t i = 0; i + 1 < region.rowEdges.size(); ++i)
        for (std::size_t j = 0; j + 1 < region.columnEdges.size(); ++j)
            if (allMasked(region.rowEdges[i], region.rowEdges[i + 1], region.columnEdges[j], region.columnEdges[j + 1]))
                region.drawn(static_cast<qkv::Index>(i), static_cast<qkv::Index>(j)) = kNaN;
}

// Labels of the drawn rows (or columns): each block's first position, and its token where
// `withTokens` (then every block is one position).
QStringList positionLabels(const std::vector<qkv::Index>& edges, qkv::Index first,
                           const std::vector<std::string>& tokens, bool withTokens)
{
    QStringList labels;
    for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
        const qkv::Index position = first + edges[i];
        labels << (withTokens ? QStringLiteral("%1 %2").arg(groupedInteger(position), tokenText(tokens, position))
                              : groupedInteger(position));
    }
    return labels;
}

}  // namespace

RegionBounds regionAround(qkv::Index query, qkv::Index key, qkv::Index side, qkv::Index queryCount,
                          qkv::Index keyCount)
{
    auto around = [side](qkv::Index centre, qkv::Index count) {
        const qkv::Index length = std::clamp<qkv::Index>(side, 1, std::max<qkv::Index>(count, 1));
        const qkv::Index first = std::clamp<qkv::Index>(centre - length / 2, 0, std::max<qkv::Index>(count - length, 0));
        return std::pair{first, first + length};
    };
    const auto [firstRow, endRow] = around(query, queryCount);
    const auto [firstColumn, endColumn] = around(key, keyCount);
    return {firstRow, endRow, firstColumn, endColumn};
}

qkv::Index zoomedSide(qkv::Index side, bool zoomIn)
{
    // A side already past a limit (a small dragged rectangle) is not pushed back across it.
    return zoomIn ? std::max(side / 2, std::min(side, kMinRegionSide)) : std::min(side * 2, std::max(side, kMaxRegionSide));
}

qkv::MatrixF blockMaxima(const qkv::MatrixF& values, const std::vector<qkv::Index>& rowEdges,
                         const std::vector<qkv::Index>& columnEdges)
{
    const auto rows = static_cast<qkv::Index>(rowEdges.size()) - 1;
    const auto columns = static_cast<qkv::Index>(columnEdges.size()) - 1;
    constexpr float none = -std::numeric_limits<float>::infinity();
    qkv::MatrixF maxima = qkv::MatrixF::Constant(rows, columns, none);  // rows x columns
    for (qkv::Index i = 0; i < rows; ++i)
        for (qkv::Index r = rowEdges[static_cast<std::size_t>(i)]; r < rowEdges[static_cast<std::size_t>(i) + 1]; ++r)
            for (qkv::Index j = 0; j < columns; ++j) {
                float m = maxima(i, j);
                for (qkv::Index c = columnEdges[static_cast<std::size_t>(j)]; c < columnEdges[static_cast<std::size_t>(j) + 1]; ++c)
                    m = values(r, c) > m ? values(r, c) : m;  // a NaN compares false: skipped
                maxima(i, j) = m;
            }
    return maxima.unaryExpr([](float m) { return m == none ? kNaN : m; });
}

qkv::Expected<ExactRegion> computeExactRegion(const qkv::Result& result, int head, const RegionBounds& bounds,
                                              QSize pixels)
{
    qkv::Expected<qkv::MatrixF> values = qkv::headAttentionRegion(result.attention, head, bounds.firstRow, bounds.endRow,
                                                                  bounds.firstColumn, bounds.endColumn);
    if (!values) return qkv::Error{values.error()};
    ExactRegion region;
    region.head = head;
    region.bounds = bounds;
    region.values = std::move(*values);
    region.rowEdges = qkv::blockEdges(bounds.rows(), std::clamp<qkv::Index>(pixels.height(), 1, bounds.rows()));
    region.columnEdges = qkv::blockEdges(bounds.columns(), std::clamp<qkv::Index>(pixels.width(), 1, bounds.columns()));
    region.drawn = blockMaxima(region.values, region.rowEdges, region.columnEdges);
    const qkv::AttentionMask& mask = result.attention.mask;
    if (mask.causal || !mask.keyPadding.empty()) markMaskedBlocks(region, mask);
    region.largest = region.values.maxCoeff();
    return region;
}

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
    style.rowLabels = QStringList{groupedInteger(bounds.endRow)};
    style.columnLabels = QStringList{groupedInteger(bounds.endColumn)};
    style.rowAxisTitle = style.columnAxisTitle = QStringLiteral("queries");
    const HeatmapLayout layout(regionHeatmapRect(target, metrics), static_cast<int>(bounds.rows()),
                               static_cast<int>(bounds.columns()), style, metrics);
    return {std::max(1, static_cast<int>(layout.cellsRect().width() * devicePixelRatio)),
            std::max(1, static_cast<int>(layout.cellsRect().height() * devicePixelRatio))};
}

HeatmapStyle regionStyle(const ExactRegion& region, const qkv::Result& result, const QRectF& target,
                         const QFontMetricsF& metrics, ColormapName colormap, qkv::Index selectedQuery,
                         qkv::Index selectedKey)
{
    HeatmapStyle style;
    style.colormap = colormap;
    style.minValue = 0;
    style.maxValue = region.largest > 0 ? region.largest : 1.0;
    style.rowAxisTitle = QObject::tr("queries (positions)");
    style.columnAxisTitle = QObject::tr("keys (positions)");
    const RegionBounds& b = region.bounds;
    style.rowLabels = positionLabels(region.rowEdges, b.firstRow, result.queryLabels, false);
    style.columnLabels = positionLabels(region.columnEdges, b.firstColumn, result.keyLabels, false);
    // Tokens too where every block is one position and a cell holds a line of text, measured
    // again with the longer labels (their gutters take room from the cells).
    const double line = metrics.height();
    HeatmapStyle withTokens = style;
    if (!region.reduced()) {
        withTokens.rowLabels = positionLabels(region.rowEdges, b.firstRow, result.queryLabels, true);
        withTokens.columnLabels = positionLabels(region.columnEdges, b.firstColumn, result.keyLabels, true);
    }
    const double cell = regionLayout(region, target, withTokens, metrics).cellWidth();
    if (!region.reduced() && cell >= line) style = withTokens;
    if (b.contains(selectedQuery, selectedKey)) {
        style.highlightedCell = QPoint(blockOfPosition(region.columnEdges, selectedKey - b.firstColumn),
                                       blockOfPosition(region.rowEdges, selectedQuery - b.firstRow));
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
        const auto i = static_cast<std::size_t>(blockOfPosition(region.rowEdges, query - b.firstRow));
        const auto j = static_cast<std::size_t>(blockOfPosition(region.columnEdges, key - b.firstColumn));
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
