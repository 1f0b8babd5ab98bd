#pragma once
// Readable ticks for Qt Charts (figure.hpp: "2,048" or "22.5k", never "2.25e+04"). Qt's value
// and log axes format their labels with printf patterns, which cannot group thousands or write
// "10⁻¹⁶"; so every value axis is a QCategoryAxis whose labels sit on their values, written by
// readableNumber / powerOfTen (number_format.hpp). A logarithmic axis plots log10 of the data
// on such a linear axis (plotValue), its labels still naming the data's values.

#include <QString>
#include <QStringList>

#include <vector>

#include "ui/render/chart_model.hpp"

class QCategoryAxis;

namespace qkv::ui {

// Where a data value goes on the axis: itself, or log10 of it on a logarithmic axis (values
// <= 0 go to the axis minimum).
double plotValue(const ChartAxis& axis, double value);
// The inverse, for tooltips.
double dataValue(const ChartAxis& axis, double plotted);

struct AxisTicks {
    std::vector<double> positions;  // in plot units (plotValue), ascending
    QStringList labels;             // one per position
};

// About `count` ticks over the plot range [low, high]: the axis's own ticks when it names
// them, else round numbers (linear) or powers of ten (logarithmic).
AxisTicks readableTicks(const ChartAxis& axis, double low, double high, int count);

// Drops ticks whose labels would overlap: `pixelsPerUnit` maps plot units to pixels and
// `labelExtent` measures a label along the axis (its width, or its height on a vertical axis).
template <typename Extent>
AxisTicks thinnedTicks(const AxisTicks& ticks, double pixelsPerUnit, double gap, Extent labelExtent)
{
    AxisTicks out;
    double lastEnd = -1e300;
    for (std::size_t i = 0; i < ticks.positions.size(); ++i) {
        const double centre = ticks.positions[i] * pixelsPerUnit;
        const double half = labelExtent(ticks.labels[static_cast<qsizetype>(i)]) / 2;
        if (centre - half < lastEnd + gap) continue;
        out.positions.push_back(ticks.positions[i]);
        out.labels << ticks.labels[static_cast<qsizetype>(i)];
        lastEnd = centre + half;
    }
    return out;
}

// Replaces `axis`'s labels by `ticks` (labels on their values), keeping its range.
void setAxisTicks(QCategoryAxis* axis, const AxisTicks& ticks);

}  // namespace qkv::ui
