#include "ui/heads/long_row_strip.hpp"

#include <QObject>
#include <QPainter>
#include <QPen>
#include <QPolygonF>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/analysis/span_row.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"

namespace qkv::ui {
namespace {

constexpr double kPad = 4.0;
constexpr double kTick = 4.0;
constexpr double kTickSpacing = 80.0;  // at least this many logical pixels between position ticks
constexpr int kTokenChars = 12;        // a legend's token is elided past this many characters
constexpr double kNarrowStrip = 480;   // narrower, the legend leaves the weights to the tooltips

// Device pixels per logical unit along x (a PNG at 192 dpi has twice the pixels to reduce to).
double deviceScaleX(const QPainter& painter)
{
    const QTransform t = painter.deviceTransform();
    return std::max(1e-6, std::hypot(t.m11(), t.m12()));
}

// 1, 2 or 5 x 10^k, the smallest at least `value` (>= 1: positions are whole).
qkv::Index niceStep(double value)
{
    qkv::Index step = 1;
    for (;;) {
        for (qkv::Index factor : {1, 2, 5})
            if (static_cast<double>(step * factor) >= value) return step * factor;
        step *= 10;
    }
}

QString elidedToken(const QString& token)
{
    return token.size() > kTokenChars ? token.left(kTokenChars - 1) + QStringLiteral("…") : token;
}

// The y axis ends on a round number above the largest weight (1 for an all-zero row).
double weightAxisTop(const RowStrip& strip)
{
    const float largest = strip.top.empty() ? 0.0f : strip.top.front().weight;
    return largest > 0 ? niceCeiling(largest) : 1.0;
}

// A span's maxima have their own axis at the right: over tens of thousands of keys a span's
// largest weights are many times its mean row, which would be a flat line on their scale.
double maximaAxisTop(const RowStrip& strip)
{
    float largest = 0;
    for (const float m : strip.maxima) largest = std::max(largest, m);
    return largest > 0 ? niceCeiling(largest) : 1.0;
}

}  // namespace

qkv::Expected<RowStrip> computeRowStrip(const qkv::Result& result, int head, qkv::Index query,
                                        qkv::Index queryEnd)
{
    const qkv::Expected<qkv::SpanRow> span = qkv::spanAttentionRow(result, head, query, queryEnd);
    if (!span) return qkv::Error{span.error()};
    RowStrip strip;
    strip.head = head;
    strip.query = query;
    strip.queryEnd = queryEnd;
    strip.queryToken = tokenText(result.queryLabels, query);
    strip.weights.assign(span->mean.begin(), span->mean.end());
    if (span->size() > 1) strip.maxima = span->maximum;
    strip.maskedRuns = qkv::hiddenKeyRuns(span->visible);  // runs of keys no query of the span sees
    strip.top = topKeys(strip.weights, kTopKeys);
    for (const KeyWeight& key : strip.top) strip.topTokens << tokenText(result.keyLabels, key.key);
    return strip;
}

QString rowStripTitle(const RowStrip& strip)
{
    if (strip.queryEnd - strip.query > 1)
        return QObject::tr("%1 · queries %2–%3 (%4 together): their mean row, and each key's largest weight (line), "
                           "exact (%5 keys)")
            .arg(headName(strip.head), groupedInteger(strip.query), groupedInteger(strip.queryEnd - 1),
                 groupedInteger(strip.queryEnd - strip.query), groupedInteger(strip.keyCount()));
    return QObject::tr("%1 · query %2 “%3”: its whole row, exact (%4 keys)")
        .arg(headName(strip.head), groupedInteger(strip.query), elidedToken(strip.queryToken),
             groupedInteger(strip.keyCount()));
}

QString rowStripToolTip(const RowStrip& strip, const std::vector<std::string>& keyLabels, qkv::Index key,
                        qkv::Index first, qkv::Index end)
{
    if (key < 0 || key >= strip.keyCount()) return {};
    const bool masked = std::any_of(strip.maskedRuns.begin(), strip.maskedRuns.end(),
                                    [&](const auto& run) { return key >= run.first && key < run.second; });
    const std::size_t at = static_cast<std::size_t>(key);
    QString text = strip.maxima.empty()
                       ? QObject::tr("key %1 “%2”: weight %3 (exact)")
                             .arg(groupedInteger(key), tokenText(keyLabels, key), preciseNumber(strip.weights[at]))
                       : QObject::tr("key %1 “%2”: mean weight %3 over the span, largest %4 (exact)")
                             .arg(groupedInteger(key), tokenText(keyLabels, key), preciseNumber(strip.weights[at]),
                                  preciseNumber(strip.maxima[at]));
    if (masked) text += QObject::tr(", masked");
    if (end - first > 1)
        text += QObject::tr("\nthe largest of keys %1–%2, which share this pixel")
                    .arg(groupedInteger(first), groupedInteger(end - 1));
    return text;
}

RowStripLayout::RowStripLayout(const QRectF& target, const RowStrip& strip, const QFontMetricsF& metrics)
    : keys_(strip.keyCount())
{
    const double line = metrics.height();
    title_ = QRectF(target.left(), target.top(), target.width(), line + kPad);
    // The legend: a column at the right, "Top keys" then one line per top key.
    // A narrow strip (1000 x 700) names the keys only; their weights are in the tooltips.
    const bool withWeights = target.width() >= kNarrowStrip;
    for (std::size_t i = 0; i < strip.top.size(); ++i) {
        const QString key = QObject::tr("%1  “%2” %3")
                                .arg(static_cast<int>(i) + 1)
                                .arg(elidedToken(strip.topTokens.value(static_cast<int>(i))),
                                     groupedInteger(strip.top[i].key));
        texts_ << (withWeights ? QObject::tr("%1: %2").arg(key, readableNumber(strip.top[i].weight)) : key);
    }
    double legendWidth = metrics.horizontalAdvance(QObject::tr("Top keys"));
    for (const QString& text : texts_) legendWidth = std::max(legendWidth, metrics.horizontalAdvance(text));
    legendWidth = std::min(legendWidth + 2 * kPad, target.width() * 0.45);
    const double top = title_.bottom() + line;  // room for the top keys' marks above their bars
    legend_ = QRectF(target.right() - legendWidth, top, legendWidth, static_cast<double>(texts_.size() + 1) * line);
    for (qsizetype i = 0; i < texts_.size(); ++i)
        entries_.emplace_back(legend_.left(), legend_.top() + static_cast<double>(i + 1) * line, legendWidth, line);

    // Tick labels as wide as the ones drawn ("2.5×10⁻⁴" is wider than "0.005").
    const auto widestTick = [&](double top) {
        return std::max({metrics.horizontalAdvance(readableNumber(top)), metrics.horizontalAdvance(readableNumber(top / 2)),
                         metrics.horizontalAdvance(QStringLiteral("0.00"))}) + kPad;
    };
    const double tickLabels = widestTick(weightAxisTop(strip));
    const double left = target.left() + line + kPad + tickLabels + kTick;
    // A span's maxima axis at the right: its tick labels and its title.
    const double maximaAxis = strip.maxima.empty() ? 0.0 : kTick + widestTick(maximaAxisTop(strip)) + line + kPad;
    const double right =
        legend_.left() - 2 * kPad - std::max(metrics.horizontalAdvance(QStringLiteral("00,000")) / 2, maximaAxis);
    const double bottom = target.bottom() - kTick - 2 * line - kPad;
    plot_ = QRectF(QPointF(left, top), QPointF(std::max(left, right), std::max(top, bottom)));
}

double RowStripLayout::xOfKey(qkv::Index key) const
{
    return keys_ > 0 ? plot_.left() + plot_.width() * static_cast<double>(key) / static_cast<double>(keys_)
                     : plot_.left();
}

qkv::Index RowStripLayout::keyAt(double x) const
{
    if (keys_ == 0 || x < plot_.left() || x >= plot_.right()) return -1;
    const auto key = static_cast<qkv::Index>((x - plot_.left()) / plot_.width() * static_cast<double>(keys_));
    return std::clamp<qkv::Index>(key, 0, keys_ - 1);
}

double RowStripLayout::xOfBin(qkv::Index bin, qkv::Index bins) const
{
    return plot_.left() + plot_.width() * static_cast<double>(bin) / static_cast<double>(std::max<qkv::Index>(bins, 1));
}

qkv::Index RowStripLayout::binAt(double x, qkv::Index bins) const
{
    const auto bin = static_cast<qkv::Index>(std::floor((x - plot_.left()) / plot_.width() * static_cast<double>(bins)));
    return std::clamp<qkv::Index>(bin, 0, std::max<qkv::Index>(bins - 1, 0));
}

int RowStripLayout::legendEntryAt(const QPointF& point) const
{
    for (std::size_t i = 0; i < entries_.size(); ++i)
        if (entries_[i].contains(point)) return static_cast<int>(i);
    return -1;
}

namespace {

void paintAxes(QPainter& painter, const RowStripLayout& layout, const RowStrip& strip, double top,
               const RowStripStyle& style)
{
    const QRectF plot = layout.plotRect();
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double line = metrics.height();
    painter.setPen(QPen(style.text, 1));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    painter.drawLine(plot.bottomLeft(), plot.topLeft());
    for (double fraction : {0.0, 0.5, 1.0}) {  // weight ticks
        const double y = plot.bottom() - fraction * plot.height();
        painter.drawLine(QPointF(plot.left() - kTick, y), QPointF(plot.left(), y));
        painter.drawText(QRectF(plot.left() - kTick - 100 - kPad, y - line / 2, 100, line),
                         Qt::AlignRight | Qt::AlignVCenter, readableNumber(fraction * top));
    }
    const qkv::Index n_k = strip.keyCount();
    const qkv::Index step = niceStep(kTickSpacing * static_cast<double>(n_k) / std::max(1.0, plot.width()));
    for (qkv::Index key = 0; key < n_k; key += step) {  // position ticks, at the keys' centres
        const double x = (layout.xOfKey(key) + layout.xOfKey(key + 1)) / 2;
        painter.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + kTick));
        painter.drawText(QRectF(x - kTickSpacing / 2, plot.bottom() + kTick, kTickSpacing, line), Qt::AlignCenter,
                         groupedInteger(key));
    }
    const QRectF xTitle(plot.left(), plot.bottom() + kTick + line, plot.width(), line + kPad);
    const QString xTitleText = QObject::tr("keys (positions 0 … %1)").arg(groupedInteger(n_k - 1));
    painter.drawText(xTitle, Qt::AlignCenter,
                     metrics.horizontalAdvance(xTitleText) <= xTitle.width() ? xTitleText : QObject::tr("keys"));
    painter.save();  // the y title, rotated, at the far left
    painter.translate(layout.titleRect().left() + line / 2, plot.center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-plot.height(), -line / 2, 2 * plot.height(), line), Qt::AlignCenter,
                     strip.maxima.empty() ? QObject::tr("attention weight") : QObject::tr("mean weight (bars)"));
    painter.restore();
}

// The right axis of a span's maxima line: ticks and its title, rotated, in the line's colour.
void paintMaximaAxis(QPainter& painter, const RowStripLayout& layout, double top, const RowStripStyle& style)
{
    const QRectF plot = layout.plotRect();
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double line = metrics.height();
    painter.setPen(QPen(style.maxima, 1));
    painter.drawLine(plot.bottomRight(), plot.topRight());
    for (double fraction : {0.0, 0.5, 1.0}) {
        const double y = plot.bottom() - fraction * plot.height();
        painter.drawLine(QPointF(plot.right(), y), QPointF(plot.right() + kTick, y));
        painter.drawText(QRectF(plot.right() + kTick + kPad / 2, y - line / 2, 100, line), Qt::AlignLeft | Qt::AlignVCenter,
                         readableNumber(fraction * top));
    }
    painter.save();
    const double widest = std::max(metrics.horizontalAdvance(readableNumber(top)),
                                   metrics.horizontalAdvance(readableNumber(top / 2)));
    const double x = plot.right() + kTick + kPad + widest + line / 2;
    painter.translate(x, plot.center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-plot.height(), -line / 2, 2 * plot.height(), line), Qt::AlignCenter,
                     QObject::tr("largest weight (line)"));
    painter.restore();
}

void paintMaskedRuns(QPainter& painter, const RowStripLayout& layout, const RowStrip& strip, const RowStripStyle& style)
{
    const QRectF plot = layout.plotRect();
    const QFontMetricsF metrics(painter.font(), painter.device());
    for (const auto& [first, end] : strip.maskedRuns) {
        const QRectF run(QPointF(layout.xOfKey(first), plot.top()), QPointF(layout.xOfKey(end), plot.bottom()));
        painter.fillRect(run, QColor(0xe8, 0xe8, 0xe8));
        const QString text = QObject::tr("masked");
        if (run.width() > metrics.horizontalAdvance(text) + 2 * kPad) {
            painter.setPen(style.text.lighter(250));
            painter.drawText(run, Qt::AlignCenter, text);
        }
    }
}

// The top keys' ranks over their bars; keys closer than a label's width share one label ("1·3").
void paintTopMarks(QPainter& painter, const RowStripLayout& layout, const RowStrip& strip, double top,
                   const RowStripStyle& style)
{
    const QRectF plot = layout.plotRect();
    const QFontMetricsF metrics(painter.font(), painter.device());
    std::vector<std::size_t> order(strip.top.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    auto centre = [&](std::size_t i) { return (layout.xOfKey(strip.top[i].key) + layout.xOfKey(strip.top[i].key + 1)) / 2; };
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return strip.top[a].key < strip.top[b].key; });
    const double apart = metrics.horizontalAdvance(QStringLiteral("0·0")) + kPad;
    painter.setPen(style.topBars);
    for (std::size_t i = 0; i < order.size();) {
        std::size_t end = i + 1;
        while (end < order.size() && centre(order[end]) - centre(order[i]) < apart) ++end;
        QStringList ranks;
        float highest = 0;
        for (std::size_t j = i; j < end; ++j) {
            ranks << QString::number(order[j] + 1);
            highest = std::max(highest, strip.top[order[j]].weight);
        }
        std::sort(ranks.begin(), ranks.end());
        const double x = (centre(order[i]) + centre(order[end - 1])) / 2;
        const double y = plot.bottom() - highest / top * plot.height();
        const QString label = ranks.join(QStringLiteral("·"));  // not ",", which reads as 1,2 = twelve
        const double width = metrics.horizontalAdvance(label) + 2;
        painter.drawText(QRectF(x - width / 2, y - metrics.height() - 1, width, metrics.height()), Qt::AlignCenter, label);
        i = end;
    }
}

}  // namespace

void paintRowStrip(QPainter& painter, const QRectF& target, const RowStrip& strip, const RowStripStyle& style)
{
    painter.save();
    const QFontMetricsF metrics(painter.font(), painter.device());
    const RowStripLayout layout(target, strip, metrics);
    const QRectF plot = layout.plotRect();
    const double top = weightAxisTop(strip);
    painter.setPen(style.text);
    painter.drawText(layout.titleRect(), Qt::AlignLeft | Qt::AlignVCenter,
                     metrics.elidedText(rowStripTitle(strip), Qt::ElideRight, layout.titleRect().width()));
    paintMaskedRuns(painter, layout, strip, style);

    // Bars: each device pixel the largest weight of its keys; the top keys again in their colour,
    // at least a pixel wide, so a single key among 32,768 is seen and found.
    const double pixel = 1.0 / deviceScaleX(painter);
    const PixelMaxima bins = maxPerPixel(strip.weights, static_cast<qkv::Index>(std::lround(plot.width() / pixel)));
    const auto binCount = static_cast<qkv::Index>(bins.maxima.size());
    // Bin b is column b of the plot, exactly (RowStripLayout::binAt finds it under the mouse).
    auto bar = [&](qkv::Index bin, float weight) {
        const double height = weight / top * plot.height();
        const double left = layout.xOfBin(bin, binCount);
        return QRectF(left, plot.bottom() - height, layout.xOfBin(bin + 1, binCount) - left, height);
    };
    for (qkv::Index b = 0; b < binCount; ++b) painter.fillRect(bar(b, bins.maxima[static_cast<std::size_t>(b)]), style.bars);
    for (const KeyWeight& key : strip.top) painter.fillRect(bar(qkv::blockOfPosition(bins.edges, key.key), key.weight), style.topBars);
    if (!strip.maxima.empty()) {
        // A span: each pixel's largest weight any of its queries puts on its keys, as a line.
        const PixelMaxima peaks = maxPerPixel(strip.maxima, binCount);
        const double peakTop = maximaAxisTop(strip);
        QPolygonF line;
        for (qkv::Index b = 0; b < binCount; ++b) {
            const double y = plot.bottom() - peaks.maxima[static_cast<std::size_t>(b)] / peakTop * plot.height();
            line << QPointF(layout.xOfBin(b, binCount), y) << QPointF(layout.xOfBin(b + 1, binCount), y);
        }
        painter.setPen(QPen(style.maxima, 1.2));
        painter.drawPolyline(line);
    }
    if (style.selectedKey >= 0 && style.selectedKey < strip.keyCount()) {
        const double x = (layout.xOfKey(style.selectedKey) + layout.xOfKey(style.selectedKey + 1)) / 2;
        painter.setPen(QPen(style.highlight, 1.5, Qt::DashLine));
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }
    paintTopMarks(painter, layout, strip, top, style);
    paintAxes(painter, layout, strip, top, style);
    if (!strip.maxima.empty()) paintMaximaAxis(painter, layout, maximaAxisTop(strip), style);

    painter.setPen(style.text);
    const QRectF legend = layout.legendRect();
    painter.drawText(QRectF(legend.left() + kPad, legend.top(), legend.width() - kPad, metrics.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, QObject::tr("Top keys"));
    for (std::size_t i = 0; i < layout.legendEntries().size(); ++i) {
        const bool selected = strip.top[i].key == style.selectedKey;
        painter.setPen(selected ? style.highlight.darker(130) : style.topBars.darker(120));
        const QRectF entry = layout.legendEntries()[i].adjusted(kPad, 0, 0, 0);
        painter.drawText(entry, Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(layout.legendTexts()[static_cast<int>(i)], Qt::ElideRight, entry.width()));
    }
    painter.restore();
}

}  // namespace qkv::ui
