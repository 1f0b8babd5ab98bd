// Compare: pinned − live head by head, every head − the selected head, and a message (not a
// crash) when the shapes no longer match.

#include <QPainter>

#include "tests/ui/support/layer_test_support.hpp"
#include "ui/compare/compare_view.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/render/heatmap_layout.hpp"

namespace qkv::ui::testing {
namespace {

TEST(CompareView, ShowsPinnedMinusLiveForEveryHead)
{
    CompareView view(nullptr);
    showAt(view, QSize(1200, 800));
    qkv::Config config = crossConfig();
    const auto before = computeResult(config);
    view.setResult(before);
    waitUntilIdle(view);
    ASSERT_NE(view.difference(), nullptr);
    EXPECT_FALSE(view.difference()->ok());  // nothing pinned: it says what to do
    EXPECT_TRUE(view.difference()->problem.contains(QStringLiteral("Pin")));
    view.pin();
    config.scales.query = 2.0f;  // "what changed when I doubled W^Q"
    const auto after = computeResult(config);
    view.setResult(after);
    waitUntilIdle(view);
    const AttentionDifference& d = *view.difference();
    ASSERT_TRUE(d.ok()) << d.problem.toStdString();
    ASSERT_EQ(static_cast<qkv::Index>(d.differences.size()), after->attention.headCount());
    double largest = 0;
    for (qkv::Index i = 0; i < after->attention.headCount(); ++i) {
        const qkv::MatrixF expected = before->attention.heads[i].attention - after->attention.heads[i].attention;
        EXPECT_EQ(d.differences[static_cast<std::size_t>(i)], expected);
        largest = std::max(largest, static_cast<double>(expected.cwiseAbs().maxCoeff()));
    }
    EXPECT_GT(largest, 0.0);
    EXPECT_DOUBLE_EQ(d.range, largest);
    EXPECT_GE(d.colourRange, d.range);  // one colour range for every head, ending on a round number

    // Hover: pinned, live and their difference at the cell.
    const CompareGeometry g = view.geometry();
    ASSERT_EQ(g.panels.size(), 4u);
    QPoint centre;
    {
        const qkv::MatrixF& m = d.differences[1];
        const HeatmapLayout layout(g.panels[1], static_cast<int>(m.rows()), static_cast<int>(m.cols()), g.style,
                                   QFontMetricsF(view.canvas()->font(), view.canvas()));
        centre = layout.cellRect(2, 3).center().toPoint();
    }
    const QString tip = view.toolTipAt(centre);
    EXPECT_TRUE(tip.contains(preciseNumber(before->attention.heads[1].attention(2, 3)))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(preciseNumber(after->attention.heads[1].attention(2, 3))));
    EXPECT_TRUE(tip.contains(preciseNumber(d.differences[1](2, 3))));
    QTest::mouseClick(view.canvas(), Qt::LeftButton, {}, centre);
    EXPECT_EQ(view.selection()->head(), 1);
    EXPECT_EQ(view.selection()->queryRow(), 2);
    EXPECT_EQ(view.selection()->keyColumn(), 3);
}

TEST(CompareView, ComparesEveryHeadWithTheSelectedHead)
{
    CompareView view(nullptr);
    showAt(view, QSize(1200, 800));
    const auto result = computeResult(crossConfig());
    view.setResult(result);
    view.setMode(CompareMode::HeadsMinusReference);
    view.setQuantity(CompareQuantity::ScaledScores);
    view.selection()->setHead(1);
    waitUntilIdle(view);
    const AttentionDifference& d = *view.difference();
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d.reference, 1);
    for (qkv::Index i = 0; i < 4; ++i)
        EXPECT_EQ(d.differences[static_cast<std::size_t>(i)],
                  qkv::MatrixF(result->attention.heads[i].scores - result->attention.heads[1].scores));
    EXPECT_EQ(d.largest[1], 0.0);
    EXPECT_TRUE(differenceLegend(d).contains(QStringLiteral("scaled score")));
    // The reference follows the selection.
    view.selection()->setHead(3);
    waitUntilIdle(view);
    EXPECT_EQ(view.difference()->reference, 3);
}

TEST(CompareView, ShapesThatNoLongerMatchGiveAMessageNotACrash)
{
    CompareView view(nullptr);
    showAt(view, QSize(1000, 700));
    view.setResult(computeResult(crossConfig()));
    view.pin();
    qkv::Config other = crossConfig();
    other.targetText = "un autre texte plus long que le premier";
    view.setResult(computeResult(other));
    waitUntilIdle(view);
    ASSERT_NE(view.difference(), nullptr);
    EXPECT_FALSE(view.difference()->ok());
    EXPECT_TRUE(view.difference()->problem.contains(QStringLiteral("no longer match")));
    EXPECT_TRUE(view.difference()->problem.contains(QStringLiteral("4 queries × 6 keys")));
    view.canvas()->grab();  // paints the message
    qkv::Config heads = crossConfig();
    heads.headCount = 8;
    view.setResult(computeResult(heads));
    waitUntilIdle(view);
    EXPECT_FALSE(view.difference()->ok());
    EXPECT_TRUE(view.toolTipAt(QPointF(300, 300)).isEmpty());
    QTest::mouseClick(view.canvas(), Qt::LeftButton, {}, QPoint(300, 300));
    view.unpin();
    waitUntilIdle(view);
    EXPECT_TRUE(view.difference()->problem.contains(QStringLiteral("Nothing pinned")));
}

}  // namespace
}  // namespace qkv::ui::testing
