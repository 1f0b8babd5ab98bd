// The training curves: new points keep a zoom the user chose, a double-click shows every step
// again, the mouse over a line reads the nearest point, and a long run is drawn thinned.

#include <QApplication>
#include <QTest>
#include <QValueAxis>

#include <gtest/gtest.h>

#include "ui/train/curve_chart.hpp"
#include "ui/train/training_curves.hpp"

namespace qkv::ui {
namespace {

Curve line(long steps)
{
    Curve c{QStringLiteral("factored · training"), Qt::blue, Qt::SolidLine, {}};
    for (long s = 1; s <= steps; ++s) c.points.emplace_back(static_cast<double>(s), 4.0 / static_cast<double>(s));
    return c;
}

class CurveChartTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        chart.resize(500, 350);
        chart.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
    }
    CurveChart chart{QString(), QStringLiteral("loss"), false};
};

TEST_F(CurveChartTest, TheStepAxisRunsToTheLastStepAndGrowsWithTheCurve)
{
    chart.setCurves({line(100)}, 2000);
    EXPECT_DOUBLE_EQ(chart.stepAxis()->min(), 0.0);
    EXPECT_GE(chart.stepAxis()->max(), 2000.0);
    EXPECT_GE(chart.valueAxis()->max(), 4.0);
    EXPECT_EQ(chart.drawnPoints(QStringLiteral("factored · training")).size(), 100u);
}

TEST_F(CurveChartTest, AZoomStaysWhileTheCurveGrowsAndADoubleClickShowsEveryStep)
{
    chart.setCurves({line(100)}, 2000);
    QWidget* viewport = chart.viewport();
    QTest::mousePress(viewport, Qt::LeftButton, {}, QPoint(150, 80));
    QTest::mouseMove(viewport, QPoint(300, 200));
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, QPoint(300, 200));
    ASSERT_TRUE(chart.isZoomed());
    const double zoomedMax = chart.stepAxis()->max();
    EXPECT_LT(zoomedMax, 2000.0);
    chart.setCurves({line(400)}, 2000);
    EXPECT_DOUBLE_EQ(chart.stepAxis()->max(), zoomedMax);

    QTest::mouseDClick(viewport, Qt::LeftButton, {}, QPoint(200, 150));
    EXPECT_FALSE(chart.isZoomed());
    EXPECT_GE(chart.stepAxis()->max(), 2000.0);
    EXPECT_DOUBLE_EQ(chart.stepAxis()->min(), 0.0);
}

TEST_F(CurveChartTest, TheMouseOverALineReadsTheNearestPoint)
{
    chart.setCurves({line(100)}, 2000);
    const QString text = chart.pointText(QStringLiteral("factored · training"), 49.7);
    EXPECT_TRUE(text.contains(QStringLiteral("factored · training"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("step 50: 0.08"))) << text.toStdString();
    CurveChart percent(QString(), QStringLiteral("held-out accuracy"), true);
    percent.setCurves({Curve{QStringLiteral("factored · tokens"), Qt::blue, Qt::SolidLine, {{10.0, 0.875}}}}, 100);
    EXPECT_TRUE(percent.pointText(QStringLiteral("factored · tokens"), 10).contains(QStringLiteral("87.5 %")));
}

TEST_F(CurveChartTest, ALongRunIsDrawnAsMeansOfConsecutiveSteps)
{
    Curve flat{QStringLiteral("full W_i · training"), Qt::red, Qt::SolidLine, {}};
    for (long s = 1; s <= 100000; ++s) flat.points.emplace_back(static_cast<double>(s), s % 2 == 0 ? 1.0 : 3.0);
    chart.setCurves({flat}, 100000);
    const std::vector<QPointF> drawn = chart.drawnPoints(QStringLiteral("full W_i · training"));
    EXPECT_LE(drawn.size(), 1200u);
    EXPECT_GE(drawn.size(), 1000u);
    for (const QPointF& p : drawn) EXPECT_NEAR(p.y(), 2.0, 0.02);
    EXPECT_DOUBLE_EQ(drawn.back().x(), 100000.0);
}

// A value axis title longer than the plot is high wraps into rotated lines; Qt elided it
// ("held-out accur...") in a 1000 x 700 window, where the accuracy plot is about 100 px high.
TEST(CurveChartTitles, AValueTitleLongerThanThePlotWraps)
{
    CurveChart chart{QString(), QStringLiteral("held-out accuracy"), true};
    chart.resize(220, 170);
    chart.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
    QApplication::processEvents();
    EXPECT_TRUE(chart.valueAxis()->titleText().contains(QStringLiteral("<br>"))) << chart.valueAxis()->titleText().toStdString();
    chart.resize(500, 400);
    QApplication::processEvents();
    EXPECT_EQ(chart.valueAxis()->titleText(), QStringLiteral("held-out accuracy"));
}

// A snapshot of one full W_i run whose curve has `evaluations` held-out evaluations among 50 steps.
TrainingSnapshot runEvaluated(int evaluations, bool sequences)
{
    auto model = std::make_shared<qkv::TrainedModel>();
    model->parameters.spec.scoreForm = qkv::ScoreForm::Full;
    for (long step = 1; step <= 50; ++step) {
        qkv::CurvePoint p;
        p.step = step;
        p.loss = 4.0 / static_cast<double>(step);
        if (step % 10 == 0 && step / 10 <= evaluations) {
            p.heldOutLoss = p.loss * 1.1;
            p.heldOutAccuracy = 0.5;
            p.heldOutSequenceAccuracy = 0.25;
        }
        model->curve.push_back(p);
    }
    TrainingSnapshot s;
    TrainedVariant v;
    v.model = model;
    s.variants.push_back(v);
    if (sequences) s.targetTokens = {"a", "b"};
    s.steps = s.totalSteps = 50;
    return s;
}

// The legend names the dashed held-out line only when the loss chart draws one, and the held-out
// line is drawn over the training line with a dot at each evaluation (the two lines agree on an
// easy task, and a dashed line under a solid one of the same colour was not seen).
TEST(TrainingCurvesLegend, NamesTheHeldOutLineOnlyWhenItIsDrawn)
{
    const TrainingSnapshot none = runEvaluated(0, true);
    EXPECT_FALSE(curvesLegend(none).contains(QStringLiteral("loss"))) << curvesLegend(none).toStdString();
    EXPECT_FALSE(curvesLegend(none).contains(QStringLiteral("dashed"))) << curvesLegend(none).toStdString();

    const TrainingSnapshot some = runEvaluated(3, false);
    const std::vector<Curve> loss = lossCurves(some);
    ASSERT_EQ(loss.size(), 2u);
    EXPECT_EQ(loss.back().style, Qt::DashLine);  // the last series: drawn on top
    EXPECT_TRUE(loss.back().dots);
    EXPECT_EQ(loss.back().points.size(), 3u);
    EXPECT_LT(loss.front().color.alpha(), 255);  // the busy training line, lighter
    // One item, never broken across lines: spaces and the hyphen do not break.
    const QString heldOutLoss = QStringLiteral("held") + QChar(0x2011) + QStringLiteral("out&nbsp;loss");
    EXPECT_TRUE(curvesLegend(some).contains(heldOutLoss)) << curvesLegend(some).toStdString();
    EXPECT_FALSE(curvesLegend(some).contains(QStringLiteral("sequences"))) << curvesLegend(some).toStdString();
    const TrainingSnapshot withSequences = runEvaluated(3, true);
    EXPECT_TRUE(curvesLegend(withSequences).contains(QStringLiteral("whole&nbsp;sequences&nbsp;right")));
}

}  // namespace
}  // namespace qkv::ui
