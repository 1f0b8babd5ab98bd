#include "ui/steps/bars_painter.hpp"

#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/number_format.hpp"

namespace qkv::ui {
namespace {

// The ends of a bar chart, to 2 significant digits so they fit the axis's room ("−0.06").
QString tickText(double v, bool percent)
{
    if (percent) return QStringLiteral("%1%").arg(v * 100, 0, 'f', 0);
    if (v == 0 || !std::isfinite(v)) return readableNumber(v);
    const double step = std::pow(10.0, std::floor(std::log10(std::abs(v))) - 1);
    return readableNumber(std::round(v / step) * step);
}

double labelsHeight(const BarsStyle& style, const QFontMetricsF& metrics)
{
    if (style.labels.isEmpty()) return 0;
    double widest = 0;
    for (const QString& label : style.labels) widest = std::max(widest, metrics.horizontalAdvance(label));
    // The highlighted label is drawn bold, up to ~10% wider; longer labels than 9 characters elide.
    return std::min(widest * 1.1, metrics.averageCharWidth() * 9) + 6;
}

// The labels under the bars, rotated, thinned so that they never overlap; the highlighted one
// always, in bold.
void paintBarLabels(QPainter& painter, const BarsGeometry& g, const BarsStyle& style, const QFontMetricsF& metrics)
{
    if (style.labels.isEmpty() || g.labels.isNull()) return;
    const double pitch = std::min(metrics.height(), metrics.ascent() + 1.0);
    const int step = g.slot >= pitch ? 1 : static_cast<int>(std::ceil(pitch / g.slot));
    const double width = g.labels.height() - 4;
    for (int i = 0; i < g.count && i < style.labels.size(); ++i) {
        const bool highlighted = i == style.highlighted;
        if (i % step != 0 && !highlighted) continue;
        painter.save();
        painter.setPen(highlighted ? style.highlight : style.text);
        if (highlighted) {
            QFont bold = painter.font();
            bold.setBold(true);
            painter.setFont(bold);
        }
        painter.translate(g.plot.left() + (i + 0.5) * g.slot, g.labels.top() + 2);
        painter.rotate(-90);
        // Elided with the font it is drawn in: a bold label is wider.
        const QFontMetricsF drawn(painter.font(), painter.device());
        painter.drawText(QRectF(-width, -drawn.height() / 2, width, drawn.height()), Qt::AlignRight | Qt::AlignVCenter,
                         drawn.elidedText(style.labels[i], Qt::ElideRight, width));
        painter.restore();
    }
}

}  // namespace

int BarsGeometry::barAt(const QPointF& point) const
{
    if (count <= 0 || slot <= 0) return -1;
    if (point.x() < plot.left() || point.x() >= plot.right()) return -1;
    const double bottom = axisTitle.isNull() ? (labels.isNull() ? plot.bottom() : labels.bottom()) : axisTitle.top();
    if (point.y() < plot.top() || point.y() > bottom) return -1;
    return std::clamp(static_cast<int>((point.x() - plot.left()) / slot), 0, count - 1);
}

BarRange barRange(const std::vector<float>& values, const BarsStyle& style)
{
    BarRange range{0, 0};
    auto include = [&](float v) {
        if (!std::isfinite(v)) return;
        range.largest = std::max(range.largest, static_cast<double>(v));
        range.smallest = std::min(range.smallest, static_cast<double>(v));
    };
    for (float v : values) include(v);
    for (float v : style.hollow) include(v);
    if (style.percent) range.largest = std::max(range.largest, 1e-6);
    if (range.largest == range.smallest) range.largest = range.smallest + 1;
    return range;
}

BarsGeometry barsGeometry(const QRectF& target, const std::vector<float>& values, const BarsStyle& style,
                          const QFontMetricsF& metrics)
{
    BarsGeometry g;
    g.count = static_cast<int>(values.size());
    const BarRange range = barRange(values, style);
    double widestTick = metrics.horizontalAdvance(QStringLiteral("−0.00"));
    for (double v : {range.largest, range.smallest, 0.0})
        widestTick = std::max(widestTick, metrics.horizontalAdvance(tickText(v, style.percent)));
    const double axisWidth = widestTick + 8;
    const double labelHeight = labelsHeight(style, metrics);
    const double titleHeight = style.axisTitle.isEmpty() ? 0 : metrics.height();
    const double plotHeight = std::max(8.0, target.height() - labelHeight - titleHeight - 4);
    g.plot =
        QRectF(target.left() + axisWidth, target.top() + 2, std::max(1.0, target.width() - axisWidth - 2), plotHeight);
    if (labelHeight > 0) g.labels = QRectF(g.plot.left(), g.plot.bottom() + 2, g.plot.width(), labelHeight);
    if (titleHeight > 0)
        g.axisTitle = QRectF(g.plot.left(), g.plot.bottom() + 2 + labelHeight, g.plot.width(), titleHeight);
    g.slot = g.count > 0 ? g.plot.width() / g.count : 0;
    return g;
}

std::vector<BarTick> barTicks(const BarsGeometry& g, const BarRange& range, const BarsStyle& style,
                              const QRectF& target, const QFontMetricsF& metrics)
{
    const QRectF& plot = g.plot;
    const double span = range.largest - range.smallest;
    auto yOf = [&](double v) { return plot.bottom() - (v - range.smallest) / span * plot.height(); };
    const double half = metrics.height() / 2;
    // Candidates in order of importance: the largest value, the smallest, then zero (the line the
    // bars grow from). One is kept only if its text stays clear of those kept before it.
    struct Candidate {
        double value, y;
    };
    std::vector<Candidate> candidates{{range.largest, std::max(plot.top() + half - 2, yOf(range.largest))}};
    if (range.smallest < 0) candidates.push_back({range.smallest, std::min(plot.bottom() - half + 2, yOf(range.smallest))});
    candidates.push_back({0.0, range.smallest >= 0 ? plot.bottom() - half + 2 : yOf(0)});
    std::vector<BarTick> ticks;
    for (const Candidate& c : candidates) {
        // Kept inside the target: the end ticks sit at most half a line beyond the plot.
        const double y = std::max(target.top() + half, std::min(c.y, target.bottom() - half));
        const QRectF rect(target.left(), y - half, plot.left() - 4 - target.left(), metrics.height());
        const bool clear = std::none_of(ticks.begin(), ticks.end(), [&](const BarTick& kept) {
            return rect.top() < kept.rect.bottom() + 1 && kept.rect.top() < rect.bottom() + 1;
        });
        if (clear) ticks.push_back({tickText(c.value, style.percent), rect});
    }
    return ticks;
}

void paintBars(QPainter& painter, const QRectF& target, const std::vector<float>& values, const BarsStyle& style)
{
    painter.save();
    const QFontMetricsF metrics(painter.font(), painter.device());
    const int count = static_cast<int>(values.size());
    const BarsGeometry g = barsGeometry(target, values, style, metrics);
    if (count == 0) {
        painter.restore();
        return;
    }
    const BarRange range = barRange(values, style);
    const double smallest = range.smallest, span = range.largest - range.smallest;
    const QRectF& plot = g.plot;
    auto yOf = [&](double v) { return plot.bottom() - (v - smallest) / span * plot.height(); };
    const double zeroY = yOf(0);

    // Ticks: the ends and zero.
    QColor grid = style.text;
    grid.setAlpha(90);
    painter.setPen(grid);
    painter.drawLine(QPointF(plot.left(), zeroY), QPointF(plot.right(), zeroY));
    painter.setPen(style.text);
    for (const BarTick& tick : barTicks(g, range, style, target, metrics))
        painter.drawText(tick.rect, Qt::AlignRight | Qt::AlignVCenter, tick.text);

    const double gap = g.slot > 4 ? std::min(g.slot * 0.2, 3.0) : 0;
    painter.setRenderHint(QPainter::Antialiasing, false);
    for (int i = 0; i < count; ++i) {
        const double left = plot.left() + i * g.slot + gap / 2;
        const double width = std::max(g.slot - gap, 1.0);
        const bool hatched = i < static_cast<int>(style.hatched.size()) && style.hatched[static_cast<std::size_t>(i)];
        if (hatched) {
            QColor hatch = style.text;
            hatch.setAlpha(70);
            painter.fillRect(QRectF(left, plot.top(), width, plot.height()), QBrush(hatch, Qt::BDiagPattern));
        }
        const double v = values[static_cast<std::size_t>(i)];
        if (std::isfinite(v)) {
            const double y = yOf(v);
            const QRectF bar(QPointF(left, std::min(y, zeroY)), QPointF(left + width, std::max(y, zeroY)));
            QColor color = v >= 0 ? style.positive : style.negative;
            if (style.highlighted >= 0 && i != style.highlighted) color.setAlpha(170);
            painter.fillRect(bar, color);
            if (i == style.highlighted) {
                painter.setPen(QPen(style.highlight, 2));
                painter.setBrush(Qt::NoBrush);
                painter.drawRect(bar.adjusted(-1, -1, 1, 1));
            }
        }
        if (i < static_cast<int>(style.hollow.size()) && std::isfinite(style.hollow[static_cast<std::size_t>(i)])) {
            const double y = yOf(style.hollow[static_cast<std::size_t>(i)]);
            painter.setPen(QPen(style.text, 1, Qt::DotLine));
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(QRectF(QPointF(left, std::min(y, zeroY)), QPointF(left + width, std::max(y, zeroY))));
        }
    }
    painter.setRenderHint(QPainter::Antialiasing, true);

    paintBarLabels(painter, g, style, metrics);
    if (!g.axisTitle.isNull()) {
        painter.setPen(style.text);
        painter.drawText(g.axisTitle, Qt::AlignCenter,
                         metrics.elidedText(style.axisTitle, Qt::ElideRight, g.axisTitle.width()));
    }
    painter.restore();
}

}  // namespace qkv::ui
