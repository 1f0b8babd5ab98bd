#include "ui/render/heatmap_layout.hpp"

#include <QMarginsF>

#include <algorithm>
#include <cmath>

#include "ui/figures/text_layout.hpp"

namespace qkv::ui {
namespace {

constexpr double kPad = 4.0;

int labelStep(double cellSize, double labelSize)
{
    if (cellSize <= 0) return 1;
    if (cellSize >= labelSize) return 1;
    return static_cast<int>(std::ceil(labelSize / cellSize));
}

}  // namespace

double HeatmapLayout::maxLabelWidth(const QFontMetricsF& metrics)
{
    return metrics.averageCharWidth() * 14.0;
}

QMarginsF HeatmapLayout::gutters(const HeatmapStyle& style, const QFontMetricsF& metrics)
{
    QMarginsF margins(0, 0, 2, 2);
    if (!style.title.isEmpty()) margins.setTop(metrics.height() + kPad);
    if (style.drawLabels) {
        const double cap = maxLabelWidth(metrics);
        if (!style.rowLabels.isEmpty())
            margins.setLeft(widestText(style.rowLabels, metrics, cap) + 2 * kPad);
        if (!style.rowAxisTitle.isEmpty())
            margins.setLeft(margins.left() + metrics.height() + kPad);
        if (!style.columnLabels.isEmpty())
            margins.setBottom(widestText(style.columnLabels, metrics, cap) + 2 * kPad + 2);
        if (!style.columnAxisTitle.isEmpty())
            margins.setBottom(margins.bottom() + metrics.height() + kPad);
    }
    return margins;
}

HeatmapLayout::HeatmapLayout(const QRectF& target, int rows, int columns,
                             const HeatmapStyle& style, const QFontMetricsF& metrics)
    : rows_(std::max(rows, 0)), columns_(std::max(columns, 0))
{
    const QMarginsF g = gutters(style, metrics);
    const double availableWidth = std::max(0.0, target.width() - g.left() - g.right());
    const double availableHeight = std::max(0.0, target.height() - g.top() - g.bottom());
    double cell = 0;
    if (rows_ > 0 && columns_ > 0)
        cell = std::min(availableWidth / columns_, availableHeight / rows_);
    cellWidth_ = cellHeight_ = cell;

    const double cellsWidth = cell * columns_;
    const double cellsHeight = cell * rows_;
    const double blockWidth = g.left() + cellsWidth + g.right();
    const double blockHeight = g.top() + cellsHeight + g.bottom();
    const double x0 = target.left() + std::max(0.0, (target.width() - blockWidth) / 2.0);
    const double y0 = target.top() + std::max(0.0, (target.height() - blockHeight) / 2.0);

    cells_ = QRectF(x0 + g.left(), y0 + g.top(), cellsWidth, cellsHeight);
    // The title may use the target's whole width (a panel can be wider than its cells).
    title_ = QRectF(target.left(), y0, target.width(), g.top());
    const double axisTitleSize = metrics.height() + kPad;
    const bool rowAxis = style.drawLabels && !style.rowAxisTitle.isEmpty();
    const bool columnAxis = style.drawLabels && !style.columnAxisTitle.isEmpty();
    const double rowLabelsWidth = g.left() - (rowAxis ? axisTitleSize : 0);
    // Axis titles may run past the cells (to the whole target) rather than be cut.
    const double rowTitleLength = std::max(cellsHeight, std::min(target.height(), metrics.horizontalAdvance(style.rowAxisTitle) + 4));
    const double rowTitleTop = std::clamp(cells_.center().y() - rowTitleLength / 2, target.top(),
                                          std::max(target.top(), target.bottom() - rowTitleLength));
    rowAxisTitle_ = rowAxis ? QRectF(x0, rowTitleTop, axisTitleSize, rowTitleLength) : QRectF();
    rowLabels_ = QRectF(cells_.left() - rowLabelsWidth, cells_.top(), rowLabelsWidth, cellsHeight);
    const double columnLabelsHeight = g.bottom() - 2 - (columnAxis ? axisTitleSize : 0);
    columnLabels_ = QRectF(cells_.left(), cells_.bottom(), cellsWidth, std::max(0.0, columnLabelsHeight));
    const double columnTitleLength =
        std::max(cellsWidth, std::min(target.width(), metrics.horizontalAdvance(style.columnAxisTitle) + 4));
    const double columnTitleLeft = std::clamp(cells_.center().x() - columnTitleLength / 2, target.left(),
                                              std::max(target.left(), target.right() - columnTitleLength));
    columnAxisTitle_ = columnAxis ? QRectF(columnTitleLeft, columnLabels_.bottom(), columnTitleLength, axisTitleSize)
                                  : QRectF();

    // Neighbouring labels may share their leading: one ascent plus a pixel keeps them apart.
    const double labelPitch = std::min(metrics.height(), metrics.ascent() + 1.0);
    rowStep_ = labelStep(cellHeight_, labelPitch);
    columnStep_ = labelStep(cellWidth_, labelPitch);
}

QRectF HeatmapLayout::cellRect(int row, int column) const
{
    return QRectF(cells_.left() + column * cellWidth_, cells_.top() + row * cellHeight_, cellWidth_,
                  cellHeight_);
}

QRectF HeatmapLayout::rowRect(int row) const
{
    return QRectF(cells_.left(), cells_.top() + row * cellHeight_, cells_.width(), cellHeight_);
}

QPoint HeatmapLayout::cellAt(const QPointF& point) const
{
    if (cellWidth_ <= 0 || !cells_.contains(point)) return {-1, -1};
    const int column = std::clamp(static_cast<int>((point.x() - cells_.left()) / cellWidth_), 0, columns_ - 1);
    const int row = std::clamp(static_cast<int>((point.y() - cells_.top()) / cellHeight_), 0, rows_ - 1);
    return {column, row};
}

int HeatmapLayout::rowLabelAt(const QPointF& point) const
{
    if (cellHeight_ <= 0 || !rowLabels_.contains(point)) return -1;
    return std::clamp(static_cast<int>((point.y() - cells_.top()) / cellHeight_), 0, rows_ - 1);
}

int HeatmapLayout::columnLabelAt(const QPointF& point) const
{
    if (cellWidth_ <= 0 || !columnLabels_.contains(point)) return -1;
    return std::clamp(static_cast<int>((point.x() - cells_.left()) / cellWidth_), 0, columns_ - 1);
}

}  // namespace qkv::ui
