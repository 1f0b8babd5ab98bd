#include "ui/matrices/matrix_picture.hpp"

#include <QPainter>

#include <algorithm>
#include <cmath>

#include "core/factored/matrix_pooling.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {

double largestMagnitude(const MatrixF& values)
{
    double largest = 0.0;
    const float* data = values.data();
    for (Index i = 0; i < values.size(); ++i) {
        const double v = std::abs(static_cast<double>(data[i]));
        if (std::isfinite(v) && v > largest) largest = v;
    }
    return largest;
}

MatrixPicture makePicture(const MatrixF& values, ColormapName colormap, double minValue, double maxValue, Index maxSide)
{
    MatrixPicture picture;
    picture.rows = values.rows();
    picture.columns = values.cols();
    picture.colormap = colormap;
    picture.minValue = minValue;
    picture.maxValue = maxValue;
    if (values.size() == 0) return picture;
    picture.largestMagnitude = largestMagnitude(values);  // here, off the GUI thread for big ones
    const Index rowBins = std::min(values.rows(), maxSide);
    const Index columnBins = std::min(values.cols(), maxSide);
    if (rowBins == values.rows() && columnBins == values.cols()) {
        picture.image = heatmapImage(values, colormap, minValue, maxValue);
    } else {
        const MatrixF pooled =
            poolMatrix(values, MatrixWindow::whole(values.rows(), values.cols()), rowBins, columnBins);
        picture.image = heatmapImage(pooled, colormap, minValue, maxValue);
    }
    return picture;
}

MatrixPicture makeSignedPicture(const MatrixF& values, Index maxSide)
{
    double range = largestMagnitude(values);
    if (!(range > 0)) range = 1.0;
    return makePicture(values, kDivergingColormap, -range, range, maxSide);
}

void paintPicture(QPainter& painter, const QRectF& cells, const MatrixPicture& picture)
{
    drawCellImage(painter, cells, picture.image);  // crisp cells in SVG and PDF too
}

QPoint matrixCellAt(const QRectF& cells, Index rows, Index columns, const QPointF& point)
{
    if (rows <= 0 || columns <= 0 || cells.width() <= 0 || cells.height() <= 0) return {-1, -1};
    if (point.x() < cells.left() || point.x() >= cells.right() || point.y() < cells.top() ||
        point.y() >= cells.bottom())
        return {-1, -1};
    const auto column = static_cast<int>(std::clamp<Index>(
        static_cast<Index>((point.x() - cells.left()) / cells.width() * static_cast<double>(columns)), 0, columns - 1));
    const auto row = static_cast<int>(std::clamp<Index>(
        static_cast<Index>((point.y() - cells.top()) / cells.height() * static_cast<double>(rows)), 0, rows - 1));
    return {column, row};
}

QRectF matrixRowBlock(const QRectF& cells, Index rows, Index first, Index count)
{
    if (rows <= 0) return {};
    const double pitch = cells.height() / static_cast<double>(rows);
    QRectF band(cells.left(), cells.top() + static_cast<double>(first) * pitch, cells.width(),
                static_cast<double>(count) * pitch);
    if (band.height() < 2.0) band.adjust(0, -(2.0 - band.height()) / 2, 0, (2.0 - band.height()) / 2);
    return band;
}

QRectF matrixColumnBlock(const QRectF& cells, Index columns, Index first, Index count)
{
    if (columns <= 0) return {};
    const double pitch = cells.width() / static_cast<double>(columns);
    QRectF band(cells.left() + static_cast<double>(first) * pitch, cells.top(), static_cast<double>(count) * pitch,
                cells.height());
    if (band.width() < 2.0) band.adjust(-(2.0 - band.width()) / 2, 0, (2.0 - band.width()) / 2, 0);
    return band;
}

QRectF matrixRowBand(const QRectF& cells, Index rows, Index row) { return matrixRowBlock(cells, rows, row, 1); }

QRectF matrixColumnBand(const QRectF& cells, Index columns, Index column)
{
    return matrixColumnBlock(cells, columns, column, 1);
}

}  // namespace qkv::ui
