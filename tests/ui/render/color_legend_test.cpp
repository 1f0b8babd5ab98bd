// The colour bar's ticks: however short the bar, no two tick labels overlap along it.
#include <gtest/gtest.h>

#include <QFont>
#include <QFontMetricsF>
#include <QImage>

#include "ui/figures/number_format.hpp"
#include "ui/render/color_legend.hpp"

using namespace qkv::ui;

namespace {

// The labels' intervals along a bar `length` long, in the order of their values.
std::vector<std::pair<double, double>> labelSpans(const std::vector<double>& ticks, double minValue, double maxValue,
                                                  double length, bool horizontal, const QFontMetricsF& metrics)
{
    std::vector<std::pair<double, double>> spans;
    for (double v : ticks) {
        const double centre = (v - minValue) / (maxValue - minValue) * length;
        const double half = (horizontal ? metrics.horizontalAdvance(readableNumber(v)) : metrics.height()) / 2;
        spans.emplace_back(centre - half, centre + half);
    }
    return spans;
}

}  // namespace

TEST(ColorLegend, TickLabelsNeverOverlapOnAShortBar)
{
    QImage device(10, 10, QImage::Format_ARGB32);
    const QFontMetricsF metrics(QFont(), &device);
    for (const auto& [low, high] : {std::pair{-0.25, 0.25}, {-2201.0, 2201.0}, {0.0, 1.0}, {-3.11, 3.11}})
        for (bool horizontal : {true, false})
            for (double length = 10; length <= 400; length += 7) {
                const std::vector<double> ticks = legendTicks(low, high, length, horizontal, metrics);
                const auto spans = labelSpans(ticks, low, high, length, horizontal, metrics);
                for (std::size_t i = 1; i < spans.size(); ++i)
                    EXPECT_LE(spans[i - 1].second, spans[i].first)
                        << "range " << low << ".." << high << ", length " << length
                        << (horizontal ? " horizontal" : " vertical") << ": " << ticks[i - 1] << " overlaps " << ticks[i];
                EXPECT_FALSE(ticks.empty()) << length;
            }
}

TEST(ColorLegend, ALongBarKeepsSeveralTicks)
{
    QImage device(10, 10, QImage::Format_ARGB32);
    const QFontMetricsF metrics(QFont(), &device);
    // "−0.2ß0.25": three labels of a ±0.25 range in 90 pixels collide; in 400 they do not.
    const std::vector<double> wide = legendTicks(-0.25, 0.25, 400, true, metrics);
    EXPECT_GE(wide.size(), 3u);
    const std::vector<double> tall = legendTicks(-0.25, 0.25, 300, false, metrics);
    EXPECT_GE(tall.size(), 3u);
}
