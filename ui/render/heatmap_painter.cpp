#include "ui/render/heatmap_painter.hpp"

#include <QFontMetricsF>
#include <QLinearGradient>
#include <QPaintDevice>

#include <algorithm>
#include <cmath>

namespace qkv::ui {
namespace {

constexpr double kPad = 4.0;
// Below this many cells, cells are drawn as rectangles (crisp in SVG and PDF too); above it,
// as one image (fast, and averaged down when smaller than the matrix).
constexpr qsizetype kVectorCellLimit = 4096;

double normalised(double value, double minValue, double maxValue)
{
    if (!std::isfinite(value)) return std::nan("");
    const double span = maxValue - minValue;
    if (span <= 0) return 0.5;
    return (value - minValue) / span;
}

// Device pixels per logical unit along x and y.
QPointF deviceScale(const QPainter& painter)
{
    const QTransform t = painter.deviceTransform();
    return {std::hypot(t.m11(), t.m12()), std::hypot(t.m21(), t.m22())};
}

void paintMissingCell(QPainter& painter, const QRectF& rect)
{
    painter.fillRect(rect, Colormap::neutralColor());
    if (rect.width() >= 6 && rect.height() >= 6)
        painter.fillRect(rect, QBrush(Colormap::neutralColor().darker(140), Qt::BDiagPattern));
}

void paintCellsAsRects(QPainter& painter, const HeatmapLayout& layout, const qkv::MatrixF& values,
                       const HeatmapStyle& style)
{
    const Colormap& colormap = Colormap::get(style.colormap);
    const QRectF cells = layout.cellsRect();
    // Shared edges, so neighbouring cells neither overlap nor leave hairline gaps.
    auto edgeX = [&](int c) { return cells.left() + c * layout.cellWidth(); };
    auto edgeY = [&](int r) { return cells.top() + r * layout.cellHeight(); };
    for (int r = 0; r < layout.rows(); ++r) {
        for (int c = 0; c < layout.columns(); ++c) {
            const QRectF rect(QPointF(edgeX(c), edgeY(r)), QPointF(edgeX(c + 1), edgeY(r + 1)));
            const double value = values(r, c);
            if (!std::isfinite(value)) {
                paintMissingCell(painter, rect);
                continue;
            }
            painter.fillRect(rect, colormap.map(normalised(value, style.minValue, style.maxValue)));
        }
    }
}

void paintCellsAsImage(QPainter& painter, const HeatmapLayout& layout, const QImage& image)
{
    const QRectF cells = layout.cellsRect();
    const QPointF scale = deviceScale(painter);
    const int pixelsWide = std::max(1, static_cast<int>(std::round(cells.width() * scale.x())));
    const int pixelsHigh = std::max(1, static_cast<int>(std::round(cells.height() * scale.y())));
    if (pixelsWide >= image.width() && pixelsHigh >= image.height()) {
        painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
        painter.drawImage(cells, image);
        return;
    }
    // More cells than pixels: average blocks of cells (area filter) instead of skipping them.
    const QImage reduced = image.scaled(std::min(pixelsWide, image.width()),
                                        std::min(pixelsHigh, image.height()), Qt::IgnoreAspectRatio,
                                        Qt::SmoothTransformation);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(cells, reduced);
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
        painter.drawText(rotated, Qt::AlignCenter,
                         metrics.elidedText(style.rowAxisTitle, Qt::ElideRight, r.height()));
        painter.restore();
    }
    if (!layout.columnAxisTitleRect().isNull()) {
        const QRectF r = layout.columnAxisTitleRect();
        painter.drawText(r, Qt::AlignCenter,
                         metrics.elidedText(style.columnAxisTitle, Qt::ElideRight, r.width()));
    }
}

void paintHighlights(QPainter& painter, const HeatmapLayout& layout, const HeatmapStyle& style)
{
    painter.setBrush(Qt::NoBrush);
    painter.setRenderHint(QPainter::Antialiasing, false);
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

QImage heatmapImage(const qkv::MatrixF& values, ColormapName colormapName, double minValue,
                    double maxValue)
{
    const int rows = static_cast<int>(values.rows());
    const int columns = static_cast<int>(values.cols());
    if (rows == 0 || columns == 0) return {};
    QImage image(columns, rows, QImage::Format_ARGB32);
    const Colormap& colormap = Colormap::get(colormapName);
    for (int r = 0; r < rows; ++r) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(r));
        for (int c = 0; c < columns; ++c)
            line[c] = colormap.rgb(normalised(values(r, c), minValue, maxValue));
    }
    return image;
}

void paintHeatmap(QPainter& painter, const QRectF& target, const qkv::MatrixF& values,
                  const HeatmapStyle& style)
{
    const bool asRects = values.size() <= kVectorCellLimit;
    paintHeatmap(painter, target, values, style,
                 asRects ? QImage() : heatmapImage(values, style.colormap, style.minValue, style.maxValue));
}

void paintHeatmap(QPainter& painter, const QRectF& target, const qkv::MatrixF& values,
                  const HeatmapStyle& style, const QImage& cellImage)
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
        const QRectF block = layout.titleRect().united(layout.cellsRect())
                                 .united(layout.rowLabelsRect()).united(layout.columnLabelsRect());
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
        const bool asRects = values.size() <= kVectorCellLimit || cellImage.isNull();
        if (asRects)
            paintCellsAsRects(painter, layout, values, style);
        else
            paintCellsAsImage(painter, layout, cellImage);
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

std::vector<double> niceTicks(double minValue, double maxValue, int count)
{
    std::vector<double> ticks;
    if (!std::isfinite(minValue) || !std::isfinite(maxValue) || count < 2) return ticks;
    if (maxValue <= minValue) return {minValue};
    const double rough = (maxValue - minValue) / (count - 1);
    const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
    double step = magnitude;
    for (double factor : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        step = factor * magnitude;
        if (step >= rough) break;
    }
    const double first = std::ceil(minValue / step - 1e-9) * step;
    for (double v = first; v <= maxValue + step * 1e-9; v += step)
        ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    return ticks;
}

void paintColorLegend(QPainter& painter, const QRectF& target, ColormapName colormapName,
                      double minValue, double maxValue, const QString& label)
{
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QFontMetricsF metrics(painter.font(), painter.device());
    const Colormap& colormap = Colormap::get(colormapName);
    const QPen textPen = painter.pen();
    const bool horizontal = target.width() >= target.height();
    const double span = maxValue - minValue;
    auto tickText = [](double v) { return QString::number(v, 'g', 3); };

    if (horizontal) {
        const double labelWidth = label.isEmpty() ? 0 : std::min(metrics.horizontalAdvance(label) + 3 * kPad,
                                                                  target.width() * 0.55);
        const double barHeight = std::clamp(target.height() - metrics.height() - 3 * kPad, 6.0, 16.0);
        const double halfTick = metrics.horizontalAdvance(tickText(maxValue)) / 2 + 2;
        QRectF bar(target.left() + labelWidth + halfTick, target.top() + kPad,
                   std::max(10.0, target.width() - labelWidth - 2 * halfTick), barHeight);
        if (!label.isEmpty()) {
            painter.setPen(textPen);
            // A full line's height centred on the bar: a bar-high rectangle would clip the glyphs.
            painter.drawText(QRectF(target.left(), bar.center().y() - metrics.height() / 2, labelWidth - kPad,
                                    metrics.height()),
                             Qt::AlignRight | Qt::AlignVCenter,
                             metrics.elidedText(label, Qt::ElideRight, labelWidth - kPad));
        }
        QLinearGradient gradient(bar.topLeft(), bar.topRight());
        for (int i = 0; i <= 32; ++i) gradient.setColorAt(i / 32.0, colormap.map(i / 32.0));
        painter.fillRect(bar, gradient);
        painter.setPen(QPen(textPen.color(), 1));
        painter.drawRect(bar);
        for (double v : niceTicks(minValue, maxValue, std::clamp(static_cast<int>(bar.width() / 70), 2, 6))) {
            const double x = span > 0 ? bar.left() + (v - minValue) / span * bar.width() : bar.center().x();
            painter.drawLine(QPointF(x, bar.bottom()), QPointF(x, bar.bottom() + 3));
            const QString text = tickText(v);
            const double w = metrics.horizontalAdvance(text);
            painter.drawText(QRectF(x - w / 2 - 2, bar.bottom() + 3, w + 4, metrics.height()),
                             Qt::AlignCenter, text);
        }
    } else {
        const double barWidth = std::clamp(target.width() * 0.25, 8.0, 16.0);
        QRectF bar(target.left() + kPad, target.top() + metrics.height() / 2, barWidth,
                   std::max(10.0, target.height() - metrics.height()));
        QLinearGradient gradient(bar.bottomLeft(), bar.topLeft());
        for (int i = 0; i <= 32; ++i) gradient.setColorAt(i / 32.0, colormap.map(i / 32.0));
        painter.fillRect(bar, gradient);
        painter.setPen(QPen(textPen.color(), 1));
        painter.drawRect(bar);
        for (double v : niceTicks(minValue, maxValue, std::clamp(static_cast<int>(bar.height() / 40), 2, 8))) {
            const double y = span > 0 ? bar.bottom() - (v - minValue) / span * bar.height() : bar.center().y();
            painter.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 3, y));
            painter.drawText(QRectF(bar.right() + 5, y - metrics.height() / 2, target.right() - bar.right() - 5,
                                    metrics.height()),
                             Qt::AlignLeft | Qt::AlignVCenter, tickText(v));
        }
        if (!label.isEmpty()) {
            painter.save();
            painter.translate(target.right() - metrics.height() / 2, bar.center().y());
            painter.rotate(-90);
            painter.drawText(QRectF(-bar.height() / 2, -metrics.height() / 2, bar.height(), metrics.height()),
                             Qt::AlignCenter, metrics.elidedText(label, Qt::ElideRight, bar.height()));
            painter.restore();
        }
    }
    painter.restore();
}

}  // namespace qkv::ui
