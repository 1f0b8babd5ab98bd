// The Q/K map: its points are core's qkProjection, the selected query's lines have the
// attention weights as opacities, clicks pick a query, a key or a head.

#include "ui/qkmap/qk_map_view.hpp"
#include "core/analysis/qk_projection.hpp"
#include "tests/ui/support/layer_test_support.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"

namespace qkv::ui::testing {
namespace {

struct ShownQkMapView {
    explicit ShownQkMapView(const qkv::Config& config) : result(computeResult(config))
    {
        showAt(view, QSize(1300, 820));
        view.setResult(result);
        waitUntilIdle(view);
    }
    std::shared_ptr<const qkv::Result> result;
    QkMapView view{nullptr};
};

void expectPointsAreCores(const QkMapView& view, const qkv::Result& result)
{
    ASSERT_NE(view.model(), nullptr);
    const QkMapModel& model = *view.model();
    ASSERT_EQ(static_cast<qkv::Index>(model.heads.size()), result.attention.headCount());
    for (qkv::Index i = 0; i < result.attention.headCount(); ++i) {
        const auto core = qkv::qkProjection(result, i);
        ASSERT_TRUE(core.ok());
        ASSERT_TRUE(model.heads[static_cast<std::size_t>(i)].has_value());
        const qkv::QkProjection& shown = *model.heads[static_cast<std::size_t>(i)];
        EXPECT_EQ(shown.queries, core->queries);
        EXPECT_EQ(shown.keys, core->keys);
        EXPECT_EQ(shown.explainedVarianceRatio, core->explainedVarianceRatio);
    }
}

TEST(QkMapView, PointsAreCoresProjectionAndLinesAreTheAttentionRow)
{
    ShownQkMapView s(crossConfig());
    expectPointsAreCores(s.view, *s.result);
    s.view.selection()->setHead(2);
    s.view.selection()->setCell(3, 0);
    const auto lines = attentionLines(*s.result, 2, 3);
    ASSERT_EQ(static_cast<qkv::Index>(lines.size()), s.result->attention.keyCount());
    for (const AttentionLine& line : lines)
        EXPECT_EQ(line.opacity, static_cast<double>(s.result->attention.heads[2].attention(3, line.key)));
    // Each axis says how much of the variance it explains.
    const qkv::QkProjection& p = *s.view.model()->heads[2];
    EXPECT_TRUE(varianceText(p, 0).contains(QString::number(p.explainedVarianceRatio[0] * 100.0, 'f', 1)));
    // The points are drawn where the frame maps core's coordinates.
    const QkMapGeometry g = s.view.headGeometry();
    ASSERT_TRUE(g.valid);
    for (qkv::Index i = 0; i < p.queries.rows(); ++i)
        EXPECT_TRUE(g.plot.contains(g.frame.map(p.queries(i, 0), p.queries(i, 1))));
}

TEST(QkMapView, RotaryAndGroupedQueryAttentionUseWhatTheScoresUse)
{
    qkv::Config config = selfConfig();
    config.positional = qkv::PositionalEncoding::Rotary;
    config.keyValueHeadCount = 2;
    ShownQkMapView s(config);
    expectPointsAreCores(s.view, *s.result);
}

TEST(QkMapView, ClicksPickAQueryAKeyOrAHead)
{
    ShownQkMapView s(crossConfig());
    HeadSelection* selection = s.view.selection();
    const QkMapGeometry g = s.view.headGeometry();
    const qkv::QkProjection& p = *s.view.model()->heads[0];
    // The first key whose point is not hidden under another.
    for (qkv::Index j = 0; j < p.keys.rows(); ++j) {
        const QPointF at = g.frame.map(p.keys(j, 0), p.keys(j, 1));
        if (qkPointAt(g, *s.view.model(), 0, at).key != j) continue;
        QTest::mouseClick(s.view.canvas(), Qt::LeftButton, {}, at.toPoint());
        EXPECT_EQ(selection->keyColumn(), j);
        break;
    }
    for (qkv::Index i = p.queries.rows() - 1; i >= 0; --i) {
        const QPointF at = g.frame.map(p.queries(i, 0), p.queries(i, 1));
        if (qkPointAt(g, *s.view.model(), 0, at).query != i) continue;
        QTest::mouseClick(s.view.canvas(), Qt::LeftButton, {}, at.toPoint());
        EXPECT_EQ(selection->queryRow(), i);
        break;
    }
    const QkHeadsGeometry heads = s.view.headsGeometry();
    ASSERT_EQ(heads.panels.size(), 4u);
    QTest::mouseClick(s.view.canvas(), Qt::LeftButton, {}, heads.plots[3].center().toPoint());
    EXPECT_EQ(selection->head(), 3);
    EXPECT_EQ(s.view.model()->result, s.result);  // a change of head recomputes nothing
}

}  // namespace
}  // namespace qkv::ui::testing
