#include <gtest/gtest.h>

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QPalette>
#include <QScatterSeries>
#include <QValueAxis>

#include "ui/render/chart_builder.hpp"
#include "ui/render/chart_model.hpp"
#include "ui/render/chart_palette.hpp"

namespace qkv::ui {
namespace {

// A chart as the Costs tab builds one: bars, a category axis and a value axis.
std::unique_ptr<QChart> barChart()
{
    auto chart = std::make_unique<QChart>();
    auto* series = new QBarSeries(chart.get());
    auto* set = new QBarSet(QStringLiteral("factored"), series);
    *set << 1 << 2;
    set->setLabelColor(Qt::black);
    series->append(set);
    chart->addSeries(series);
    auto* categories = new QBarCategoryAxis(chart.get());
    categories->append({QStringLiteral("a"), QStringLiteral("b")});
    auto* values = new QValueAxis(chart.get());
    chart->addAxis(categories, Qt::AlignBottom);
    chart->addAxis(values, Qt::AlignLeft);
    series->attachAxis(categories);
    series->attachAxis(values);
    return chart;
}

TEST(ChartPalette, DarkPaletteRecoloursEveryPart)
{
    QPalette dark;
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::Text, QColor(220, 221, 222));
    auto chart = barChart();
    applyPaletteToChart(chart.get(), dark);
    EXPECT_EQ(chart->backgroundBrush().color(), QColor(30, 30, 30));
    EXPECT_EQ(chart->titleBrush().color(), QColor(220, 221, 222));
    EXPECT_EQ(chart->legend()->labelColor(), QColor(220, 221, 222));
    ASSERT_EQ(chart->axes().size(), 2);
    for (QAbstractAxis* axis : chart->axes()) EXPECT_EQ(axis->labelsColor(), QColor(220, 221, 222));
    auto* bars = static_cast<QBarSeries*>(chart->series().front());
    EXPECT_EQ(bars->barSets().front()->labelColor(), QColor(220, 221, 222));  // was black: unreadable
}

TEST(ChartPalette, LightPaletteKeepsTheDefaultTheme)
{
    QPalette light;
    light.setColor(QPalette::Base, Qt::white);
    light.setColor(QPalette::Text, Qt::black);
    auto chart = barChart();
    const QColor before = chart->backgroundBrush().color();
    const QColor labelsBefore = chart->axes().front()->labelsColor();
    applyPaletteToChart(chart.get(), light);
    EXPECT_EQ(chart->backgroundBrush().color(), before);
    EXPECT_EQ(chart->axes().front()->labelsColor(), labelsBefore);
}

// A ring marks a point (the Costs tab's "the current h"): it is drawn in the text colour, so a
// ring the model asks for in black still shows on the dark palette.
TEST(ChartPalette, RingsTakeTheTextColour)
{
    ChartModel m;
    m.x.title = QStringLiteral("h");
    m.y.title = QStringLiteral("parameters");
    ChartSeries ring = ChartSeries::of(QStringLiteral("the current h"), Qt::black, ChartSeries::Kind::Points);
    ring.marker = ChartSeries::Marker::Ring;
    ring.points = {QPointF(4, 10)};
    ChartSeries dots = ChartSeries::of(QStringLiteral("others"), QColor(0x1b, 0x9e, 0x77), ChartSeries::Kind::Points);
    dots.points = {QPointF(2, 5)};
    m.series = {ring, dots};
    const QColor light(0xe8, 0xe8, 0xe8);
    const std::unique_ptr<QChart> chart = buildChart(m, ChartStyle{light, QColor(0x1e, 0x1e, 0x1e), QFont()});
    ASSERT_EQ(chart->series().size(), 2);
    auto* ringSeries = qobject_cast<QScatterSeries*>(chart->series().at(0));
    auto* dotSeries = qobject_cast<QScatterSeries*>(chart->series().at(1));
    ASSERT_NE(ringSeries, nullptr);
    ASSERT_NE(dotSeries, nullptr);
    EXPECT_EQ(ringSeries->pen().color(), light);
    EXPECT_EQ(dotSeries->color(), QColor(0x1b, 0x9e, 0x77)) << "other series keep their colour";
}

}  // namespace
}  // namespace qkv::ui
