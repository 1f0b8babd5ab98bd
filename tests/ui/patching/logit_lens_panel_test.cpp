// The Logit lens page (ui/patching/logit_lens_panel.hpp) on the demo model: its grid is core's
// logit lens (core/pipeline/logit_lens.hpp run here), the last layer's top tokens are the run's
// predictions, the line follows the answer's probability, and the hover says the top 5.

#include <QLabel>

#include <cmath>

#include "core/analysis/predictions.hpp"
#include "tests/ui/patching/patching_test_support.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "ui/figure_widgets/chart_view.hpp"
#include "ui/patching/logit_lens_panel.hpp"
#include "ui/patching/patch_grid_canvas.hpp"

namespace qkv::ui::testing {
namespace {

TEST(LogitLensPanelTest, TheGridIsCoresLensAndTheLineTheAnswersProbability)
{
    const std::shared_ptr<const ModelOverview> overview = demoOverview();
    ASSERT_TRUE(overview);
    LogitLensPanel panel;
    panel.resize(1100, 600);
    panel.show();
    panel.setOverview(overview);
    ASSERT_TRUE(waitUntil([&] { return panel.lens() != nullptr; })) << panel.statusLabel()->text().toStdString();
    Expected<std::vector<LogitLensLayer>> core = logitLens(*overview->model, *overview->baseline, 5);
    ASSERT_TRUE(core) << core.error();
    const std::shared_ptr<const PatchGridData> data = panel.gridCanvas()->data();
    ASSERT_TRUE(data);
    ASSERT_EQ(data->values.cols(), static_cast<Index>(core->size()));
    ASSERT_EQ(data->values.rows(), 9);
    for (Index l = 0; l < data->values.cols(); ++l)
        for (Index p = 0; p < data->values.rows(); ++p)
            EXPECT_EQ(data->values(p, l), (*core)[static_cast<std::size_t>(l)].positions[static_cast<std::size_t>(p)].top.front().probability);
    // The answer: the run's top-1 at the last position ("·e"); after the last layer the line is
    // the run's own probability of it.
    const Index n = data->values.rows();
    Expected<std::vector<TokenProbability>> last = topPredictions(overview->baseline->logits.row(overview->baseline->logitRow(n - 1)), 1);
    ASSERT_TRUE(last);
    EXPECT_EQ(panel.lens()->answer, last->front().id);
    ASSERT_EQ(panel.lens()->answerProbability.size(), core->size());
    EXPECT_NEAR(panel.lens()->answerProbability.back(), last->front().probability, 1e-6);
    EXPECT_EQ(data->cellTexts.value(static_cast<int>((n - 1) * data->values.cols() + data->values.cols() - 1)), QStringLiteral("·e"));
    // A chosen answer: the line follows it, the grid stays.
    const std::int32_t chosen = core->front().positions.back().top[1].id;
    panel.setAnswer(chosen);
    ASSERT_TRUE(waitUntil([&] { return !panel.isComputing() && panel.lens()->answer == chosen; }));
    // Where the chosen token is among a layer's top 5 at the last position, the line is that number.
    int compared = 0;
    for (std::size_t l = 0; l < core->size(); ++l)
        for (const TokenProbability& t : (*core)[l].positions.back().top)
            if (t.id == chosen) {
                EXPECT_NEAR(panel.lens()->answerProbability[l], t.probability, 1e-6) << l;
                ++compared;
            }
    EXPECT_GE(compared, 1);
    const ChartModel& chart = panel.chartView()->model();
    ASSERT_EQ(chart.series.size(), 1u);
    EXPECT_EQ(chart.series.front().points.size(), core->size());
    EXPECT_FALSE(chart.x.title.isEmpty());
    EXPECT_FALSE(chart.y.title.isEmpty());
    // The hover: the cell's top 5.
    const QRectF cell = panel.gridCanvas()->cellRect(static_cast<int>(n - 1), 0);
    const QString tip = panel.gridCanvas()->toolTipAt(cell.center());
    EXPECT_EQ(tip.count(QLatin1String("%")), 5) << tip.toStdString();
}

}  // namespace
}  // namespace qkv::ui::testing
