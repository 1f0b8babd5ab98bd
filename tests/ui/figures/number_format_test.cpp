// Ticks a person reads ("2,048 or 22.5k, never 2.25e+04"), values to read closely with four
// significant digits and no "e" either, and colour-bar ticks that
// label the bar (the old steps left only "0" on a bar from -20 to 20).

#include <gtest/gtest.h>

#include <QImage>
#include <QPainter>

#include <algorithm>
#include <limits>

#include "ui/figures/number_format.hpp"
#include "ui/render/color_legend.hpp"

namespace qkv::ui {
namespace {

TEST(ReadableNumber, WritesNumbersAsPeopleDo)
{
    EXPECT_EQ(readableNumber(0), QStringLiteral("0"));
    EXPECT_EQ(readableNumber(2048), QStringLiteral("2,048"));
    EXPECT_EQ(readableNumber(22500), QStringLiteral("22.5k"));
    EXPECT_EQ(readableNumber(16384), QStringLiteral("16.4k"));
    EXPECT_EQ(readableNumber(1048576), QStringLiteral("1.05M"));
    EXPECT_EQ(readableNumber(2.5e9), QStringLiteral("2.5G"));
    EXPECT_EQ(readableNumber(512), QStringLiteral("512"));
    EXPECT_EQ(readableNumber(0.05), QStringLiteral("0.05"));
    EXPECT_EQ(readableNumber(0.125), QStringLiteral("0.125"));
    EXPECT_EQ(readableNumber(2.5), QStringLiteral("2.5"));
    EXPECT_EQ(readableNumber(-20), QStringLiteral("−20"));
    EXPECT_EQ(readableNumber(1e-16), QStringLiteral("10⁻¹⁶"));
    EXPECT_EQ(readableNumber(3.2e-7), QStringLiteral("3.2×10⁻⁷"));
    EXPECT_EQ(readableNumber(9999.7), QStringLiteral("10k"));
    for (double v : {1.0, 12.0, 2048.0, 22500.0, 1e6, 3.3e8, 1e-5, 0.3})
        EXPECT_FALSE(readableNumber(v).contains(QLatin1Char('e'))) << v;
}

TEST(PreciseNumber, FourSignificantDigitsAndPowersOfTenNeverAnE)
{
    EXPECT_EQ(preciseNumber(0), QStringLiteral("0"));
    EXPECT_EQ(preciseNumber(1.0 / 3.0), QStringLiteral("0.3333"));
    EXPECT_EQ(preciseNumber(-12.5), QStringLiteral("−12.5"));
    EXPECT_EQ(preciseNumber(2048), QStringLiteral("2048"));
    EXPECT_EQ(preciseNumber(23620.4), QStringLiteral("23620"));
    EXPECT_EQ(preciseNumber(999.96), QStringLiteral("1000"));
    EXPECT_EQ(preciseNumber(0.001), QStringLiteral("0.001"));
    EXPECT_EQ(preciseNumber(1.234e-7), QStringLiteral("1.234×10⁻⁷"));
    EXPECT_EQ(preciseNumber(-5e-4), QStringLiteral("−5×10⁻⁴"));
    EXPECT_EQ(preciseNumber(1e5), QStringLiteral("1×10⁵"));
    EXPECT_EQ(preciseNumber(99999.6), QStringLiteral("1×10⁵"));  // rounds up into the next power
    EXPECT_EQ(preciseNumber(-std::numeric_limits<double>::infinity()), QStringLiteral("−∞"));
    EXPECT_EQ(preciseNumber(std::numeric_limits<double>::quiet_NaN()), QStringLiteral("NaN"));
    for (double v : {1e-300, 1e-9, 3.3e8, 1e12, -7.7e20})
        EXPECT_FALSE(preciseNumber(v).contains(QLatin1Char('e'))) << v;
}

TEST(NiceCeiling, EndsOnOneTwoTwoAndAHalfOrFive)
{
    EXPECT_EQ(niceCeiling(0.7), 1.0);
    EXPECT_EQ(niceCeiling(1.3), 2.0);
    EXPECT_EQ(niceCeiling(2.2), 2.5);
    EXPECT_EQ(niceCeiling(460), 500);
    EXPECT_EQ(niceCeiling(-3), 1.0);
}

TEST(ReadableNumber, GroupsExactIntegers)
{
    EXPECT_EQ(groupedInteger(12582912), QStringLiteral("12,582,912"));
    EXPECT_EQ(groupedInteger(999), QStringLiteral("999"));
    EXPECT_EQ(groupedInteger(1000), QStringLiteral("1,000"));
    EXPECT_EQ(powerOfTen(4), QStringLiteral("10⁴"));
}

TEST(NiceTicks, LabelBothEndsOfASymmetricBar)
{
    // The bug: a bar from -20 to 20 with room for two ticks got a step of 50, hence only "0".
    const std::vector<double> two = niceTicks(-20, 20, 2);
    ASSERT_GE(two.size(), 2u);
    EXPECT_DOUBLE_EQ(two.front(), -20);
    EXPECT_DOUBLE_EQ(two.back(), 20);
    for (int count = 2; count <= 8; ++count) {
        for (const auto& [low, high] : {std::pair{-20.0, 20.0}, std::pair{0.0, 18.0}, std::pair{0.0, 0.5},
                                        std::pair{-2.5, 2.5}, std::pair{0.13, 0.37}, std::pair{0.0, 1e6}}) {
            const std::vector<double> ticks = niceTicks(low, high, count);
            EXPECT_GE(ticks.size(), 2u) << low << " " << high << " " << count;
            for (double t : ticks) {
                EXPECT_GE(t, low - 1e-9);
                EXPECT_LE(t, high + 1e-9);
            }
        }
    }
    const std::vector<double> unit = niceTicks(0, 1, 5);
    EXPECT_DOUBLE_EQ(unit.front(), 0.0);
    EXPECT_NEAR(unit.back(), 1.0, 1e-12);
    const std::vector<double> symmetric = niceTicks(-2.5, 2.5, 5);
    EXPECT_NE(std::find(symmetric.begin(), symmetric.end(), 0.0), symmetric.end());
}

TEST(ColorLegend, HorizontalLegendPaintsTheGradientUnderItsLabel)
{
    QImage image(300, 60, QImage::Format_ARGB32);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        paintColorLegend(painter, QRectF(0, 0, 300, 60), ColormapName::Viridis, 0, 1, QStringLiteral("weight"));
    }
    // Somewhere in the bar there is viridis's dark purple start and yellow end.
    bool purple = false, yellow = false;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c(image.pixel(x, y));
            purple |= c.blue() > 80 && c.red() < 90 && c.green() < 40;
            yellow |= c.red() > 200 && c.green() > 200 && c.blue() < 80;
        }
    EXPECT_TRUE(purple);
    EXPECT_TRUE(yellow);
    const QFontMetricsF metrics{QFont()};
    EXPECT_GT(horizontalLegendHeight(metrics, 100, QStringLiteral("a long label that must wrap onto two lines")),
              horizontalLegendHeight(metrics, 100, QStringLiteral("short")));
}

}  // namespace
}  // namespace qkv::ui
