#pragma once
// A row of vertical bars, one per entry (positive up, negative down from a zero line), with
// value ticks on the left, optional labels under the bars (thinned so they never overlap), an
// optional hollow second series (e.g. q before rotation) and one highlighted bar. Widget-free:
// the step figure paints it for the screen and for export alike, and the view hit-tests with
// barsGeometry().

#include <QColor>
#include <QFontMetricsF>
#include <QRectF>
#include <QStringList>

#include <vector>

class QPainter;

namespace qkv::ui {

struct BarsStyle {
    QColor positive{0x2c, 0x7f, 0xb8}, negative{0xd9, 0x5f, 0x02};
    QColor text = Qt::black;
    QColor highlight = Qt::black;  // the caller's emphasisColor(options)
    int highlighted = -1;          // outlined, its label drawn even when thinned
    bool percent = false;          // values are weights in [0, 1]: ticks in %
    QStringList labels;            // one per bar, under it (rotated), or empty
    std::vector<float> hollow;     // drawn as outlines behind the bars (same count), or empty
    std::vector<bool> hatched;     // bars drawn hatched (masked keys), or empty
    QString axisTitle;             // under the bars (what the bars are indexed by)
};

struct BarsGeometry {
    QRectF plot;    // the bars' area
    QRectF labels;  // under the plot
    QRectF axisTitle;
    double slot = 0;  // width per bar
    int count = 0;
    // The bar under `point` (anywhere in its column, labels included), or -1.
    int barAt(const QPointF& point) const;
};

// The span of a row of bars: it always includes 0 (bars grow from the zero line).
struct BarRange {
    double smallest = 0, largest = 1;
};
BarRange barRange(const std::vector<float>& values, const BarsStyle& style);

// The axis is as wide as the widest tick text of `values`, so no tick is cut at any magnitude.
BarsGeometry barsGeometry(const QRectF& target, const std::vector<float>& values, const BarsStyle& style,
                          const QFontMetricsF& metrics);

// A value tick left of the plot: the ends of the range (2 significant digits, readableNumber:
// never "1e+02") and zero, each inside `target`. No two overlap, however short the plot: the
// largest value's is kept first, then the smallest's, then zero's, each only where it is clear.
struct BarTick {
    QString text;
    QRectF rect;
};
std::vector<BarTick> barTicks(const BarsGeometry& geometry, const BarRange& range, const BarsStyle& style,
                              const QRectF& target, const QFontMetricsF& metrics);

void paintBars(QPainter& painter, const QRectF& target, const std::vector<float>& values, const BarsStyle& style);

}  // namespace qkv::ui
