#pragma once
// The one heatmap renderer. Paints onto any QPaintDevice (widget, QImage, QSvgGenerator,
// QPdfWriter), so screen and exported figures are the same drawing (docs/architecture.md, "Layers").

#include <QImage>
#include <QPainter>
#include <QRectF>

#include "core/common/matrix.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/colormap.hpp"
#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_style.hpp"

namespace qkv::ui {

// Cells (value -> colour) drawn as one image, so SVG and PDF show no seams between cells;
// labels (elided, rotated, thinned so they never overlap), title, highlights. NaN and
// +-infinity (masked) cells are neutral grey, hatched when big enough. Matrices with more
// rows/columns than device pixels are averaged down, never aliased.
void paintHeatmap(QPainter& painter, const QRectF& target, const qkv::MatrixF& values,
                  const HeatmapStyle& style);

// Same, with the colour image already made by heatmapImage() (a cache for repaints).
void paintHeatmap(QPainter& painter, const QRectF& target, const qkv::MatrixF& values,
                  const HeatmapStyle& style, const QImage& cellImage);

// Draws `image` (a pixel per cell, or block means) over `cells` the one way every cell picture is
// drawn: into SVG or PDF enlarged nearest-neighbour (at least 8 image pixels per cell side, up to
// 2048), so that viewers which smooth images blur only within a cell; on a raster device as is,
// or averaged down (area filter) where there are fewer device pixels than cells.
void drawCellImage(QPainter& painter, const QRectF& cells, const QImage& image);
// SVG, PDF or a QPicture: a device that keeps an image as an image, scaled by the viewer.
bool isVectorDevice(const QPainter& painter);

// One pixel per cell, values mapped through the colormap over [minValue, maxValue].
QImage heatmapImage(const qkv::MatrixF& values, ColormapName colormap, double minValue,
                    double maxValue);

}  // namespace qkv::ui
