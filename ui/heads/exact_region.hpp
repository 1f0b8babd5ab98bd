#pragma once
// The painter of an exact region of one head of a long (streamed) layer (the project's heatmap):
// the region's numbers, its bounds and its blocks come from core/analysis/exact_region.hpp; here
// they get a layout, labels, a title, a tooltip and colours.
//
// Where the region has more positions than the screen has pixels, it is drawn reduced by BLOCK
// MAXIMUM, one block per pixel: a sharp cell stays visible, where the heatmap's own area filter
// would average it away. Tick labels are a position and its token (a reduced block's first),
// thinned by the heatmap so that none overlap, as the full maps' are.
// Legend: n_q queries, n_k keys; positions from 0, heads from 1 where people read them.

#include <QFontMetricsF>
#include <QImage>
#include <QPointF>
#include <QRectF>
#include <QSize>
#include <QString>

#include <utility>

#include "core/analysis/exact_region.hpp"
#include "core/common/matrix.hpp"
#include "core/result/result.hpp"
#include "ui/render/colormap.hpp"
#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_style.hpp"

class QPainter;

namespace qkv::ui {

// Where the region goes in `target`: two title lines, then the heatmap.
QRectF regionHeatmapRect(const QRectF& target, const QFontMetricsF& metrics);
// The width of the region's colour bar beside it.
double regionLegendWidth(const QFontMetricsF& metrics);
// How many device pixels the cells of `bounds` get in `target` (the budget computeExactRegion
// reduces to), with label gutters as wide as the widest labels drawn.
QSize regionPixels(const QRectF& target, const RegionBounds& bounds, const QFontMetricsF& metrics,
                   double devicePixelRatio);

// The heatmap style of a region: colours 0 .. largest, position and token labels, axis titles,
// the selected cell outlined when it is inside.
HeatmapStyle regionStyle(const ExactRegion& region, const qkv::Result& result, ColormapName colormap,
                         qkv::Index selectedQuery, qkv::Index selectedKey);
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
