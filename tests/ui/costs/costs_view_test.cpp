// Widget tests of the Costs tab (CostsView): every number drawn equals the cost model's.
// Assertions are EXPECT_/ASSERT_ only (QVERIFY in a gtest body does not fail, docs/architecture.md, "Rules learned on this machine").

#include <QApplication>
#include <QClipboard>
#include <QImage>
#include <QPainter>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include "core/cost/cost_model.hpp"
#include "tests/ui/factored/factored_test_support.hpp"
#include "ui/costs/cost_figures.hpp"
#include "ui/costs/cost_table.hpp"
#include "ui/costs/costs_view.hpp"
#include "ui/costs/score_timing.hpp"
#include "ui/document/head_selection.hpp"

namespace qkv::ui {
namespace {

using qkv::testing::computeOrFail;
using qkv::testing::exampleConfig;
using Chart = CostsView::BarChart;

LayerShape layer(Count d_model, Count h, Count g, bool bias, HeadLayout layout)
{
    LayerShape s;
    s.d_model = d_model;
    s.heads = h;
    s.keyValueHeads = g;
    s.withBias = bias;
    s.layout = layout;
    return s;
}

std::vector<double> asDoubles(std::initializer_list<Count> counts)
{
    std::vector<double> out;
    for (const Count c : counts) {
        out.push_back(static_cast<double>(c));
    }
    return out;
}

class CostsViewTest : public ::testing::TestWithParam<std::pair<Count, Count>> {};

TEST_P(CostsViewTest, ScorePathBarsAreTheCostModels)
{
    const auto [d, h] = GetParam();
    CostsView view;
    view.setResult(computeOrFail(exampleConfig(d, h)));
    const ScorePathComparison c = compareScorePath(d, h, h);
    EXPECT_EQ(view.barValues(Chart::ScorePath, 0),
              asDoubles({c.factored.parametersPerHead, c.factored.parametersPerLayer}));
    EXPECT_EQ(view.barValues(Chart::ScorePath, 1), asDoubles({c.full.parametersPerHead, c.full.parametersPerLayer}));
    // The point of the view: 2 d_model d_k per head vs d_model^2.
    EXPECT_EQ(view.barValues(Chart::ScorePath, 0)[0], 2.0 * d * (d / h));
    EXPECT_EQ(view.barValues(Chart::ScorePath, 1)[0], static_cast<double>(d * d));
}

TEST_P(CostsViewTest, LayerBarsAreTheCostModels)
{
    const auto [d, h] = GetParam();
    CostsView view;
    view.setResult(computeOrFail(exampleConfig(d, h)));
    const Count g = view.keyValueHeads();
    EXPECT_EQ(g, h);
    for (const bool bias : {false, true}) {
        const std::vector<double> expected = asDoubles({
            layerParameterCount(layer(d, h, g, bias, HeadLayout::Factored)),      // GQA (g)
            layerParameterCount(layer(d, h, 1, bias, HeadLayout::Factored)),      // MQA
            layerParameterCount(layer(d, h, h, bias, HeadLayout::Unreduced)),     // unreduced
            layerParameterCount(layer(d, h, h, bias, HeadLayout::FullBilinear)),  // full W_i
            layerParameterCount(layer(d, h, h, bias, HeadLayout::Factored)),      // standard
        });
        EXPECT_EQ(view.barValues(Chart::LayerParameters, bias ? 1 : 0), expected);
    }
    // 4 d^2 + 4 d for a standard layer with biases.
    EXPECT_EQ(view.barValues(Chart::LayerParameters, 1).back(), 4.0 * d * d + 4.0 * d);
}

TEST_P(CostsViewTest, KeyValueHeadsControlUpdatesTheGqaBar)
{
    const auto [d, h] = GetParam();
    CostsView view;
    view.setResult(computeOrFail(exampleConfig(d, h)));
    EXPECT_EQ(view.keyValueHeadChoices(), divisorsOf(h));
    const Count g = divisorsOf(h)[1];  // the smallest g > 1 (h itself when h is prime)
    view.setKeyValueHeads(g);
    EXPECT_EQ(view.keyValueHeads(), g);
    EXPECT_EQ(view.barValues(Chart::LayerParameters, 0).front(),
              static_cast<double>(layerParameterCount(layer(d, h, g, false, HeadLayout::Factored))));
    EXPECT_TRUE(view.barCategories(Chart::LayerParameters).front().contains(QString::number(g)));
    view.setKeyValueHeads(h + 1);  // not a divisor: ignored
    EXPECT_EQ(view.keyValueHeads(), g);
}

TEST_P(CostsViewTest, TotalsAgainstHeadsAreTheCostModels)
{
    const auto [d, h] = GetParam();
    CostsView view;
    view.setResult(computeOrFail(exampleConfig(d, h)));
    const std::vector<HeadCountTotals> totals = totalsOverHeadCounts(d, false);
    ASSERT_EQ(view.totalsSeriesNames().size(), 6);
    for (int s = 0; s < 6; ++s) {
        const std::vector<QPointF> points = view.totalsSeries(s);
        ASSERT_EQ(points.size(), totals.size());
        for (std::size_t i = 0; i < totals.size(); ++i) {
            const HeadCountTotals& t = totals[i];
            const Count values[] = {t.standard,  t.multiQuery,        t.fullBilinear,
                                    t.unreduced, t.scorePathFactored, t.scorePathFull};
            EXPECT_EQ(points[i].x(), static_cast<double>(t.heads));
            EXPECT_EQ(points[i].y(), static_cast<double>(values[s])) << "series " << s << " h " << t.heads;
        }
    }
}

TEST_P(CostsViewTest, FlopBarsAreTheCostModels)
{
    const auto [d, h] = GetParam();
    auto result = computeOrFail(exampleConfig(d, h));
    ASSERT_TRUE(result);
    CostsView view;
    view.setResult(result);
    const Count n_q = result->queryInput.rows(), n_k = result->keyValueInput.rows();
    const ScoreFlops f = scoreFlopsFactored(n_q, n_k, d, d / h);
    const ScoreFlops full = scoreFlopsFullBilinear(n_q, n_k, d);
    EXPECT_EQ(view.barValues(Chart::ScoreFlops, 0),
              asDoubles({f.total(), f.product, f.keyProjection, f.queryProjection}));
    EXPECT_EQ(view.barValues(Chart::ScoreFlops, 1),
              asDoubles({full.total(), full.product, full.keyProjection, full.queryProjection}));
    EXPECT_EQ(view.barCategories(Chart::ScoreFlops).front(), QStringLiteral("total"));
}

INSTANTIATE_TEST_SUITE_P(Shapes, CostsViewTest,
                         ::testing::Values(std::pair<Count, Count>{64, 4}, std::pair<Count, Count>{768, 12},
                                           std::pair<Count, Count>{96, 3}));

TEST(CostsView, ChangingHeadsUpdatesTheCharts)
{
    CostsView view;
    view.setResult(computeOrFail(exampleConfig(64, 4)));
    const std::vector<double> before = view.barValues(Chart::ScorePath, 1);
    Config grouped = exampleConfig(64, 8);
    grouped.keyValueHeadCount = 2;
    view.setResult(computeOrFail(grouped));
    const std::vector<double> after = view.barValues(Chart::ScorePath, 1);
    EXPECT_EQ(before[1], 4.0 * 64 * 64);
    EXPECT_EQ(after[1], 8.0 * 64 * 64);  // one full W_i per head
    EXPECT_EQ(view.barValues(Chart::ScorePath, 0)[0], 2.0 * 64 * 8);
    EXPECT_EQ(view.keyValueHeads(), 2);  // the layer's g
    view.setResult(computeOrFail(exampleConfig(63, 9)));
    EXPECT_EQ(view.keyValueHeads(), 9);  // the layer's g = h
    EXPECT_TRUE(view.barCategories(Chart::ScorePath).back().contains(QStringLiteral("9")));
}

// There is one g, the layer's: the view shows it and asks the document for another.
TEST(CostsView, ShowsTheLayersGAndAsksForAnother)
{
    CostsView view;
    Config config = exampleConfig(64, 8);
    config.keyValueHeadCount = 4;
    view.setResult(computeOrFail(config));
    EXPECT_EQ(view.keyValueHeads(), 4);
    QSignalSpy chosen(&view, &CostsView::keyValueHeadsChosen);
    view.setKeyValueHeads(2);
    ASSERT_EQ(chosen.count(), 1);
    EXPECT_EQ(chosen.first().first().value<Count>(), 2);
    view.setKeyValueHeads(3);  // not a divisor of h = 8: not asked for
    EXPECT_EQ(chosen.count(), 1);
}

TEST(CostsView, TableHoldsTheCostModelsRowsAndCopiesFormulas)
{
    auto result = computeOrFail(exampleConfig(64, 4));
    ASSERT_TRUE(result);
    CostsView view;
    view.setResult(result);
    const Count n_q = result->queryInput.rows(), n_k = result->keyValueInput.rows();
    LayerShape s = layer(64, 4, 4, false, HeadLayout::Factored);
    Expected<std::vector<CostRow>> expected = costTable(s, n_q, n_k);
    ASSERT_TRUE(expected.ok());
    const std::vector<CostRow>& shown = view.table()->rows();
    ASSERT_GE(shown.size(), expected->size());
    for (std::size_t i = 0; i < expected->size(); ++i) {
        EXPECT_EQ(shown[i].name, (*expected)[i].name);
        EXPECT_EQ(shown[i].formula, (*expected)[i].formula);
        EXPECT_EQ(shown[i].value, (*expected)[i].value);
    }

    const QString all = view.copyText(false);
    EXPECT_TRUE(all.startsWith(QStringLiteral("quantity\tformula\tvalue\n")));
    EXPECT_TRUE(all.contains(QStringLiteral("2 * d_model * d_k = 2 * 64 * 16\t2048")));
    EXPECT_TRUE(all.contains(QStringLiteral("d_model * d_model = 64 * 64\t4096")));
    EXPECT_EQ(all.count(QLatin1Char('\n')), static_cast<int>(shown.size()) + 1);

    // Select two rows; Ctrl+C copies exactly them, tab-separated.
    view.table()->clearSelection();
    view.table()->setSelectionMode(QAbstractItemView::MultiSelection);
    view.table()->selectRow(0);
    view.table()->selectRow(2);
    const QString selected = view.copyText(true);
    EXPECT_EQ(selected.count(QLatin1Char('\n')), 3);
    QTest::keyClick(view.table(), Qt::Key_C, Qt::ControlModifier);
    EXPECT_EQ(QApplication::clipboard()->text(), selected);
    const QStringList lines = selected.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    ASSERT_EQ(lines.size(), 3);
    EXPECT_EQ(lines[1].split(QLatin1Char('\t')).size(), 3);
    EXPECT_EQ(lines[1].split(QLatin1Char('\t'))[1].toStdString(), shown[0].formula);
}

// Heads of their own width (d_k 32 at d_model 64, h 4): the bars, the summary and the table
// are the cost model's for that d_k, never d_model / h.
TEST(CostsView, HeadsOfTheirOwnWidthAreCountedAtTheirWidth)
{
    Config config = exampleConfig(64, 4);
    config.headDim = 32;
    auto result = computeOrFail(config);
    ASSERT_TRUE(result);
    CostsView view;
    view.setResult(result);
    EXPECT_EQ(view.barValues(Chart::ScorePath, 0)[0], 2.0 * 64 * 32);
    const QString headline = costSummary(costShape(*result, view.keyValueHeads()));
    EXPECT_TRUE(headline.contains(QStringLiteral("d_k = 32"))) << headline.toStdString();
    LayerShape s = layer(64, 4, 4, false, HeadLayout::Factored);
    s.headWidth = 32;
    Expected<std::vector<CostRow>> expected = costTable(s, result->queryInput.rows(), result->keyValueInput.rows());
    ASSERT_TRUE(expected.ok()) << expected.error();
    const std::vector<CostRow>& shown = view.table()->rows();
    ASSERT_GE(shown.size(), expected->size());
    for (std::size_t i = 0; i < expected->size(); ++i) EXPECT_EQ(shown[i].formula, (*expected)[i].formula);
    EXPECT_TRUE(view.copyText(false).contains(QStringLiteral("d_model * (h * d_k) = 64 * (4 * 32)\t8192")));
}

TEST(CostsView, MeasuresBothWaysOffTheGuiThread)
{
    CostsView view;
    QSignalSpy spy(&view, &CostsView::timingUpdated);
    view.setResult(computeOrFail(exampleConfig(64, 4)));
    ASSERT_TRUE(spy.count() > 0 || spy.wait(30000));
    ASSERT_TRUE(view.lastTiming().has_value());
    const ScoreTiming t = *view.lastTiming();
    EXPECT_TRUE(t.valid());
    EXPECT_GT(t.factoredMilliseconds, 0.0);
    EXPECT_GT(t.fullMilliseconds, 0.0);
    EXPECT_EQ(t.d_model, 64);
    EXPECT_EQ(t.d_k, 16);
    EXPECT_TRUE(view.timingText().contains(QStringLiteral("factored")));
    // The spread of the samples is measured and said.
    EXPECT_GT(t.ratioLow, 0.0);
    EXPECT_LE(t.ratioLow, t.ratioHigh);
    EXPECT_TRUE(view.timingText().contains(QStringLiteral("half of the samples between %1× and %2×")
                                               .arg(QString::number(t.ratioLow, 'f', 1),
                                                    QString::number(t.ratioHigh, 'f', 1))))
        << view.timingText().toStdString();
}

// With g < h, query head i reads key head i / (h / g): the last query head's W_i^K is a block of
// W^K's g d_k columns, not its i-th block (which lies past the end of W^K).
TEST(CostsView, TimesTheLastHeadOfAGroupedLayerWithItsOwnKeyHead)
{
    HeadSelection selection;
    CostsView view(&selection);
    Config grouped = exampleConfig(64, 4);
    grouped.keyValueHeadCount = 2;
    const auto result = computeOrFail(grouped);
    ASSERT_EQ(result->weights->keyProjection.cols(), 32);
    QSignalSpy spy(&view, &CostsView::timingUpdated);
    view.setResult(result);
    view.setSelectedHead(3);
    ASSERT_EQ(view.selectedHead(), 3);
    while (!view.lastTiming() || view.timingText().indexOf(QStringLiteral("head 4")) < 0)
        ASSERT_TRUE(spy.wait(30000)) << view.timingText().toStdString();
    const ScoreTiming t = *view.lastTiming();
    EXPECT_TRUE(t.valid());
    EXPECT_EQ(t.d_k, 16);
    EXPECT_GT(t.factoredMilliseconds, 0.0);
}

TEST(CostsView, SingleHeadAndRenderFigure)
{
    CostsView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(1400, 900);
    view.show();
    view.setResult(computeOrFail(exampleConfig(64, 1)));
    EXPECT_EQ(view.keyValueHeadChoices(), std::vector<Count>{1});
    EXPECT_EQ(view.barValues(Chart::ScorePath, 0)[0], 2.0 * 64 * 64);  // d_k = d_model: no saving
    QImage image(700, 450, QImage::Format_ARGB32);
    image.fill(Qt::transparent);
    {
        QPainter painter(&image);
        view.renderFigure(painter, QRectF(0, 0, 700, 450));
    }
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 5) {
        for (int x = 0; x < image.width(); x += 5) {
            colours.insert(image.pixel(x, y));
        }
    }
    EXPECT_GT(colours.size(), 20);
}

TEST(ScoreTiming, QuartilesOfTheRatios)
{
    EXPECT_EQ(quartiles({5, 1, 4, 2, 3}), std::make_pair(2.0, 4.0));
    EXPECT_EQ(quartiles({1, 2}), std::make_pair(1.25, 1.75));  // between ranks
    EXPECT_EQ(quartiles({7}), std::make_pair(7.0, 7.0));
    EXPECT_EQ(quartiles({}), std::make_pair(0.0, 0.0));
}

TEST(ScoreTiming, RejectsMismatchedShapes)
{
    const MatrixF x = MatrixF::Random(3, 8);
    const MatrixF w = MatrixF::Random(6, 2);  // d_model 6 != 8
    EXPECT_FALSE(timeScoresBothWays(x, x, w, w, 3).valid());
}

}  // namespace
}  // namespace qkv::ui
