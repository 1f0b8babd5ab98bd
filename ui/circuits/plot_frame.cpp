#include "ui/circuits/plot_frame.hpp"

#include <QPainter>

#include <algorithm>
#include <vector>

#include "ui/figures/figure.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/render/color_legend.hpp"

namespace qkv::ui {
namespace {

void growIfEmpty(double& minimum, double& maximum)
{
    if (maximum > minimum) return;
    const double pad = std::max(1e-3, std::abs(minimum) * 0.1);
    minimum -= pad;
    maximum += pad;
}

}  // namespace

PlotFrame::PlotFrame(const QRectF& area, const QFontMetricsF& metrics, double xMin, double xMax, double yMin,
                     double yMax)
    : area_(area), lineHeight_(metrics.height()), xMin_(xMin), xMax_(xMax), yMin_(yMin), yMax_(yMax)
{
    growIfEmpty(xMin_, xMax_);
    growIfEmpty(yMin_, yMax_);
    // Left: the rotated title and the widest tick label; below: tick labels and the title.
    const double tickWidth =
        std::max({metrics.horizontalAdvance(readableNumber(yMin_)), metrics.horizontalAdvance(readableNumber(yMax_)),
                  metrics.horizontalAdvance(QStringLiteral("−0.00"))});
    const double left = lineHeight_ * 1.6 + tickWidth + 6;
    const double bottom = lineHeight_ * 2.8;
    plot_ = QRectF(area.left() + left, area.top() + lineHeight_ * 0.6, std::max(10.0, area.width() - left - 12),
                   std::max(10.0, area.height() - bottom - lineHeight_ * 0.6));
}

QPointF PlotFrame::toPoint(double x, double y) const
{
    return {plot_.left() + (x - xMin_) / (xMax_ - xMin_) * plot_.width(),
            plot_.bottom() - (y - yMin_) / (yMax_ - yMin_) * plot_.height()};
}

void PlotFrame::equalUnits()
{
    const double perX = plot_.width() / (xMax_ - xMin_);
    const double perY = plot_.height() / (yMax_ - yMin_);
    const double unit = std::min(perX, perY);
    const QSizeF size((xMax_ - xMin_) * unit, (yMax_ - yMin_) * unit);
    plot_ = QRectF(QPointF(plot_.left() + (plot_.width() - size.width()) / 2, plot_.top()), size);
}

void PlotFrame::paint(QPainter& painter, const FigureOptions& options, const QString& xTitle,
                      const QString& yTitle) const
{
    painter.save();
    const QFontMetricsF metrics(painter.font(), painter.device());
    QColor grid = options.text;
    grid.setAlphaF(0.15f);
    const int xCount =
        std::max(2, static_cast<int>(plot_.width() / (metrics.horizontalAdvance(QStringLiteral("−0.00")) * 2)));
    const int yCount = std::max(2, static_cast<int>(plot_.height() / (lineHeight_ * 2.2)));
    for (const double x : niceTicks(xMin_, xMax_, std::min(xCount, 10))) {
        const double px = toPoint(x, yMin_).x();
        painter.setPen(QPen(grid, 1));
        painter.drawLine(QPointF(px, plot_.top()), QPointF(px, plot_.bottom()));
        painter.setPen(options.text);
        painter.drawText(QRectF(px - 40, plot_.bottom() + 3, 80, lineHeight_), Qt::AlignHCenter | Qt::AlignTop,
                         readableNumber(x));
    }
    for (const double y : niceTicks(yMin_, yMax_, std::min(yCount, 10))) {
        const double py = toPoint(xMin_, y).y();
        painter.setPen(QPen(grid, 1));
        painter.drawLine(QPointF(plot_.left(), py), QPointF(plot_.right(), py));
        painter.setPen(options.text);
        painter.drawText(QRectF(plot_.left() - 200 - 4, py - lineHeight_ / 2, 200, lineHeight_),
                         Qt::AlignRight | Qt::AlignVCenter, readableNumber(y));
    }
    painter.setPen(QPen(options.text, 1));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(plot_);
    drawFittedText(painter, QRectF(plot_.left(), plot_.bottom() + lineHeight_ * 1.3, plot_.width(), lineHeight_ * 1.3),
                   Qt::AlignHCenter | Qt::AlignVCenter, painter.font(), xTitle);
    painter.translate(area_.left(), plot_.center().y());
    painter.rotate(-90);
    drawFittedText(painter, QRectF(-plot_.height() / 2, 0, plot_.height(), lineHeight_ * 1.3),
                   Qt::AlignHCenter | Qt::AlignVCenter, painter.font(), yTitle);
    painter.restore();
}

}  // namespace qkv::ui
