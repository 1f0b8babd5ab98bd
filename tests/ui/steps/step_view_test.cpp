// The step view end to end: every number it shows is the core's (v_j, the head output, the
// Concat block, the output row), under grouped-query attention, rotary positions, unscaled
// scores and ablation; the head, query and key are picked inside the view; the built-in
// example fits 1400 x 900 without scrolling.

#include <QComboBox>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>

#include "tests/ui/support/layer_test_support.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/controls/controls_panel.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/steps/step_figures.hpp"
#include "ui/steps/step_numbers.hpp"
#include "ui/steps/step_view.hpp"

namespace qkv::ui::testing {
namespace {

struct ShownStepView {
    explicit ShownStepView(const qkv::Config& config) : result(computeResult(config))
    {
        showAt(view, QSize(1300, 900));
        view.setResult(result);
    }
    void select(int head, int query, int key)
    {
        view.selection()->setHead(head);
        view.selection()->setCell(query, key);
    }
    std::shared_ptr<const qkv::Result> result;
    StepView view{nullptr};
};

void expectEndToEndNumbers(const StepView& view, const qkv::Result& result, int head, int query, int key)
{
    const StepNumbers& n = view.numbers();
    ASSERT_TRUE(n.valid);
    const qkv::AttentionResult& a = result.attention;
    const qkv::Index d_k = a.d_k();
    const qkv::Index group = a.grouping.keyValueHeadOf(head);
    ASSERT_EQ(static_cast<qkv::Index>(n.v.size()), d_k);
    ASSERT_EQ(n.values.rows(), a.keyCount());
    for (qkv::Index d = 0; d < d_k; ++d) {
        EXPECT_EQ(n.q[d], a.query(query, head * d_k + d));
        EXPECT_EQ(n.k[d], a.key(key, group * d_k + d));
        EXPECT_EQ(n.v[d], a.value(key, group * d_k + d));  // v_j: the key/value head's block
        EXPECT_EQ(n.headOutput[d], a.headOutputs(query, head * d_k + d));
        for (qkv::Index j = 0; j < a.keyCount(); ++j) EXPECT_EQ(n.values(j, d), a.value(j, group * d_k + d));
    }
    // The weighted parts sum over the keys to the core's head output (float rounding).
    for (qkv::Index d = 0; d < d_k; ++d) {
        double sum = 0;
        for (qkv::Index j = 0; j < a.keyCount(); ++j) sum += n.weightedValues(j, d);
        EXPECT_NEAR(sum, a.headOutputs(query, head * d_k + d), 1e-5);
    }
    // Concat as W^O receives it, and the output row.
    ASSERT_EQ(static_cast<qkv::Index>(n.concat.size()), a.query.cols());
    for (qkv::Index c = 0; c < a.query.cols(); ++c)
        EXPECT_EQ(n.concat[c], a.isAblated(c / d_k) ? 0.0f : a.headOutputs(query, c)) << c;
    ASSERT_EQ(static_cast<qkv::Index>(n.output.size()), a.output.cols());
    for (qkv::Index c = 0; c < a.output.cols(); ++c) EXPECT_EQ(n.output[c], a.output(query, c));
    // What the user reads is those numbers.
    const StepTexts t = view.texts();
    EXPECT_TRUE(t.formulas[6].contains(preciseNumber(a.value(key, group * d_k))));
    EXPECT_TRUE(t.formulas[7].contains(preciseNumber(a.headOutputs(query, head * d_k))));
    EXPECT_TRUE(t.formulas[9].contains(preciseNumber(a.output(query, 0))));
    EXPECT_TRUE(t.formulas[5].contains(preciseNumber(a.heads[head].attention(query, key))));
}

TEST(StepView, ShowsTheCoreNumbersFromQAndKToTheOutputRow)
{
    ShownStepView s(crossConfig());
    s.select(2, 3, 1);
    expectEndToEndNumbers(s.view, *s.result, 2, 3, 1);
    // The paper's name of the quantity, then the division with its numbers.
    EXPECT_TRUE(s.view.scaleText().startsWith(QStringLiteral("scaled score q·k/√d_k = ")))
        << s.view.scaleText().toStdString();
    EXPECT_TRUE(s.view.texts().title.contains(QStringLiteral("Head 3")));
}

TEST(StepView, GroupedQueryAttentionNamesTheKeyValueHead)
{
    qkv::Config config = crossConfig();
    config.keyValueHeadCount = 2;  // heads 1-2 read K/V head 1, heads 3-4 K/V head 2
    ShownStepView s(config);
    s.select(3, 1, 2);
    expectEndToEndNumbers(s.view, *s.result, 3, 1, 2);
    EXPECT_EQ(s.view.numbers().keyValueHead, 1);
    EXPECT_TRUE(s.view.texts().formulas[1].contains(QStringLiteral("key/value head 2 of 2")));
    EXPECT_TRUE(s.view.texts().formulas[6].contains(QStringLiteral("key/value head 2 of 2")));
}

// Qwen3's q_norm and k_norm: q_i and k_j are the normalised vectors (their RMS is γ's, here a
// constant 1.5 and 0.5) and the formulas say so.
TEST(StepView, QueryKeyNormsAreNamedInTheFormulasAndShownInTheVectors)
{
    const qkv::Config config = selfConfig();
    auto weights = std::make_shared<qkv::AttentionWeights>(*computeResult(config)->weights);
    const qkv::Index d_k = config.d_k();
    weights->queryNorm = qkv::RowVectorF::Constant(d_k, 1.5f);
    weights->keyNorm = qkv::RowVectorF::Constant(d_k, 0.5f);
    qkv::UserInputs inputs;
    inputs.weights = weights;
    auto result = qkv::compute(config, inputs);
    ASSERT_TRUE(result) << result.error();
    const StepNumbers n = gatherStepNumbers(**result, 1, 2, 3);
    ASSERT_TRUE(n.valid);
    EXPECT_TRUE(n.queryKeyNorm);
    const auto rms = [](const std::vector<float>& v) {
        double sum = 0;
        for (float x : v) sum += double(x) * x;
        return std::sqrt(sum / double(v.size()));
    };
    EXPECT_NEAR(rms(n.q), 1.5, 1e-3);
    EXPECT_NEAR(rms(n.k), 0.5, 1e-3);
    const StepTexts texts = stepTexts(n);
    EXPECT_TRUE(texts.formulas[0].contains(QStringLiteral("RMS-normalised and scaled by γ^Q (q_norm)")))
        << texts.formulas[0].toStdString();
    EXPECT_TRUE(texts.formulas[1].contains(QStringLiteral("scaled by γ^K (k_norm)"))) << texts.formulas[1].toStdString();
    EXPECT_FALSE(stepTexts(gatherStepNumbers(*computeResult(config), 1, 2, 3)).formulas[0].contains(QStringLiteral("q_norm")));
}

TEST(StepView, RotaryPositionsShowQAndKBeforeAndAfterRotation)
{
    qkv::Config config = selfConfig();
    config.positional = qkv::PositionalEncoding::Rotary;
    ShownStepView s(config);
    s.select(1, 4, 2);
    expectEndToEndNumbers(s.view, *s.result, 1, 4, 2);
    const StepNumbers& n = s.view.numbers();
    const qkv::AttentionResult& a = s.result->attention;
    ASSERT_TRUE(n.rotary);
    ASSERT_EQ(static_cast<qkv::Index>(n.qBeforeRotation.size()), a.d_k());
    for (qkv::Index d = 0; d < a.d_k(); ++d) {
        EXPECT_EQ(n.qBeforeRotation[d], a.queryBeforeRotation(4, a.d_k() + d));
        EXPECT_EQ(n.kBeforeRotation[d], a.keyBeforeRotation(2, a.d_k() + d));
    }
    EXPECT_TRUE(s.view.dotText().contains(QStringLiteral("the scores use the rotated q and k")));
}

TEST(StepView, UnscaledLayersSaySoAtTheScaleStep)
{
    qkv::Config config = crossConfig();
    config.scaleScores = false;
    ShownStepView s(config);
    s.select(0, 1, 1);
    EXPECT_TRUE(s.view.scaleText().contains(QStringLiteral("no 1/√d_k (this layer does not scale)")));
    EXPECT_EQ(s.view.numbers().dotProduct, s.result->attention.heads[0].scores(1, 1));
}

TEST(StepView, ASwitchedOffHeadIsZeroInConcatAndSaysSo)
{
    qkv::Config config = crossConfig();
    config.ablatedHeads = {1};
    ShownStepView s(config);
    s.select(1, 2, 3);
    expectEndToEndNumbers(s.view, *s.result, 1, 2, 3);
    EXPECT_TRUE(s.view.numbers().headAblated);
    EXPECT_TRUE(s.view.outputText().contains(QStringLiteral("switched off")));
    EXPECT_TRUE(s.view.texts().formulas[8].contains(QStringLiteral("switched off: Head 2")));
    EXPECT_TRUE(s.view.headBox()->itemText(1).contains(QStringLiteral("switched off")));
}

TEST(StepView, PicksHeadQueryAndKeyWithListsClicksAndArrows)
{
    ShownStepView s(crossConfig());
    s.select(0, 0, 0);
    QApplication::processEvents();
    HeadSelection* selection = s.view.selection();

    // Lists.
    s.view.headBox()->setCurrentIndex(2);
    emit s.view.headBox()->activated(2);
    s.view.queryBox()->setCurrentIndex(3);
    emit s.view.queryBox()->activated(3);
    s.view.keyBox()->setCurrentIndex(4);
    emit s.view.keyBox()->activated(4);
    EXPECT_EQ(selection->head(), 2);
    EXPECT_EQ(selection->queryRow(), 3);
    EXPECT_EQ(selection->keyColumn(), 4);

    // Clicking a key token, a query token, a softmax bar, a value row, a Concat block.
    const StepGeometry g = s.view.geometry();
    const auto chipOf = [](const std::vector<TokenChip>& chips, int position) {
        for (const TokenChip& chip : chips)
            if (chip.position == position) return chip.rect.center().toPoint();
        return QPoint(-1, -1);
    };
    QTest::mouseClick(s.view.canvas(), Qt::LeftButton, {}, chipOf(g.keyChips, 1));
    EXPECT_EQ(selection->keyColumn(), 1);
    QTest::mouseClick(s.view.canvas(), Qt::LeftButton, {}, chipOf(g.queryChips, 2));
    EXPECT_EQ(selection->queryRow(), 2);
    const BarsGeometry bars =
        barsGeometry(g.softmaxBars, s.view.numbers().rowWeights, softmaxBarsStyle(s.view.numbers(), FigureOptions{}),
                     QFontMetricsF(s.view.canvas()->font(), s.view.canvas()));
    QTest::mouseClick(s.view.canvas(), Qt::LeftButton, {},
                      QPointF(bars.plot.left() + 5.5 * bars.slot, bars.plot.center().y()).toPoint());
    EXPECT_EQ(selection->keyColumn(), 5);
    const QRectF cells = s.view.geometry().valueCells;
    QTest::mouseClick(s.view.canvas(), Qt::LeftButton, {},
                      QPointF(cells.center().x(), cells.top() + cells.height() * 3.5 / 6).toPoint());
    EXPECT_EQ(selection->keyColumn(), 3);
    QTest::mouseClick(s.view.canvas(), Qt::LeftButton, {}, s.view.geometry().headBlocks[3].center().toPoint());
    EXPECT_EQ(selection->head(), 3);

    // The keyboard: ↑↓ query, ←→ key, clamped to the sentence.
    s.view.canvas()->setFocus();
    QTest::keyClick(s.view.canvas(), Qt::Key_Down);
    EXPECT_EQ(selection->queryRow(), 3);
    QTest::keyClick(s.view.canvas(), Qt::Key_Left);
    EXPECT_EQ(selection->keyColumn(), 2);
    QTest::keyClick(s.view.canvas(), Qt::Key_End);
    EXPECT_EQ(selection->keyColumn(), 5);
    QTest::keyClick(s.view.canvas(), Qt::Key_Right);
    EXPECT_EQ(selection->keyColumn(), 5);
    EXPECT_EQ(s.view.numbers().key, 5);
    EXPECT_EQ(s.view.keyBox()->currentIndex(), 5);
}

using StepWindowTest = WindowTest;

TEST_F(StepWindowTest, TheBuiltInExampleFits1400x900WithoutScrolling)
{
    setConfig(qkv::builtInExample());
    window->tabs()->setCurrentWidget(window->stepView());
    settle();
    StepView* view = window->stepView();
    ASSERT_TRUE(view->numbers().valid);
    EXPECT_EQ(view->scrollArea()->verticalScrollBar()->maximum(), 0);
    EXPECT_TRUE(view->belowText().isEmpty());
    EXPECT_TRUE(view->geometry().fits);
}

TEST_F(StepWindowTest, WhenTheWindowIsTooSmallItSaysWhatLiesBelow)
{
    setConfig(qkv::builtInExample());
    window->resize(1000, 560);
    window->tabs()->setCurrentWidget(window->stepView());
    settle();
    StepView* view = window->stepView();
    QApplication::processEvents();
    ASSERT_GT(view->scrollArea()->verticalScrollBar()->maximum(), 0);
    EXPECT_TRUE(view->belowText().contains(QStringLiteral("⑩"))) << view->belowText().toStdString();
}

// In a 1000 x 700 window the bars keep a usable height and the tab scrolls to them.
TEST_F(StepWindowTest, At1000x700TheBarsKeepTheirHeightAndTheTabScrolls)
{
    setConfig(qkv::builtInExample());
    window->resize(1000, 700);
    window->tabs()->setCurrentWidget(window->stepView());
    settle();
    StepView* view = window->stepView();
    QApplication::processEvents();
    ASSERT_TRUE(view->numbers().valid);
    const StepGeometry g = view->geometry();
    const double least = minimumBarsHeight(QFontMetricsF(view->canvas()->font(), view->canvas()));
    EXPECT_GE(least, 3 * QFontMetricsF(view->canvas()->font(), view->canvas()).height());
    for (const QRectF& bars : {g.queryBars, g.keyBars, g.productBars, g.outputBars})
        EXPECT_GE(bars.height(), least - 0.5) << bars.height();
    EXPECT_GT(view->scrollArea()->verticalScrollBar()->maximum(), 0);
}

// A long layer's Steps tab says why the steps do not follow it, not Matrices' "full maps".
TEST(StepView, ALongLayerIsCoveredByTheStepsOwnNote)
{
    StepView view(nullptr);
    showAt(view, QSize(1000, 700));
    const auto streamed = streamedResult(crossConfig(), 2);
    ASSERT_TRUE(streamed && streamed->streamed());
    view.setResult(streamed);
    ASSERT_NE(view.longLayerCover(), nullptr);
    const QString note = view.longLayerCover()->text();
    EXPECT_EQ(note, stepsLongLayerNote(*streamed));
    EXPECT_FALSE(note.contains(QStringLiteral("full maps"))) << note.toStdString();
    EXPECT_TRUE(note.contains(QStringLiteral("whole row"))) << note.toStdString();
    EXPECT_TRUE(note.contains(QStringLiteral("Heads tab"))) << note.toStdString();
    // The exported figure says the same.
    const Figure* figure = findFigure(QStringLiteral("steps"));
    ASSERT_NE(figure, nullptr);
    FigureInput input;
    input.result = streamed;
    EXPECT_EQ(figure->whyUnavailable(input), note);
}

}  // namespace
}  // namespace qkv::ui::testing

namespace qkv::ui::testing {
namespace {

using LayoutWindowTest = WindowTest;

// With the controls beside them, the layer views fit a 1000 x 700 window (other views may not:
// the window's minimum is the largest of its pages).
TEST_F(LayoutWindowTest, TheLayerViewsFitA1000x700Window)
{
    const int room = 1000 - window->controls()->minimumSizeHint().width() - 40;
    for (ResultView* view : window->tabs()->views()) {
        const QString name = view->metaObject()->className();
        if (!name.contains(QStringLiteral("StepView")) && !name.contains(QStringLiteral("MatricesView")) &&
            !name.contains(QStringLiteral("QkMapView")) && !name.contains(QStringLiteral("CompareView")))
            continue;
        window->tabs()->setCurrentWidget(view);
        settle();
        EXPECT_LE(view->minimumSizeHint().width(), room) << name.toStdString();
        EXPECT_LE(view->minimumSizeHint().height(), 560) << name.toStdString();
    }
}

// Several queries together: every step is the span's mean, summed here from the core's rows.
TEST(StepSpan, EveryStepIsTheSpansMeanAndTheSoftmaxStepSaysWhichMean)
{
    qkv::Config config = qkv::ui::testing::longConfig(12, 32, 4);
    config.mode = qkv::AttentionMode::DecoderCausal;
    config.targetText = config.sourceText;
    const auto result = computeResult(config);
    ASSERT_TRUE(result);
    const qkv::AttentionResult& a = result->attention;
    const int head = 2, first = 3, end = 8, key = 5;
    const StepNumbers n = gatherSpanStepNumbers(*result, head, first, end, key);
    ASSERT_TRUE(n.valid);
    EXPECT_TRUE(n.isSpan());
    const auto mean = [&](auto&& rowOf) {
        double sum = 0;
        for (int q = first; q < end; ++q) sum += rowOf(q);
        return sum / (end - first);
    };
    for (qkv::Index d = 0; d < a.d_k(); ++d)
        EXPECT_NEAR(n.q[d], mean([&](int q) { return a.queryHead(head)(q, d); }), 1e-6);
    EXPECT_NEAR(n.dotProduct, mean([&](int q) { return a.rawScore(head, q, key); }), 1e-5);
    const qkv::MatrixF& map = a.heads[head].attention;
    for (int j = 0; j < a.keyCount(); ++j) {
        EXPECT_NEAR(n.rowWeights[j], mean([&](int q) { return map(q, j); }), 1e-6) << j;
        EXPECT_EQ(n.keyMasked[j], j >= end) << j;  // causal: key j is seen by the span's queries from j on
    }
    EXPECT_NEAR(n.weight, mean([&](int q) { return map(q, key); }), 1e-6);
    EXPECT_FALSE(n.masked);  // key 5 is seen by queries 5..7
    for (qkv::Index d = 0; d < a.d_v(); ++d)
        EXPECT_NEAR(n.headOutput[d], mean([&](int q) { return a.headOutput(head)(q, d); }), 1e-6);
    for (qkv::Index d = 0; d < a.output.cols(); ++d)
        EXPECT_NEAR(n.output[d], mean([&](int q) { return a.output(q, d); }), 1e-5);

    const StepTexts texts = stepTexts(n);
    EXPECT_TRUE(texts.title.contains(QStringLiteral("queries 3–7 together (5)"))) << texts.title.toStdString();
    EXPECT_TRUE(texts.formulas[5].contains(QStringLiteral("not the softmax of the mean scores")))
        << texts.formulas[5].toStdString();

    // One query is the single-query gathering.
    const StepNumbers one = gatherSpanStepNumbers(*result, head, 4, 5, key);
    EXPECT_FALSE(one.isSpan());
    EXPECT_EQ(one.rowWeights, gatherStepNumbers(*result, head, 4, key).rowWeights);
}

}  // namespace
}  // namespace qkv::ui::testing
