#include "ui/steps/vector_bars.hpp"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/render/number_format.hpp"

namespace qkv::ui {
namespace {

constexpr int kPlotHeight = 84;

}  // namespace

double vectorBarsLabelHeight(const QFontMetricsF& metrics, const QStringList& labels)
{
    if (labels.isEmpty()) return 0;
    double widest = 0;
    for (const QString& label : labels) widest = std::max(widest, metrics.horizontalAdvance(label));
    return std::min(widest + 4, metrics.averageCharWidth() * 12) + 6;
}

void paintVectorBars(QPainter& painter, const QRectF& rect, const std::vector<float>& values, const VectorBarsStyle& style)
{
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double labelHeight = style.labels.isEmpty() ? 0 : style.labelHeight;
    const auto tick = [&](double v) {
        return style.percent ? QStringLiteral("%1 %").arg(v * 100, 0, 'f', 0) : readableNumber(v);
    };
    double largest = 0, smallest = 0;
    for (float v : values) {
        if (!std::isfinite(v)) continue;
        largest = std::max(largest, static_cast<double>(v));
        smallest = std::min(smallest, static_cast<double>(v));
    }
    if (largest == smallest) largest = smallest + 1;
    const double axisWidth = std::max({metrics.horizontalAdvance(tick(largest)), metrics.horizontalAdvance(tick(smallest)),
                                       metrics.horizontalAdvance(QStringLiteral("0"))}) + 8;
    const QRectF plot(rect.left() + axisWidth, rect.top() + metrics.height() / 2, rect.width() - axisWidth - 4,
                      rect.height() - metrics.height() - labelHeight);
    if (values.empty() || plot.width() <= 0 || plot.height() <= 0) {
        painter.restore();
        return;
    }
    const double span = largest - smallest;
    auto yOf = [&](double v) { return plot.bottom() - (v - smallest) / span * plot.height(); };
    const double zeroY = yOf(0);

    painter.setPen(style.grid);
    painter.drawLine(QPointF(plot.left(), zeroY), QPointF(plot.right(), zeroY));
    painter.setPen(style.text);
    const auto axisLabel = [&](double y, const QString& text) {
        painter.drawText(QRectF(rect.left(), y - metrics.height() / 2, axisWidth - 4, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, text);
    };
    axisLabel(plot.top(), tick(largest));
    if (smallest < 0) axisLabel(plot.bottom(), tick(smallest));
    if (std::abs(zeroY - plot.top()) > metrics.height() && std::abs(zeroY - plot.bottom()) > metrics.height() * 0.9)
        axisLabel(zeroY, QStringLiteral("0"));
    else if (smallest >= 0)
        axisLabel(plot.bottom(), QStringLiteral("0"));

    const int count = static_cast<int>(values.size());
    const double slot = plot.width() / count;
    const double gap = slot > 4 ? std::min(slot * 0.2, 3.0) : 0;
    const QColor emphasis(0xff, 0x8c, 0x00);
    for (int i = 0; i < count; ++i) {
        const double v = values[static_cast<std::size_t>(i)];
        const double left = plot.left() + i * slot + gap / 2;
        if (!std::isfinite(v)) {
            painter.fillRect(QRectF(left, plot.top(), slot - gap, plot.height()), QBrush(style.grid, Qt::BDiagPattern));
            continue;
        }
        const double y = yOf(v);
        const QRectF bar(QPointF(left, std::min(y, zeroY)), QPointF(left + std::max(slot - gap, 1.0), std::max(y, zeroY)));
        QColor color = v >= 0 ? style.positive : style.negative;
        if (style.highlighted >= 0 && i != style.highlighted) color.setAlpha(150);
        painter.fillRect(bar, color);
        if (i == style.highlighted) {
            painter.setPen(QPen(emphasis, 2));
            painter.drawRect(bar.adjusted(-1, -1, 1, 1));
        }
    }
    if (!style.labels.isEmpty()) {
        painter.setRenderHint(QPainter::Antialiasing, true);
        const int step = slot >= metrics.height() ? 1 : static_cast<int>(std::ceil(metrics.height() / slot));
        const double width = labelHeight - 6;
        for (int i = 0; i < count && i < style.labels.size(); ++i) {
            if (i % step != 0 && i != style.highlighted) continue;
            painter.save();
            painter.setPen(i == style.highlighted ? emphasis : style.text);
            painter.translate(plot.left() + (i + 0.5) * slot, plot.bottom() + 4);
            painter.rotate(-90);
            painter.drawText(QRectF(-width, -metrics.height() / 2, width, metrics.height()), Qt::AlignRight | Qt::AlignVCenter,
                             metrics.elidedText(style.labels[i], Qt::ElideRight, width));
            painter.restore();
        }
    }
    painter.restore();
}

VectorBars::VectorBars(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void VectorBars::setValues(std::vector<float> values)
{
    values_ = std::move(values);
    update();
}

void VectorBars::setLabels(const QStringList& labels)
{
    style_.labels = labels;
    updateGeometry();
    update();
}

void VectorBars::setHighlighted(int index)
{
    style_.highlighted = index;
    update();
}

void VectorBars::setColors(const QColor& positive, const QColor& negative)
{
    style_.positive = positive;
    style_.negative = negative;
    update();
}

void VectorBars::setPercent(bool percent)
{
    style_.percent = percent;
    update();
}

QSize VectorBars::sizeHint() const
{
    const double labels = vectorBarsLabelHeight(QFontMetricsF(font()), style_.labels);
    return {400, kPlotHeight + static_cast<int>(std::ceil(labels))};
}

QSize VectorBars::minimumSizeHint() const { return {120, sizeHint().height()}; }

void VectorBars::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    VectorBarsStyle style = style_;
    style.text = palette().color(QPalette::Text);
    style.grid = palette().color(QPalette::Mid);
    style.labelHeight = vectorBarsLabelHeight(QFontMetricsF(font(), this), style_.labels);
    paintVectorBars(painter, QRectF(rect()).adjusted(0, 3, 0, -3), values_, style);
}

}  // namespace qkv::ui
