#pragma once
// One matrix drawn as one image (docs/architecture.md, "Layers"; the figure rules: no seams in SVG or
// PDF): one pixel per drawn cell, block means (core/factored/matrix_pooling) when the matrix has
// more rows or columns than the picture may have, the colour of each value from a colormap.
// Built once per matrix (off the GUI thread for big ones) and stretched over any rectangle.
//
// Also the mapping between a rectangle and the matrix's (row, column) indices, shared by the
// painters (highlighted rows, outlined blocks) and the widgets (hover, click), so a hit test
// always matches the drawing.

#include <QImage>
#include <QPoint>
#include <QRectF>

#include "core/common/matrix.hpp"
#include "ui/render/colormap.hpp"

class QPainter;

namespace qkv::ui {

struct MatrixPicture {
    Index rows = 0, columns = 0;  // of the whole matrix
    QImage image;                 // at most maxSide x maxSide pixels
    ColormapName colormap = kDivergingColormap;
    double minValue = 0, maxValue = 1;  // the colour range
    double largestMagnitude = 0;        // of the matrix's finite values (beyond maxValue: saturated)
    bool isNull() const { return image.isNull(); }
};

// Pictures stop growing at this many cells per side: more than any box of the figures has
// pixels, so drawing only ever shrinks them a little.
constexpr Index kPictureSide = 384;

// `values` through `colormap` over [minValue, maxValue]; NaN and ±∞ (masked) are neutral grey.
MatrixPicture makePicture(const MatrixF& values, ColormapName colormap, double minValue, double maxValue,
                          Index maxSide = kPictureSide);
// The same with the symmetric range ± max |value| (diverging maps, 0 in the middle).
MatrixPicture makeSignedPicture(const MatrixF& values, Index maxSide = kPictureSide);

// max |v| over the finite entries (0 for none).
double largestMagnitude(const MatrixF& values);

// Draws the picture over `cells` (nearest neighbour when enlarging, averaged when shrinking).
void paintPicture(QPainter& painter, const QRectF& cells, const MatrixPicture& picture);

// (row, column) of the matrix cell under `point`, or (-1, -1) outside `cells`.
QPoint matrixCellAt(const QRectF& cells, Index rows, Index columns, const QPointF& point);
// The band of row `row` (at least 2 px high, so a row of 512 stays visible).
QRectF matrixRowBand(const QRectF& cells, Index rows, Index row);
// The band of column `column` (at least 2 px wide).
QRectF matrixColumnBand(const QRectF& cells, Index columns, Index column);
// Columns [first, first + count) (a head's block).
QRectF matrixColumnBlock(const QRectF& cells, Index columns, Index first, Index count);
// Rows [first, first + count).
QRectF matrixRowBlock(const QRectF& cells, Index rows, Index first, Index count);

}  // namespace qkv::ui
