#include "ui/render/chart_painter.hpp"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

#include "ui/render/color_legend.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/figures/text_layout.hpp"

namespace qkv::ui {
namespace {

constexpr double kPad = 6.0;
constexpr double kTick = 4.0;
constexpr double kSwatch = 12.0;
constexpr int kWrap = Qt::TextWordWrap;

// Maps data values to pixels along one axis, linearly or by their logarithm.
class AxisScale {
public:
    AxisScale(const ChartAxis& axis, double from, double to) : axis_(axis), from_(from), to_(to)
    {
        low_ = axis.logarithmic ? std::log10(std::max(axis.minimum, 1e-300)) : axis.minimum;
        high_ = axis.logarithmic ? std::log10(std::max(axis.maximum, 1e-300)) : axis.maximum;
        if (!(high_ > low_)) high_ = low_ + 1;
    }
    double map(double value) const
    {
        double v = value;
        if (axis_.logarithmic) v = value > 0 ? std::log10(value) : low_;
        return from_ + (v - low_) / (high_ - low_) * (to_ - from_);
    }
    // A tick's text: powers of ten on a log axis spanning beyond what decimals read well
    // ("10⁻¹²"), else readable numbers ("1,000", "22.5k").
    QString label(double value) const
    {
        const bool powers = axis_.logarithmic && axis_.ticks.empty() && (low_ < -2.5 || high_ > 9.5);
        return powers && value > 0 ? powerOfTen(static_cast<int>(std::lround(std::log10(value)))) : readableNumber(value);
    }
    // Tick values: the axis's own, else round numbers or powers of ten, about `count` of them.
    std::vector<double> ticks(int count) const
    {
        std::vector<double> out;
        if (!axis_.ticks.empty()) {
            for (double t : axis_.ticks)
                if (t >= axis_.minimum * (1 - 1e-9) && t <= axis_.maximum * (1 + 1e-9)) out.push_back(t);
            return out;
        }
        if (!axis_.logarithmic) return niceTicks(axis_.minimum, axis_.maximum, std::max(count, 2));
        const int first = static_cast<int>(std::ceil(low_ - 1e-9)), last = static_cast<int>(std::floor(high_ + 1e-9));
        const int step = std::max(1, static_cast<int>(std::ceil((last - first + 1) / static_cast<double>(std::max(count, 2)))));
        for (int e = first; e <= last; e += step) out.push_back(std::pow(10.0, e));
        return out;
    }

private:
    const ChartAxis& axis_;
    double from_, to_, low_ = 0, high_ = 1;
};

QRectF wrapped(const QFontMetricsF& metrics, double width, const QString& text)
{
    return metrics.boundingRect(QRectF(0, 0, std::max(width, 1.0), 1e6), kWrap | Qt::AlignLeft, text);
}


// Legend entries flowed into rows that fit `width`; an entry wider than a row wraps its text.
struct LegendEntry {
    const ChartSeries* series;
    QRectF rect;  // swatch + text, relative to the legend's top-left
};

std::vector<LegendEntry> layoutLegend(const ChartModel& model, const QFontMetricsF& metrics, double width,
                                      double& height)
{
    std::vector<LegendEntry> entries;
    double x = 0, y = 0, rowHeight = 0;
    for (const ChartSeries& s : model.series) {
        if (!s.inLegend || s.name.isEmpty()) continue;
        const double textWidth = std::min(metrics.horizontalAdvance(s.name) + 1, width - kSwatch - 2 * kPad);
        const QRectF text = wrapped(metrics, textWidth, s.name);
        const QSizeF size(kSwatch + kPad + text.width() + 1, std::max(metrics.height(), text.height()));
        if (x > 0 && x + size.width() > width) {
            x = 0;
            y += rowHeight + 2;
            rowHeight = 0;
        }
        entries.push_back({&s, QRectF(QPointF(x, y), size)});
        x += size.width() + 2 * kPad;
        rowHeight = std::max(rowHeight, size.height());
    }
    // Centre each row.
    for (std::size_t i = 0; i < entries.size();) {
        std::size_t j = i;
        while (j < entries.size() && entries[j].rect.top() == entries[i].rect.top()) ++j;
        const double used = entries[j - 1].rect.right() - entries[i].rect.left();
        for (std::size_t k = i; k < j; ++k) entries[k].rect.translate(std::max(0.0, (width - used) / 2), 0);
        i = j;
    }
    height = entries.empty() ? 0 : y + rowHeight;
    return entries;
}

void paintMarker(QPainter& painter, const QPointF& centre, const ChartSeries& s, double size)
{
    const QRectF box(centre.x() - size / 2, centre.y() - size / 2, size, size);
    switch (s.marker) {
    case ChartSeries::Marker::Circle:
        painter.setPen(QPen(s.color.darker(130), 1));
        painter.setBrush(s.color);
        painter.drawEllipse(box);
        break;
    case ChartSeries::Marker::Square:
        painter.setPen(QPen(s.color.darker(130), 1));
        painter.setBrush(s.color);
        painter.drawRect(box);
        break;
    case ChartSeries::Marker::Ring:
        painter.setPen(QPen(s.color, 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawEllipse(box);
        break;
    }
}

void paintLegend(QPainter& painter, const std::vector<LegendEntry>& entries, const QPointF& origin,
                 const QFontMetricsF& metrics, const ChartColors& colors)
{
    for (const LegendEntry& e : entries) {
        const QRectF r = e.rect.translated(origin);
        const QRectF swatch(r.left(), r.top() + (metrics.height() - kSwatch) / 2, kSwatch, kSwatch);
        const ChartSeries& s = *e.series;
        if (s.kind == ChartSeries::Kind::Bars) {
            painter.fillRect(swatch, s.color);
        } else if (s.kind == ChartSeries::Kind::Line) {
            painter.setPen(QPen(s.color, 2, s.lineStyle));
            painter.drawLine(QPointF(swatch.left(), swatch.center().y()), QPointF(swatch.right(), swatch.center().y()));
        } else {
            paintMarker(painter, swatch.center(), s, std::min(s.markerSize, kSwatch));
        }
        painter.setPen(colors.text);
        painter.drawText(QRectF(swatch.right() + kPad, r.top(), r.width() - kSwatch - kPad + 1, r.height()),
                         kWrap | Qt::AlignLeft | Qt::AlignTop, s.name);
    }
}

// The bar axis maximum grown so that every value label fits beyond its bar.
double barMaximum(const ChartModel& model, double pixels, double labelPixels)
{
    const ChartAxis& axis = model.horizontalBars ? model.x : model.y;
    double largest = 0;
    for (const ChartSeries& s : model.series)
        for (double v : s.values) largest = std::max(largest, v);
    double maximum = std::max(axis.maximum, largest);
    if (model.barValueLabels && pixels > labelPixels + 10) maximum = std::max(maximum, largest * pixels / (pixels - labelPixels));
    const std::vector<double> ticks = niceTicks(0, maximum, 6);
    if (!ticks.empty() && ticks.back() < maximum) {
        const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : maximum;
        maximum = ticks.back() + step;
    }
    return maximum;
}

QString barLabel(double value, const QFontMetricsF& metrics, double room)
{
    const QString exact = std::abs(value - std::round(value)) < 1e-9 && std::abs(value) < 1e15
                              ? groupedInteger(std::llround(value))
                              : readableNumber(value);
    return metrics.horizontalAdvance(exact) <= room ? exact : readableNumber(value);
}

}  // namespace

void paintChart(QPainter& painter, const QRectF& target, const ChartModel& model, const ChartColors& colors)
{
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QFontMetricsF metrics(painter.font(), painter.device());
    const QFont baseFont = painter.font();
    const QFont boldFont = figureTitleFont(baseFont);
    const QFontMetricsF boldMetrics(boldFont, painter.device());
    const double line = metrics.height();
    QColor gridColor = colors.text;
    gridColor.setAlpha(45);
    QColor axisColor = colors.text;
    axisColor.setAlpha(170);

    // Title and legend first: the plot gets what is left.
    const QRectF titleBox = model.title.isEmpty() ? QRectF() : wrapped(boldMetrics, target.width(), model.title);
    double legendHeight = 0;
    const std::vector<LegendEntry> legend = layoutLegend(model, metrics, target.width(), legendHeight);
    QRectF area = target.adjusted(0, titleBox.height() + (titleBox.isNull() ? 0 : kPad), 0,
                                  -(legendHeight + (legend.empty() ? 0 : kPad)));

    const bool bars = model.isBarChart();
    ChartAxis xAxis = model.x, yAxis = model.y;
    const ChartAxis& valueAxis = model.horizontalBars ? xAxis : yAxis;
    const double labelWidthGuess = metrics.horizontalAdvance(QStringLiteral("12,582,912")) + kPad;

    // Left margin: the y ticks (or category names) and the y title.
    const double yTitleWidth = yAxis.title.isEmpty() ? 0 : line + kPad;
    double leftMargin = yTitleWidth;
    double categoryWidth = 0;
    if (bars && model.horizontalBars) {
        for (const QString& c : model.categories) categoryWidth = std::max(categoryWidth, metrics.horizontalAdvance(c) + 1);
        categoryWidth = std::min(categoryWidth, area.width() * 0.38);
        leftMargin += categoryWidth + kPad;
    } else {
        const double plotHeightGuess = area.height() - 3 * line;
        if (bars) yAxis.maximum = barMaximum(model, plotHeightGuess, line + 2);
        double widest = 0;
        const AxisScale guess(yAxis, 0, 1);
        for (double t : guess.ticks(std::max(2, static_cast<int>(plotHeightGuess / (2.5 * line)))))
            widest = std::max(widest, metrics.horizontalAdvance(guess.label(t)));
        leftMargin += widest + kTick + kPad;
    }
    // Half the last tick's label beyond the plot's right edge.
    const double rightMargin = kPad + metrics.horizontalAdvance(QStringLiteral("100.0k")) / 2;
    const double plotWidth = std::max(20.0, area.width() - leftMargin - rightMargin);

    // Bottom margin: x ticks (or wrapped category names) and the x title.
    double bottomMargin = kTick + line + kPad;
    if (bars && !model.horizontalBars) {
        const double group = plotWidth / std::max<qsizetype>(1, model.categories.size());
        double tallest = line;
        for (const QString& c : model.categories) tallest = std::max(tallest, wrapped(metrics, group - kPad, c).height());
        bottomMargin = kTick + tallest + kPad;
    }
    if (!xAxis.title.isEmpty()) bottomMargin += line + kPad;
    const QRectF plot(area.left() + leftMargin, area.top() + line / 2, plotWidth,
                      std::max(20.0, area.height() - bottomMargin - line / 2));
    if (bars && model.horizontalBars) xAxis.maximum = barMaximum(model, plot.width(), labelWidthGuess);
    (void)valueAxis;

    const AxisScale xs(xAxis, plot.left(), plot.right());
    const AxisScale ys(yAxis, plot.bottom(), plot.top());

    // Grid and value ticks.
    painter.setFont(baseFont);
    const auto drawYTicks = [&] {
        double lastTop = 1e300;
        for (double t : ys.ticks(std::max(2, static_cast<int>(plot.height() / (2.5 * line))))) {
            const double y = ys.map(t);
            painter.setPen(QPen(gridColor, 1));
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
            if (y + line / 2 > lastTop) continue;  // would overlap the label drawn below it
            painter.setPen(colors.text);
            painter.drawText(QRectF(area.left() + yTitleWidth, y - line / 2, leftMargin - yTitleWidth - kTick - 2, line),
                             Qt::AlignRight | Qt::AlignVCenter, ys.label(t));
            lastTop = y - line / 2;
        }
    };
    const auto drawXTicks = [&] {
        double lastRight = -1e300;
        const int count = std::max(2, static_cast<int>(plot.width() / (metrics.horizontalAdvance(QStringLiteral("000.0k")) * 1.6)));
        for (double t : xs.ticks(count)) {
            const double x = xs.map(t);
            painter.setPen(QPen(gridColor, 1));
            painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
            const QString text = xs.label(t);
            const double w = metrics.horizontalAdvance(text);
            if (x - w / 2 < lastRight + kPad) continue;
            painter.setPen(colors.text);
            painter.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + kTick));
            painter.drawText(QRectF(x - w / 2 - 1, plot.bottom() + kTick, w + 2, line), Qt::AlignCenter, text);
            lastRight = x + w / 2;
        }
    };
    if (!bars || !model.horizontalBars) drawYTicks();
    if (!bars || model.horizontalBars) drawXTicks();

    // Bars.
    std::vector<const ChartSeries*> barSeries;
    for (const ChartSeries& s : model.series)
        if (s.kind == ChartSeries::Kind::Bars) barSeries.push_back(&s);
    const qsizetype categories = model.categories.size();
    if (bars && categories > 0 && !barSeries.empty()) {
        const double along = model.horizontalBars ? plot.height() : plot.width();
        const double group = along / categories;
        const double barThickness = group * 0.8 / static_cast<double>(barSeries.size());
        for (qsizetype c = 0; c < categories; ++c) {
            // Vertical: left to right. Horizontal: the first category at the bottom.
            const double groupStart = model.horizontalBars ? plot.bottom() - (c + 1) * group : plot.left() + c * group;
            for (std::size_t b = 0; b < barSeries.size(); ++b) {
                const ChartSeries& s = *barSeries[b];
                if (c >= static_cast<qsizetype>(s.values.size())) continue;
                const double v = s.values[static_cast<std::size_t>(c)];
                const double offset = group * 0.1 + b * barThickness;
                QRectF bar;
                if (model.horizontalBars) {
                    // Series top to bottom within the group, in legend order.
                    const double top = groupStart + group * 0.1 + b * barThickness;
                    bar = QRectF(QPointF(plot.left(), top), QPointF(xs.map(v), top + barThickness));
                } else {
                    bar = QRectF(QPointF(groupStart + offset, ys.map(v)), QPointF(groupStart + offset + barThickness, plot.bottom()));
                }
                painter.fillRect(bar, s.color);
                if (!model.barValueLabels) continue;
                painter.setPen(colors.text);
                if (model.horizontalBars) {
                    const QString text = barLabel(v, metrics, plot.right() - bar.right() - kPad);
                    painter.drawText(QRectF(bar.right() + 3, bar.center().y() - line / 2, metrics.horizontalAdvance(text) + 2, line),
                                     Qt::AlignLeft | Qt::AlignVCenter, text);
                } else {
                    const QString text = barLabel(v, metrics, group / static_cast<double>(barSeries.size()) + kPad);
                    const double w = metrics.horizontalAdvance(text);
                    painter.drawText(QRectF(bar.center().x() - w / 2 - 1, bar.top() - line - 1, w + 2, line),
                                     Qt::AlignCenter, text);
                }
            }
            // The category's name.
            painter.setPen(colors.text);
            const QString& name = model.categories[c];
            if (model.horizontalBars) {
                const QRectF box(area.left() + yTitleWidth, groupStart, categoryWidth, group);
                const QRectF text = wrapped(metrics, categoryWidth, name);
                painter.drawText(QRectF(box.left(), box.center().y() - text.height() / 2, categoryWidth, text.height()),
                                 kWrap | Qt::AlignRight | Qt::AlignVCenter, name);
            } else {
                const QRectF text = wrapped(metrics, group - kPad, name);
                painter.drawText(QRectF(groupStart + kPad / 2, plot.bottom() + kTick, group - kPad, text.height()),
                                 kWrap | Qt::AlignHCenter | Qt::AlignTop, name);
            }
        }
    }

    // Lines and points, clipped to the plot.
    painter.save();
    painter.setClipRect(plot.adjusted(-8, -8, 8, 8));
    for (const ChartSeries& s : model.series) {
        if (s.kind == ChartSeries::Kind::Bars || s.points.empty()) continue;
        if (s.kind == ChartSeries::Kind::Line) {
            QPainterPath path;
            for (std::size_t i = 0; i < s.points.size(); ++i) {
                const QPointF p(xs.map(s.points[i].x()), ys.map(s.points[i].y()));
                if (i == 0) path.moveTo(p);
                else path.lineTo(p);
            }
            painter.setPen(QPen(s.color, 2, s.lineStyle));
            painter.setBrush(Qt::NoBrush);
            painter.drawPath(path);
            if (!s.lineMarkers) continue;
            painter.setPen(Qt::NoPen);
            painter.setBrush(s.color);
            for (const QPointF& p : s.points) painter.drawEllipse(QPointF(xs.map(p.x()), ys.map(p.y())), 2.5, 2.5);
        } else {
            for (const QPointF& p : s.points) paintMarker(painter, QPointF(xs.map(p.x()), ys.map(p.y())), s, s.markerSize);
        }
    }
    painter.restore();

    // Axes lines and titles.
    painter.setPen(QPen(axisColor, 1));
    painter.setBrush(Qt::NoBrush);
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    painter.drawLine(plot.bottomLeft(), plot.topLeft());
    painter.setPen(colors.text);
    if (!xAxis.title.isEmpty())
        painter.drawText(QRectF(plot.left(), area.bottom() - line, plot.width(), line), Qt::AlignCenter, xAxis.title);
    if (!yAxis.title.isEmpty()) {
        painter.save();
        painter.translate(area.left() + line / 2, plot.center().y());
        painter.rotate(-90);
        const double length = std::max(plot.height(), metrics.horizontalAdvance(yAxis.title) + 2);
        painter.drawText(QRectF(-length / 2, -line / 2, length, line), Qt::AlignCenter, yAxis.title);
        painter.restore();
    }

    // Title and legend.
    if (!titleBox.isNull()) {
        painter.setFont(boldFont);
        painter.drawText(QRectF(target.left(), target.top(), target.width(), titleBox.height()),
                         kWrap | Qt::AlignHCenter | Qt::AlignTop, model.title);
        painter.setFont(baseFont);
    }
    paintLegend(painter, legend, QPointF(target.left(), target.bottom() - legendHeight), metrics, colors);
    painter.restore();
}

}  // namespace qkv::ui
