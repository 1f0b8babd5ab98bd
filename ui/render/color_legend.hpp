#pragma once
// The colour bar of every heatmap figure: the quantity and its range in words, the gradient,
// and round ticks a person reads (number_format.hpp).

#include <QFontMetricsF>
#include <QRectF>
#include <QString>

#include <vector>

#include "ui/render/colormap.hpp"

class QPainter;

namespace qkv::ui {

// A colour bar: `label` names the quantity and says how the range was chosen.
struct ColorLegend {
    ColormapName colormap = ColormapName::Viridis;
    double minValue = 0, maxValue = 1;
    QString label;
};

// Horizontal when the target is wider than tall: the label (word-wrapped, never cut) on top,
// the bar, then the ticks. Vertical otherwise: the bar, its ticks on the right and the label
// rotated beside them. Text in the painter's pen colour.
void paintColorLegend(QPainter& painter, const QRectF& target, const ColorLegend& legend);
void paintColorLegend(QPainter& painter, const QRectF& target, ColormapName colormap,
                      double minValue, double maxValue, const QString& label);

// The height a horizontal legend of this width needs (label lines + bar + ticks).
double horizontalLegendHeight(const QFontMetricsF& metrics, double width, const QString& label);
// The width a vertical legend needs (bar, ticks and the rotated label).
double verticalLegendWidth(const QFontMetricsF& metrics, double minValue, double maxValue);
// The same for a range not known yet: `widestTick` is the widest tick text expected ("−0.125").
double verticalLegendWidth(const QFontMetricsF& metrics, const QString& widestTick);

// Round tick values within [minValue, maxValue]: steps of 1, 2, 2.5 or 5 x 10^k giving at most
// `count` ticks, and never fewer than two when the range is not empty.
std::vector<double> niceTicks(double minValue, double maxValue, int count);

// The ticks a colour bar `length` long shows: niceTicks, fewer of them until no two labels
// (readableNumber, measured along the bar with `metrics`: their width on a horizontal bar, their
// height on a vertical one) come closer than a few pixels; if even two overlap, only those that
// keep apart, the lowest first. A short bar never prints "−0.25" over "0".
std::vector<double> legendTicks(double minValue, double maxValue, double length, bool horizontal,
                                const QFontMetricsF& metrics);

}  // namespace qkv::ui
