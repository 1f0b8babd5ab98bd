#include "ui/render/color_legend.hpp"

#include <QLinearGradient>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/number_format.hpp"
#include "ui/figures/text_layout.hpp"

namespace qkv::ui {
namespace {

constexpr double kPad = 4.0;
constexpr double kBarThickness = 12.0;
constexpr double kTickLength = 3.0;

std::vector<double> ticksWithStep(double minValue, double maxValue, double step)
{
    std::vector<double> ticks;
    const double first = std::ceil(minValue / step - 1e-9) * step;
    for (double v = first; v <= maxValue + step * 1e-9 && ticks.size() < 1000; v += step)
        ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    return ticks;
}

QLinearGradient gradientAlong(const QPointF& from, const QPointF& to, const Colormap& colormap)
{
    QLinearGradient gradient(from, to);
    for (int i = 0; i <= 32; ++i) gradient.setColorAt(i / 32.0, colormap.map(i / 32.0));
    return gradient;
}

constexpr double kTickGap = 4.0;  // between two tick labels, at least

// Whether the labels of `ticks` on a bar `length` long keep kTickGap apart; `extent` measures a
// label along the bar.
template <typename Extent>
bool ticksApart(const std::vector<double>& ticks, double minValue, double span, double length, Extent extent)
{
    double lastEnd = -1e300;
    for (double v : ticks) {
        const double centre = span > 0 ? (v - minValue) / span * length : length / 2;
        const double half = extent(v) / 2;
        if (centre - half < lastEnd + kTickGap) return false;
        lastEnd = centre + half;
    }
    return true;
}

}  // namespace

std::vector<double> legendTicks(double minValue, double maxValue, double length, bool horizontal,
                                const QFontMetricsF& metrics)
{
    const double span = maxValue - minValue;
    const auto extent = [&](double v) {
        return horizontal ? metrics.horizontalAdvance(readableNumber(v)) : metrics.height();
    };
    const int most = horizontal ? std::clamp(static_cast<int>(length / 60), 2, 7)
                                : std::clamp(static_cast<int>(length / 36), 2, 9);
    std::vector<double> ticks;
    for (int count = most; count >= 2; --count) {
        ticks = niceTicks(minValue, maxValue, count);
        if (ticksApart(ticks, minValue, span, length, extent)) return ticks;
    }
    // Even the fewest overlap (a symmetric range keeps −r, 0 and r): keep those that stay apart.
    std::vector<double> kept;
    for (double v : ticks) {
        kept.push_back(v);
        if (!ticksApart(kept, minValue, span, length, extent)) kept.pop_back();
    }
    return kept;
}

std::vector<double> niceTicks(double minValue, double maxValue, int count)
{
    if (!std::isfinite(minValue) || !std::isfinite(maxValue) || count < 2) return {};
    if (maxValue <= minValue) return {minValue};
    const double span = maxValue - minValue;
    const double rough = span / (count - 1);
    // Candidate steps around `rough`, ascending.
    std::vector<double> steps;
    const int top = static_cast<int>(std::floor(std::log10(span))) + 1;
    for (int e = top - 4; e <= top; ++e)
        for (double factor : {1.0, 2.0, 2.5, 5.0}) steps.push_back(factor * std::pow(10.0, e));
    // The smallest step giving at most `count` ticks; if that leaves fewer than two (a step
    // overshooting a symmetric range keeps only 0), the largest step that gives two.
    for (double step : steps)
        if (step >= rough * (1 - 1e-9)) {
            if (auto ticks = ticksWithStep(minValue, maxValue, step); ticks.size() >= 2) return ticks;
            break;
        }
    for (auto it = steps.rbegin(); it != steps.rend(); ++it)
        if (auto ticks = ticksWithStep(minValue, maxValue, *it); ticks.size() >= 2) return ticks;
    return {minValue, maxValue};
}

double horizontalLegendHeight(const QFontMetricsF& metrics, double width, const QString& label)
{
    const double labelHeight = label.isEmpty() ? 0 : wrappedTextRect(metrics, width, label).height() + kPad;
    return labelHeight + kBarThickness + kTickLength + metrics.height() + kPad;
}

double verticalLegendWidth(const QFontMetricsF& metrics, double minValue, double maxValue)
{
    double widest = 0;
    for (double v : niceTicks(minValue, maxValue, 8))
        widest = std::max(widest, metrics.horizontalAdvance(readableNumber(v)));
    return kPad + kBarThickness + kTickLength + 2 + widest + kPad + metrics.height() + kPad;
}

double verticalLegendWidth(const QFontMetricsF& metrics, const QString& widestTick)
{
    return kPad + kBarThickness + kTickLength + 2 + metrics.horizontalAdvance(widestTick) + kPad + metrics.height() +
           kPad;
}

void paintColorLegend(QPainter& painter, const QRectF& target, ColormapName colormap, double minValue, double maxValue,
                      const QString& label)
{
    paintColorLegend(painter, target, ColorLegend{colormap, minValue, maxValue, label});
}

void paintColorLegend(QPainter& painter, const QRectF& target, const ColorLegend& legend)
{
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QFontMetricsF metrics(painter.font(), painter.device());
    const Colormap& colormap = Colormap::get(legend.colormap);
    const QPen textPen = painter.pen();
    const double minValue = legend.minValue, maxValue = legend.maxValue;
    const double span = maxValue - minValue;

    if (target.width() >= target.height()) {
        double top = target.top();
        if (!legend.label.isEmpty()) {
            const double height = wrappedTextRect(metrics, target.width(), legend.label).height();
            painter.drawText(QRectF(target.left(), top, target.width(), height), Qt::TextWordWrap | Qt::AlignLeft,
                             legend.label);
            top += height + kPad;
        }
        // Half a tick label of room at each end, so the end ticks stay inside the target.
        const double halfTick = std::max(metrics.horizontalAdvance(readableNumber(minValue)),
                                         metrics.horizontalAdvance(readableNumber(maxValue))) /
                                    2 +
                                2;
        const QRectF bar(target.left() + halfTick, top, std::max(10.0, target.width() - 2 * halfTick), kBarThickness);
        painter.fillRect(bar, gradientAlong(bar.topLeft(), bar.topRight(), colormap));
        painter.setPen(QPen(textPen.color(), 1));
        painter.drawRect(bar);
        for (double v : legendTicks(minValue, maxValue, bar.width(), true, metrics)) {
            const double x = span > 0 ? bar.left() + (v - minValue) / span * bar.width() : bar.center().x();
            painter.drawLine(QPointF(x, bar.bottom()), QPointF(x, bar.bottom() + kTickLength));
            const QString text = readableNumber(v);
            const double w = metrics.horizontalAdvance(text);
            painter.drawText(QRectF(x - w / 2 - 2, bar.bottom() + kTickLength, w + 4, metrics.height()),
                             Qt::AlignCenter, text);
        }
    } else {
        const QRectF bar(target.left() + kPad, target.top() + metrics.height() / 2, kBarThickness,
                         std::max(10.0, target.height() - metrics.height()));
        painter.fillRect(bar, gradientAlong(bar.bottomLeft(), bar.topLeft(), colormap));
        painter.setPen(QPen(textPen.color(), 1));
        painter.drawRect(bar);
        double widest = 0;
        for (double v : legendTicks(minValue, maxValue, bar.height(), false, metrics)) {
            const double y = span > 0 ? bar.bottom() - (v - minValue) / span * bar.height() : bar.center().y();
            painter.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + kTickLength, y));
            const QString text = readableNumber(v);
            widest = std::max(widest, metrics.horizontalAdvance(text));
            painter.drawText(QRectF(bar.right() + kTickLength + 2, y - metrics.height() / 2,
                                    metrics.horizontalAdvance(text) + 2, metrics.height()),
                             Qt::AlignLeft | Qt::AlignVCenter, text);
        }
        if (!legend.label.isEmpty()) {
            painter.save();
            painter.translate(bar.right() + kTickLength + 2 + widest + kPad + metrics.height() / 2, bar.center().y());
            painter.rotate(-90);
            painter.drawText(QRectF(-bar.height() / 2, -metrics.height() / 2, bar.height(), metrics.height()),
                             Qt::AlignCenter, metrics.elidedText(legend.label, Qt::ElideRight, bar.height()));
            painter.restore();
        }
    }
    painter.restore();
}

}  // namespace qkv::ui
