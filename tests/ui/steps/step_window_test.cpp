#include <cmath>

#include "tests/ui/support/window_fixture.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/steps/step_view.hpp"

using qkv::ui::testing::WindowTest;

TEST_F(WindowTest, StepByStepNumbersEqualTheCore)
{
    const auto result = window->document()->result();
    ASSERT_NE(result, nullptr);
    const int head = 2, query = 3, key = 1;
    window->tabs()->setCurrentWidget(window->stepView());  // a hidden view shows nothing new
    window->selection()->setHead(head);
    window->selection()->setCell(query, key);
    const qkv::ui::StepView* view = window->stepView();
    const qkv::ui::StepNumbers& n = view->numbers();
    ASSERT_TRUE(n.valid);
    const qkv::AttentionResult& a = result->attention;
    const qkv::Index d_k = a.d_k();
    ASSERT_EQ(static_cast<qkv::Index>(n.q.size()), d_k);
    for (qkv::Index i = 0; i < d_k; ++i) {
        EXPECT_EQ(n.q[i], a.query(query, head * d_k + i));
        EXPECT_EQ(n.k[i], a.key(key, head * d_k + i));
        EXPECT_EQ(n.headOutput[i], a.headOutputs(query, head * d_k + i));
    }
    const qkv::HeadAttention& h = a.heads[head];
    EXPECT_EQ(n.scaledScore, h.scores(query, key));
    EXPECT_EQ(n.weight, h.attention(query, key));
    for (qkv::Index j = 0; j < a.keyCount(); ++j) EXPECT_EQ(n.rowWeights[j], h.attention(query, j));
    // The products' sum is the dot product the core scaled (to float rounding).
    double sum = 0;
    for (float p : n.products) sum += p;
    EXPECT_NEAR(sum, n.dotProduct, 1e-4 * std::max(1.0, std::abs(n.dotProduct)));

    // What the user reads is those numbers.
    using qkv::ui::StepView;
    EXPECT_TRUE(view->dotText().contains(StepView::number(h.scores(query, key) * std::sqrt(double(d_k)))));
    EXPECT_TRUE(view->scaleText().contains(StepView::number(h.scores(query, key))));
    EXPECT_TRUE(view->softmaxText().contains(StepView::number(h.attention(query, key))));
    EXPECT_TRUE(view->outputText().contains(StepView::number(a.headOutputs(query, head * d_k))));
}

TEST_F(WindowTest, StepByStepShowsTheMask)
{
    qkv::Config config = smallConfig();
    config.mode = qkv::AttentionMode::DecoderCausal;
    config.targetText = "le chat est assis";
    setConfig(config);
    window->tabs()->setCurrentWidget(window->stepView());
    window->selection()->setHead(0);
    window->selection()->setCell(0, 2);  // query 0 cannot see key 2
    const qkv::ui::StepView* view = window->stepView();
    EXPECT_TRUE(view->numbers().masked);
    EXPECT_EQ(view->numbers().weight, 0.0);
    EXPECT_TRUE(view->maskText().contains(QStringLiteral("key 2 is hidden from query 0 (it comes later)")));
    EXPECT_TRUE(view->maskText().contains(QStringLiteral("−∞")));
    window->selection()->setCell(2, 0);
    EXPECT_FALSE(view->numbers().masked);
}
