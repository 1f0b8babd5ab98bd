#include "ui/render/chart_axes.hpp"

#include <QCategoryAxis>

#include <algorithm>
#include <cmath>

#include "ui/figures/number_format.hpp"
#include "ui/render/color_legend.hpp"

namespace qkv::ui {
namespace {

// A logarithmic axis names its ticks as powers of ten when the range goes beyond what decimals
// read well ("10⁻¹²"), else as readable numbers ("1,000", "0.01").
bool powersOfTen(const ChartAxis& axis, double low, double high)
{
    return axis.logarithmic && axis.ticks.empty() && (low < -2.5 || high > 9.5);
}

QString tickLabel(const ChartAxis& axis, double position, bool powers)
{
    if (!axis.logarithmic) return readableNumber(position);
    const int exponent = static_cast<int>(std::lround(position));
    return powers && std::abs(position - exponent) < 1e-9 ? powerOfTen(exponent)
                                                          : readableNumber(std::pow(10.0, position));
}

}  // namespace

double plotValue(const ChartAxis& axis, double value)
{
    if (!axis.logarithmic) return value;
    const double floor = std::log10(std::max(axis.minimum, 1e-300));
    return value > 0 ? std::log10(value) : floor;
}

double dataValue(const ChartAxis& axis, double plotted) { return axis.logarithmic ? std::pow(10.0, plotted) : plotted; }

AxisTicks readableTicks(const ChartAxis& axis, double low, double high, int count)
{
    AxisTicks out;
    std::vector<double> positions;
    constexpr double kSlack = 1e-9;
    if (!axis.ticks.empty()) {
        for (double t : axis.ticks) {
            const double p = plotValue(axis, t);
            if (p >= low - kSlack * std::max(1.0, std::abs(low)) && p <= high + kSlack * std::max(1.0, std::abs(high)))
                positions.push_back(p);
        }
    } else if (!axis.logarithmic) {
        positions = niceTicks(low, high, std::max(count, 2));
    } else {
        const int first = static_cast<int>(std::ceil(low - kSlack)), last = static_cast<int>(std::floor(high + kSlack));
        const int step =
            std::max(1, static_cast<int>(std::ceil((last - first + 1) / static_cast<double>(std::max(count, 2)))));
        for (int e = first; e <= last; e += step) positions.push_back(e);
        if (positions.size() < 2) positions = niceTicks(low, high, std::max(count, 2));  // less than a decade
    }
    std::sort(positions.begin(), positions.end());
    const bool powers = powersOfTen(axis, low, high);
    for (double p : positions) {
        const QString label = tickLabel(axis, p, powers);
        if (out.labels.contains(label)) continue;  // a category axis needs distinct labels
        out.positions.push_back(p);
        out.labels << label;
    }
    return out;
}

void setAxisTicks(QCategoryAxis* axis, const AxisTicks& ticks)
{
    const double low = axis->min(), high = axis->max();
    for (const QString& label : axis->categoriesLabels()) axis->remove(label);
    axis->setStartValue(low);
    for (std::size_t i = 0; i < ticks.positions.size(); ++i)
        axis->append(ticks.labels[static_cast<qsizetype>(i)], ticks.positions[i]);
    axis->setRange(low, high);
}

}  // namespace qkv::ui
