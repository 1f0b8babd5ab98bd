#pragma once
// Where the parts of one heatmap go inside a target rectangle: title, row labels (left),
// column labels (below, rotated), the cells. Shared by the painter and by widgets that need to
// know which cell or label is under the mouse, so hit-testing always matches the drawing.

#include <QFontMetricsF>
#include <QPoint>
#include <QRectF>

#include "ui/render/heatmap_style.hpp"

namespace qkv::ui {

class HeatmapLayout {
public:
    HeatmapLayout() = default;
    // rows x columns cells in `target`, with the label gutters `style` asks for measured with
    // `metrics` (use the painter's font and device so PDF and SVG lay out like the screen).
    HeatmapLayout(const QRectF& target, int rows, int columns, const HeatmapStyle& style,
                  const QFontMetricsF& metrics);

    // Space the labels and title need around the cells, independent of the target size.
    // left = row labels (+ axis title), bottom = column labels (+ axis title), top = title.
    static QMarginsF gutters(const HeatmapStyle& style, const QFontMetricsF& metrics);
    // Longest label shown before eliding, in pixels.
    static double maxLabelWidth(const QFontMetricsF& metrics);

    int rows() const { return rows_; }
    int columns() const { return columns_; }
    QRectF cellsRect() const { return cells_; }
    QRectF titleRect() const { return title_; }
    QRectF rowLabelsRect() const { return rowLabels_; }
    QRectF columnLabelsRect() const { return columnLabels_; }
    QRectF rowAxisTitleRect() const { return rowAxisTitle_; }
    QRectF columnAxisTitleRect() const { return columnAxisTitle_; }
    double cellWidth() const { return cellWidth_; }
    double cellHeight() const { return cellHeight_; }
    QRectF cellRect(int row, int column) const;
    QRectF rowRect(int row) const;
    // Label thinning: every rowLabelStep()-th label is drawn so that none overlap.
    int rowLabelStep() const { return rowStep_; }
    int columnLabelStep() const { return columnStep_; }

    // (column, row) of the cell under `point`, or (-1, -1).
    QPoint cellAt(const QPointF& point) const;
    // Row whose label is under `point` (in the row-label gutter), or -1.
    int rowLabelAt(const QPointF& point) const;
    // Column whose label is under `point`, or -1.
    int columnLabelAt(const QPointF& point) const;

private:
    int rows_ = 0, columns_ = 0;
    QRectF cells_, title_, rowLabels_, columnLabels_, rowAxisTitle_, columnAxisTitle_;
    double cellWidth_ = 0, cellHeight_ = 0;
    int rowStep_ = 1, columnStep_ = 1;
};

}  // namespace qkv::ui
