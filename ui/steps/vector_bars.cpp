#include "ui/steps/vector_bars.hpp"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace qkv::ui {

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
    labels_ = labels;
    updateGeometry();
    update();
}

void VectorBars::setHighlighted(int index)
{
    highlighted_ = index;
    update();
}

void VectorBars::setColors(const QColor& positive, const QColor& negative)
{
    positive_ = positive;
    negative_ = negative;
    update();
}

void VectorBars::setPercent(bool percent)
{
    percent_ = percent;
    update();
}

QSize VectorBars::sizeHint() const
{
    const QFontMetrics metrics(font());
    int labelHeight = 0;
    if (!labels_.isEmpty()) {
        int widest = 0;
        for (const QString& label : labels_) widest = std::max(widest, metrics.horizontalAdvance(label));
        labelHeight = std::min(widest + 4, metrics.averageCharWidth() * 12) + 6;
    }
    return {400, 84 + labelHeight};
}

QSize VectorBars::minimumSizeHint() const { return {120, sizeHint().height()}; }

void VectorBars::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing, false);
    const QFontMetricsF metrics(font(), this);
    const double labelHeight = labels_.isEmpty() ? 0 : sizeHint().height() - 84;
    const double axisWidth = metrics.horizontalAdvance(QStringLiteral("-0.000")) + 6;
    const QRectF plot(axisWidth, 6, width() - axisWidth - 4, height() - 12 - labelHeight);
    if (values_.empty() || plot.width() <= 0) return;

    double largest = 0, smallest = 0;
    for (float v : values_) {
        if (!std::isfinite(v)) continue;
        largest = std::max(largest, static_cast<double>(v));
        smallest = std::min(smallest, static_cast<double>(v));
    }
    if (largest == smallest) largest = smallest + 1;
    const double span = largest - smallest;
    auto yOf = [&](double v) { return plot.bottom() - (v - smallest) / span * plot.height(); };
    const double zeroY = yOf(0);

    const QColor text = palette().color(QPalette::Text);
    QColor grid = palette().color(QPalette::Mid);
    painter.setPen(grid);
    painter.drawLine(QPointF(plot.left(), zeroY), QPointF(plot.right(), zeroY));
    painter.setPen(text);
    auto tick = [&](double v) {
        return percent_ ? QStringLiteral("%1%").arg(v * 100, 0, 'f', 0) : QString::number(v, 'f', 2);
    };
    painter.drawText(QRectF(0, plot.top() - metrics.height() / 2, axisWidth - 4, metrics.height()),
                     Qt::AlignRight | Qt::AlignVCenter, tick(largest));
    if (smallest < 0)
        painter.drawText(QRectF(0, plot.bottom() - metrics.height() / 2, axisWidth - 4, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, tick(smallest));
    painter.drawText(QRectF(0, zeroY - metrics.height() / 2, axisWidth - 4, metrics.height()),
                     Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("0"));

    const int count = static_cast<int>(values_.size());
    const double slot = plot.width() / count;
    const double gap = slot > 4 ? std::min(slot * 0.2, 3.0) : 0;
    for (int i = 0; i < count; ++i) {
        const double v = values_[static_cast<std::size_t>(i)];
        const double left = plot.left() + i * slot + gap / 2;
        if (!std::isfinite(v)) {
            painter.fillRect(QRectF(left, plot.top(), slot - gap, plot.height()),
                             QBrush(palette().color(QPalette::Mid), Qt::BDiagPattern));
            continue;
        }
        const double y = yOf(v);
        QRectF bar(QPointF(left, std::min(y, zeroY)), QPointF(left + std::max(slot - gap, 1.0), std::max(y, zeroY)));
        QColor color = v >= 0 ? positive_ : negative_;
        if (highlighted_ >= 0 && i != highlighted_) color.setAlpha(150);
        painter.fillRect(bar, color);
        if (i == highlighted_) {
            painter.setPen(QPen(QColor(0xff, 0x8c, 0x00), 2));
            painter.drawRect(bar.adjusted(-1, -1, 1, 1));
        }
    }
    if (!labels_.isEmpty()) {
        const int step = slot >= metrics.height() ? 1 : static_cast<int>(std::ceil(metrics.height() / slot));
        const double width = labelHeight - 6;
        for (int i = 0; i < count && i < labels_.size(); ++i) {
            if (i % step != 0 && i != highlighted_) continue;
            painter.save();
            painter.setPen(i == highlighted_ ? QColor(0xff, 0x8c, 0x00) : text);
            painter.translate(plot.left() + (i + 0.5) * slot, plot.bottom() + 4);
            painter.rotate(-90);
            painter.drawText(QRectF(-width, -metrics.height() / 2, width, metrics.height()),
                             Qt::AlignRight | Qt::AlignVCenter,
                             metrics.elidedText(labels_[i], Qt::ElideRight, width));
            painter.restore();
        }
    }
}

}  // namespace qkv::ui
