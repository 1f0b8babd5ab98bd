#pragma once
// An exact region of one head of a long (streamed) layer: the weights a_qj (paper equation (1))
// of queries [A, B) x keys [C, D), recomputed from Q_i and K_j (headAttentionRegion: ~20-40 ms
// for 1,024 x 1,024, ~0.3 s for 4,096 x 4,096), and its painter (the project's heatmap).
//
// The region is computed whole and kept at full resolution, so a hover reads the exact weight of
// the position under the mouse. Where the region has more positions than the screen has pixels,
// it is drawn reduced by BLOCK MAXIMUM, one block per pixel: a sharp cell stays visible, where
// the heatmap's own area filter would average it away. Tick labels are positions, and the tokens
// too where a cell is taller (rows) or wider (columns) than a line of text.
// Legend: n_q queries, n_k keys; positions from 0, heads from 1 where people read them.

#include <QFontMetricsF>
#include <QImage>
#include <QPointF>
#include <QRectF>
#include <QSize>
#include <QString>

#include <utility>
#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/result/result.hpp"
#include "ui/render/colormap.hpp"
#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_style.hpp"

class QPainter;

namespace qkv::ui {

// The sides the wheel halves and doubles between (positions), before n_q and n_k clamp them.
inline constexpr qkv::Index kMinRegionSide = 32;
inline constexpr qkv::Index kMaxRegionSide = 4096;

// Queries [firstRow, endRow) x keys [firstColumn, endColumn).
struct RegionBounds {
    qkv::Index firstRow = 0, endRow = 0, firstColumn = 0, endColumn = 0;

    qkv::Index rows() const { return endRow - firstRow; }
    qkv::Index columns() const { return endColumn - firstColumn; }
    bool empty() const { return rows() <= 0 || columns() <= 0; }
    bool contains(qkv::Index query, qkv::Index key) const
    {
        return query >= firstRow && query < endRow && key >= firstColumn && key < endColumn;
    }
    bool operator==(const RegionBounds&) const = default;
};

// `side` x `side` positions (each side at most n_q, n_k) centred on (query, key) as far as the
// map's edges allow.
RegionBounds regionAround(qkv::Index query, qkv::Index key, qkv::Index side, qkv::Index queryCount,
                          qkv::Index keyCount);
// `side` halved (zoomIn) or doubled, within [kMinRegionSide, kMaxRegionSide] (a side already
// outside them only moves towards them).
qkv::Index zoomedSide(qkv::Index side, bool zoomIn);

// Each block of `values` (rowEdges x columnEdges, blockEdges' form over its rows and columns) as
// its largest entry, NaN entries skipped; a block of NaN only stays NaN.
//                                                  (rowEdges.size() - 1) x (columnEdges.size() - 1)
qkv::MatrixF blockMaxima(const qkv::MatrixF& values, const std::vector<qkv::Index>& rowEdges,
                         const std::vector<qkv::Index>& columnEdges);

struct ExactRegion {
    int head = 0;  // from 0
    RegionBounds bounds;
    qkv::MatrixF values;  // rows x columns: a_qj exact, 0 where masked (headAttentionRegion's)
    // What is drawn: blocks of the region's positions (edges local to the region), each the
    // largest weight of its unmasked cells, NaN where all are masked (drawn hatched).
    std::vector<qkv::Index> rowEdges, columnEdges;
    qkv::MatrixF drawn;
    float largest = 0;  // over the region: the colours span 0 .. largest

    bool reduced() const { return drawn.rows() < values.rows() || drawn.cols() < values.cols(); }
};

// The region of head `head` (runs on a worker thread), drawn at most `pixels` wide and high.
// Errors: headAttentionRegion's (a head or region outside the layer, a non-finite score).
qkv::Expected<ExactRegion> computeExactRegion(const qkv::Result& result, int head, const RegionBounds& bounds,
                                              QSize pixels);

// Where the region goes in `target`: two title lines, then the heatmap.
QRectF regionHeatmapRect(const QRectF& target, const QFontMetricsF& metrics);
// The width of the region's colour bar beside it.
double regionLegendWidth(const QFontMetricsF& metrics);
// How many device pixels the cells of `bounds` get in `target` (the budget computeExactRegion
// reduces to), labels as positions.
QSize regionPixels(const QRectF& target, const RegionBounds& bounds, const QFontMetricsF& metrics,
                   double devicePixelRatio);

// The heatmap style of a region: colours 0 .. largest, position (and token) labels, axis titles,
// the selected cell outlined when it is inside.
HeatmapStyle regionStyle(const ExactRegion& region, const qkv::Result& result, const QRectF& target,
                         const QFontMetricsF& metrics, ColormapName colormap, qkv::Index selectedQuery,
                         qkv::Index selectedKey);
// One pixel per drawn block (heatmapImage), built off the GUI thread with the region.
QImage regionImage(const ExactRegion& region, ColormapName colormap);
// The layout of a region's heatmap in `target` (the painter's and the hit tests').
HeatmapLayout regionLayout(const ExactRegion& region, const QRectF& target, const HeatmapStyle& style,
                           const QFontMetricsF& metrics);

// The position (query, key) under `point` at full resolution, or (-1, -1) outside the cells.
std::pair<qkv::Index, qkv::Index> regionPositionAt(const HeatmapLayout& layout, const RegionBounds& bounds,
                                                   const QPointF& point);
// The centre of position (query, key) on the cells.
QPointF regionPointOf(const HeatmapLayout& layout, const RegionBounds& bounds, qkv::Index query, qkv::Index key);

// "Exact region: queries A–B × keys C–D" and the line of what the mouse does.
QString regionTitle(const ExactRegion& region);
// The exact weight of (query, key), its tokens, and whether it is masked.
QString regionToolTip(const ExactRegion& region, const qkv::Result& result, qkv::Index query, qkv::Index key);

// Title lines over the heatmap (the project's painter) of the drawn blocks.
void paintExactRegion(QPainter& painter, const QRectF& target, const ExactRegion& region, const HeatmapStyle& style,
                      const QImage& image);

}  // namespace qkv::ui
