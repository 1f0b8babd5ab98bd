#include "ui/render/heatmap_painter.hpp"

#include <QFontMetricsF>
#include <QLinearGradient>
#include <QPaintDevice>
#include <QPaintEngine>

#include <algorithm>
#include <cmath>

namespace qkv::ui {
namespace {

constexpr double kPad = 4.0;
// A vector file (SVG, PDF) gets the cells as one image with at least this many image pixels per
// cell side, up to kMaxVectorImageSide: viewers that smooth images then blur only within a cell.
constexpr int kVectorPixelsPerCell = 8;
constexpr int kMaxVectorImageSide = 2048;

// Device pixels per logical unit along x and y.
QPointF deviceScale(const QPainter& painter)
{
    const QTransform t = painter.deviceTransform();
    return {std::hypot(t.m11(), t.m12()), std::hypot(t.m21(), t.m22())};
}

// The cells as one image (no seams between cells in SVG or PDF: separate
// rectangles leave hairlines where viewers antialias their shared edges).
void paintCells(QPainter& painter, const HeatmapLayout& layout, const QImage& image)
{
    drawCellImage(painter, layout.cellsRect(), image);
}

// Diagonal lines over masked cells (NaN or infinite), one clipped run per row, where the cells
// are big enough to show them. Lines rather than a pattern brush, which SVG does not keep.
void paintMaskedHatching(QPainter& painter, const HeatmapLayout& layout, const qkv::MatrixF& values)
{
    if (layout.cellWidth() < 6 || layout.cellHeight() < 6) return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(QPen(Colormap::neutralColor().darker(140), 1.0));
    constexpr double kSpacing = 6.0;
    for (int r = 0; r < layout.rows(); ++r) {
        for (int c = 0; c < layout.columns();) {
            if (std::isfinite(values(r, c))) {
                ++c;
                continue;
            }
            int end = c;
            while (end < layout.columns() && !std::isfinite(values(r, end))) ++end;
            const QRectF run = layout.cellRect(r, c).united(layout.cellRect(r, end - 1));
            painter.save();
            painter.setClipRect(run, Qt::IntersectClip);
            for (double x = run.left() - run.height(); x < run.right(); x += kSpacing)
                painter.drawLine(QPointF(x, run.bottom()), QPointF(x + run.height(), run.top()));
            painter.restore();
            c = end;
        }
    }
    painter.restore();
}

void paintRowLabels(QPainter& painter, const HeatmapLayout& layout, const HeatmapStyle& style,
                    const QFontMetricsF& metrics)
{
    const QRectF gutter = layout.rowLabelsRect();
    const double width = gutter.width() - 2 * kPad;
    for (int r = 0; r < layout.rows() && r < style.rowLabels.size(); ++r) {
        const bool highlighted = r == style.highlightedRow;
        if (r % layout.rowLabelStep() != 0 && !highlighted) continue;
        const QRectF row = layout.rowRect(r);
        const double centre = row.center().y();
        const QRectF rect(gutter.left() + kPad, centre - metrics.height() / 2, width, metrics.height());
        if (highlighted && layout.rowLabelStep() > 1) {
            // Drawn over its thinned-out neighbours, on a background so it stays readable.
            painter.fillRect(rect.adjusted(-2, 0, 2, 0), style.highlightColor);
        }
        painter.setPen(highlighted ? (layout.rowLabelStep() > 1 ? QColor(Qt::black) : style.highlightColor)
                                   : style.textColor);
        painter.drawText(rect, Qt::AlignRight | Qt::AlignVCenter,
                         metrics.elidedText(style.rowLabels[r], Qt::ElideRight, width));
    }
}

void paintColumnLabels(QPainter& painter, const HeatmapLayout& layout, const HeatmapStyle& style,
                       const QFontMetricsF& metrics)
{
    const QRectF gutter = layout.columnLabelsRect();
    const double width = gutter.height() - 2 * kPad;
    if (width <= 0) return;
    painter.setPen(style.textColor);
    for (int c = 0; c < layout.columns() && c < style.columnLabels.size(); ++c) {
        if (c % layout.columnLabelStep() != 0) continue;
        const double centre = layout.cellRect(0, c).center().x();
        painter.save();
        painter.translate(centre, gutter.top() + kPad);
        painter.rotate(-90);
        // Rotated: +x points up. The text ends next to the cells and reads bottom to top.
        const QRectF rect(-width, -metrics.height() / 2, width, metrics.height());
        painter.drawText(rect, Qt::AlignRight | Qt::AlignVCenter,
                         metrics.elidedText(style.columnLabels[c], Qt::ElideRight, width));
        painter.restore();
    }
}

void paintAxisTitles(QPainter& painter, const HeatmapLayout& layout, const HeatmapStyle& style,
                     const QFontMetricsF& metrics)
{
    painter.setPen(style.textColor);
    if (!layout.rowAxisTitleRect().isNull()) {
        const QRectF r = layout.rowAxisTitleRect();
        painter.save();
        painter.translate(r.center());
        painter.rotate(-90);
        const QRectF rotated(-r.height() / 2, -r.width() / 2, r.height(), r.width());
        painter.drawText(rotated, Qt::AlignCenter, metrics.elidedText(style.rowAxisTitle, Qt::ElideRight, r.height()));
        painter.restore();
    }
    if (!layout.columnAxisTitleRect().isNull()) {
        const QRectF r = layout.columnAxisTitleRect();
        painter.drawText(r, Qt::AlignCenter, metrics.elidedText(style.columnAxisTitle, Qt::ElideRight, r.width()));
    }
}

void paintHighlights(QPainter& painter, const HeatmapLayout& layout, const HeatmapStyle& style)
{
    painter.setBrush(Qt::NoBrush);
    painter.setRenderHint(QPainter::Antialiasing, false);
    if (style.spanFirstRow >= 0 && style.spanEndRow > style.spanFirstRow && style.spanEndRow <= layout.rows()) {
        const QRectF band = layout.rowRect(style.spanFirstRow).united(layout.rowRect(style.spanEndRow - 1));
        painter.setPen(QPen(style.selectionColor, 2));
        painter.drawRect(band.adjusted(-1, -1, 1, 1));
    }
    if (style.highlightedRow >= 0 && style.highlightedRow < layout.rows()) {
        painter.setPen(QPen(style.highlightColor, 2));
        painter.drawRect(layout.rowRect(style.highlightedRow).adjusted(-1, -1, 1, 1));
    }
    const QPoint cell = style.highlightedCell;
    if (cell.x() >= 0 && cell.y() >= 0 && cell.x() < layout.columns() && cell.y() < layout.rows()) {
        const QRectF rect = layout.cellRect(cell.y(), cell.x());
        painter.setPen(QPen(Qt::black, 3));
        painter.drawRect(rect.adjusted(-1, -1, 1, 1));
        painter.setPen(QPen(Qt::white, 1.5));
        painter.drawRect(rect.adjusted(-1, -1, 1, 1));
    }
}

}  // namespace

bool isVectorDevice(const QPainter& painter)
{
    const QPaintEngine* engine = painter.paintEngine();
    return engine && (engine->type() == QPaintEngine::SVG || engine->type() == QPaintEngine::Pdf ||
                      engine->type() == QPaintEngine::Picture);
}

void drawCellImage(QPainter& painter, const QRectF& cells, const QImage& image)
{
    if (image.isNull() || cells.width() <= 0 || cells.height() <= 0) return;
    painter.save();
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    if (isVectorDevice(painter)) {
        // Nearest-neighbour enlargement, so each cell is a block of identical pixels.
        const int factor = std::clamp(std::min(kMaxVectorImageSide / std::max(1, image.width()),
                                               kMaxVectorImageSide / std::max(1, image.height())),
                                      1, kVectorPixelsPerCell);
        painter.drawImage(cells, factor == 1 ? image
                                             : image.scaled(image.width() * factor, image.height() * factor,
                                                            Qt::IgnoreAspectRatio, Qt::FastTransformation));
    } else {
        const QPointF scale = deviceScale(painter);
        const int pixelsWide = std::max(1, static_cast<int>(std::round(cells.width() * scale.x())));
        const int pixelsHigh = std::max(1, static_cast<int>(std::round(cells.height() * scale.y())));
        if (pixelsWide >= image.width() && pixelsHigh >= image.height())
            painter.drawImage(cells, image);
        else  // more cells than pixels: average blocks of cells (area filter), never skip any
            painter.drawImage(cells, image.scaled(std::min(pixelsWide, image.width()), std::min(pixelsHigh, image.height()),
                                                  Qt::IgnoreAspectRatio, Qt::SmoothTransformation));
    }
    painter.restore();
}

QImage heatmapImage(const qkv::MatrixF& values, ColormapName colormapName, double minValue, double maxValue)
{
    const int rows = static_cast<int>(values.rows());
    const int columns = static_cast<int>(values.cols());
    if (rows == 0 || columns == 0) return {};
    // Opaque: every colour of a colormap is, and an RGB32 image is drawn and averaged down as it
    // is (an ARGB32 one is converted to premultiplied alpha first, at every draw).
    QImage image(columns, rows, QImage::Format_RGB32);
    const Colormap& colormap = Colormap::get(colormapName);
    for (int r = 0; r < rows; ++r)
        colormap.rgbOfValues(values.row(r).data(), static_cast<std::size_t>(columns), minValue, maxValue,
                             reinterpret_cast<unsigned*>(image.scanLine(r)));
    return image;
}

void paintHeatmap(QPainter& painter, const QRectF& target, const qkv::MatrixF& values, const HeatmapStyle& style)
{
    paintHeatmap(painter, target, values, style, heatmapImage(values, style.colormap, style.minValue, style.maxValue));
}

void paintHeatmap(QPainter& painter, const QRectF& target, const qkv::MatrixF& values, const HeatmapStyle& style,
                  const QImage& cellImage)
{
    painter.save();
    const QFontMetricsF metrics(painter.font(), painter.device());
    const int rows = static_cast<int>(values.rows());
    const int columns = static_cast<int>(values.cols());
    const HeatmapLayout layout(target, rows, columns, style, metrics);

    if (style.selected) {
        painter.setRenderHint(QPainter::Antialiasing, true);
        QColor fill = style.selectionColor;
        fill.setAlpha(40);
        painter.setPen(QPen(style.selectionColor, 2));
        painter.setBrush(fill);
        const QRectF block = layout.titleRect()
                                 .united(layout.cellsRect())
                                 .united(layout.rowLabelsRect())
                                 .united(layout.columnLabelsRect());
        painter.drawRoundedRect(block.adjusted(-3, -1, 3, 3), 4, 4);
        painter.setBrush(Qt::NoBrush);
    }

    if (!style.title.isEmpty()) {
        painter.setPen(style.textColor);
        QFont titleFont = painter.font();
        titleFont.setBold(style.selected);
        painter.setFont(titleFont);
        const QFontMetricsF titleMetrics(titleFont, painter.device());
        painter.drawText(layout.titleRect(), Qt::AlignCenter,
                         titleMetrics.elidedText(style.title, Qt::ElideRight, layout.titleRect().width()));
        titleFont.setBold(false);
        painter.setFont(titleFont);
    }

    if (rows > 0 && columns > 0 && layout.cellWidth() > 0) {
        painter.setRenderHint(QPainter::Antialiasing, false);
        paintCells(
            painter, layout,
            cellImage.isNull() ? heatmapImage(values, style.colormap, style.minValue, style.maxValue) : cellImage);
        paintMaskedHatching(painter, layout, values);
        painter.setRenderHint(QPainter::Antialiasing, true);
        if (style.drawLabels) {
            paintRowLabels(painter, layout, style, metrics);
            paintColumnLabels(painter, layout, style, metrics);
            paintAxisTitles(painter, layout, style, metrics);
        }
        paintHighlights(painter, layout, style);
    }
    painter.restore();
}

}  // namespace qkv::ui
