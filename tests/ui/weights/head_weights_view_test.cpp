// The weights editor: every action changes the document's weights exactly as the core's edit
// (core/weights/head_edits.hpp) does to the weights before it, is one undo step, and undo
// restores the weights bit for bit; painting merges a stroke into one step; d_model 1024 stays
// responsive; grouped-query attention says whose W^K and W^V are shown.

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>

#include "core/weights/head_edits.hpp"
#include "tests/ui/support/text_probe.hpp"
#include "tests/ui/weights/editor_test_support.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/weights/head_weights_figures.hpp"

namespace qkv::ui {
namespace {

using testing::editorConfig;
using testing::EditorFixture;
using testing::sameWeights;

// Runs `act`, then checks the weights against `expected`, one more undo step, and that undo
// gives back `before` bit for bit (and redo `expected`).
void checkOneUndoStep(EditorFixture& f, const std::function<void()>& act, const qkv::AttentionWeights& expected)
{
    const auto before = f.weights();
    const int steps = f.document.undoStack()->count();
    act();
    f.waitForModel();
    EXPECT_TRUE(sameWeights(*f.weights(), expected));
    EXPECT_EQ(f.document.undoStack()->count(), steps + 1);
    f.document.undoStack()->undo();
    f.waitForModel();
    EXPECT_TRUE(sameWeights(*f.weights(), *before));
    f.document.undoStack()->redo();
    f.waitForModel();
    EXPECT_TRUE(sameWeights(*f.weights(), expected));
}

class HeadWeightsViewTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        f.selection.setHead(1);
        f.waitForModel();
    }
    qkv::HeadGrouping g() const { return f.document.config().grouping(); }
    EditorFixture f{editorConfig()};
};

TEST_F(HeadWeightsViewTest, ShowsTheHeadsFourBlocksAsTheCoreHasThem)
{
    const auto& m = *f.view.model();
    EXPECT_EQ(m.head(), 1);
    for (const qkv::HeadMatrix matrix : kHeadMatrices)
        EXPECT_TRUE((m.block(matrix).array() == qkv::headBlock(*f.weights(), g(), 1, matrix).array()).all());
    EXPECT_EQ(m.rows(qkv::HeadMatrix::Query), 32);
    EXPECT_EQ(m.columns(qkv::HeadMatrix::Query), 8);
    EXPECT_EQ(m.rows(qkv::HeadMatrix::Output), 8);
    EXPECT_EQ(m.columns(qkv::HeadMatrix::Output), 32);
    EXPECT_EQ(m.shapeText(qkv::HeadMatrix::Output), QStringLiteral("d_k × d_model = 8 × 32"));
    EXPECT_EQ(f.view.title(), QStringLiteral("&Weights"));
    EXPECT_EQ(figureNamesOfView(f.view.id()), QStringList{QStringLiteral("head-weights")});
    // Fits the tab of a 1000 px window (the controls panel takes ~340 px).
    EXPECT_LE(f.view.minimumSizeHint().width(), 640);
}

TEST_F(HeadWeightsViewTest, ScaleAndZeroAreTheCoresScale)
{
    f.view.blockBox()->setCurrentIndex(static_cast<int>(qkv::HeadMatrix::Value));
    f.view.factorBox()->setValue(-1.5);
    checkOneUndoStep(
        f, [&] { f.view.scaleButton()->click(); },
        qkv::scaleHeadBlock(*f.weights(), g(), 1, qkv::HeadMatrix::Value, -1.5f).value());
    f.view.blockBox()->setCurrentIndex(static_cast<int>(qkv::HeadMatrix::Query));
    checkOneUndoStep(
        f, [&] { f.view.zeroButton()->click(); },
        qkv::scaleHeadBlock(*f.weights(), g(), 1, qkv::HeadMatrix::Query, 0.0f).value());
    EXPECT_TRUE(f.view.model()->block(qkv::HeadMatrix::Query).isZero(0));
}

TEST_F(HeadWeightsViewTest, ScalingAllFourBlocksIsStillOneStep)
{
    f.view.blockBox()->setCurrentIndex(kHeadMatrixCount);  // "All four"
    f.view.factorBox()->setValue(0.5);
    qkv::AttentionWeights expected = *f.weights();
    for (const qkv::HeadMatrix m : kHeadMatrices) expected = qkv::scaleHeadBlock(expected, g(), 1, m, 0.5f).value();
    checkOneUndoStep(
        f, [&] { f.view.scaleButton()->click(); }, expected);
}

TEST_F(HeadWeightsViewTest, SwapRerandomiseAndCopyAreTheCoresEdits)
{
    checkOneUndoStep(
        f, [&] { f.view.swapButton()->click(); }, qkv::swapQueryAndKey(*f.weights(), g(), 1));
    f.view.seedBox()->setValue(77);
    checkOneUndoStep(
        f, [&] { f.view.rerandomiseButton()->click(); },
        qkv::rerandomiseHead(*f.weights(), g(), 1, 77, f.document.config().init));
    f.view.copyTargetBox()->setCurrentIndex(3);
    checkOneUndoStep(
        f, [&] { f.view.copyButton()->click(); }, qkv::copyHead(*f.weights(), g(), 1, 3));
    EXPECT_TRUE((qkv::headBlock(*f.weights(), g(), 3, qkv::HeadMatrix::Output).array() ==
                 qkv::headBlock(*f.weights(), g(), 1, qkv::HeadMatrix::Output).array())
                    .all());
}

TEST_F(HeadWeightsViewTest, ClickingACellAndTypingAValueSetsThatEntry)
{
    const auto& m = *f.view.model();
    const QRectF cells = f.view.geometry().cells[HeadWeightsModel::index(qkv::HeadMatrix::Key)];
    const qkv::Index row = 5, column = 3;
    const QPointF centre(
        cells.left() + (column + 0.5) * cells.width() / static_cast<double>(m.columns(qkv::HeadMatrix::Key)),
        cells.top() + (row + 0.5) * cells.height() / static_cast<double>(m.rows(qkv::HeadMatrix::Key)));
    QTest::mouseClick(f.view.canvas(), Qt::LeftButton, {}, centre.toPoint());
    ASSERT_EQ(f.view.editedCell().matrix, static_cast<int>(qkv::HeadMatrix::Key));
    EXPECT_EQ(f.view.editedCell().row, row);
    EXPECT_EQ(f.view.editedCell().column, column);
    EXPECT_FLOAT_EQ(static_cast<float>(f.view.valueBox()->value()),
                    std::round(m.block(qkv::HeadMatrix::Key)(row, column) * 1e4f) / 1e4f);
    EXPECT_TRUE(f.view.valueBox()->hasFocus());
    f.view.valueBox()->setValue(2.5);
    checkOneUndoStep(
        f, [&] { f.view.setButton()->click(); },
        qkv::setHeadEntry(*f.weights(), g(), 1, qkv::HeadMatrix::Key, row, column, 2.5f).value());
    EXPECT_EQ(f.view.model()->block(qkv::HeadMatrix::Key)(row, column), 2.5f);
}

TEST_F(HeadWeightsViewTest, APaintStrokeIsOneUndoStepAndTheNextStrokeAnother)
{
    ASSERT_TRUE(f.view.paintButton()->isEnabled());  // d_model 32 <= 64
    f.view.paintButton()->setChecked(true);
    f.view.valueBox()->setValue(1.25);
    const auto before = f.weights();
    const int steps = f.document.undoStack()->count();
    const QRectF cells = f.view.geometry().cells[HeadWeightsModel::index(qkv::HeadMatrix::Query)];
    const auto at = [&](qkv::Index row, qkv::Index column) {
        return QPointF(cells.left() + (column + 0.5) * cells.width() / 8.0,
                       cells.top() + (row + 0.5) * cells.height() / 32.0)
            .toPoint();
    };
    const auto stroke = [&](qkv::Index row) {
        QTest::mousePress(f.view.canvas(), Qt::LeftButton, {}, at(row, 0));
        for (qkv::Index c = 1; c < 4; ++c) {
            QMouseEvent move(QEvent::MouseMove, QPointF(at(row, c)), f.view.canvas()->mapToGlobal(QPointF(at(row, c))),
                             Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(f.view.canvas(), &move);
            f.document.waitUntilIdle();
            QApplication::processEvents();
        }
        QTest::mouseRelease(f.view.canvas(), Qt::LeftButton, {}, at(row, 3));
        f.waitForModel();
    };
    stroke(2);
    qkv::AttentionWeights expected = *before;
    for (qkv::Index c = 0; c < 4; ++c)
        expected = qkv::setHeadEntry(expected, g(), 1, qkv::HeadMatrix::Query, 2, c, 1.25f).value();
    EXPECT_TRUE(sameWeights(*f.weights(), expected));
    EXPECT_EQ(f.document.undoStack()->count(), steps + 1);
    stroke(6);
    EXPECT_EQ(f.document.undoStack()->count(), steps + 2);
    f.document.undoStack()->undo();
    f.waitForModel();
    EXPECT_TRUE(sameWeights(*f.weights(), expected));
    f.document.undoStack()->undo();
    f.waitForModel();
    EXPECT_TRUE(sameWeights(*f.weights(), *before));
}

TEST_F(HeadWeightsViewTest, APresetFromTheEditorIsTheHeadMenusPreset)
{
    QMenu* menu = f.view.presetButton()->menu();
    ASSERT_TRUE(menu);
    emit menu->aboutToShow();
    QAction* uniform = nullptr;
    for (QAction* a : menu->actions())
        if (a->text() == QStringLiteral("Uniform")) uniform = a;
    ASSERT_TRUE(uniform);
    const int steps = f.document.undoStack()->count();
    uniform->trigger();
    f.waitForModel();
    ASSERT_TRUE(f.document.config().presetFor(1));
    EXPECT_EQ(f.document.config().presetFor(1)->kind, qkv::HeadPresetKind::Uniform);
    EXPECT_EQ(f.document.undoStack()->count(), steps + 1);
    EXPECT_TRUE(f.view.model()->block(qkv::HeadMatrix::Query).isZero(0));  // uniform: W_i^Q = 0
}

TEST(HeadWeightsViewLarge, AtDModel1024TheEditorRefreshesWithoutHanging)
{
    EditorFixture f(editorConfig(1024, 16));
    QElapsedTimer timer;
    timer.start();
    f.selection.setHead(5);
    f.waitForModel();
    EXPECT_EQ(f.view.model()->head(), 5);
    EXPECT_LT(timer.elapsed(), 20000);
    for (const qkv::HeadMatrix m : kHeadMatrices) {
        EXPECT_LE(f.view.model()->picture(m).image.height(), kPictureSide);  // drawn pooled
        EXPECT_LE(f.view.model()->picture(m).image.width(), kPictureSide);
    }
    EXPECT_FALSE(f.view.paintButton()->isEnabled());
    f.view.factorBox()->setValue(3.0);
    f.view.blockBox()->setCurrentIndex(static_cast<int>(qkv::HeadMatrix::Output));
    const auto expected =
        qkv::scaleHeadBlock(*f.weights(), f.document.config().grouping(), 5, qkv::HeadMatrix::Output, 3.0f).value();
    f.view.scaleButton()->click();
    f.waitForModel();
    EXPECT_TRUE(sameWeights(*f.weights(), expected));
    EXPECT_FALSE(f.view.grab().isNull());
}

TEST(HeadWeightsViewGrouped, SaysWhoseKeyAndValueBlocksAreShown)
{
    EditorFixture f(editorConfig(32, 4, 2));
    f.selection.setHead(3);
    f.waitForModel();
    const auto& m = *f.view.model();
    EXPECT_TRUE(m.grouped());
    EXPECT_EQ(m.keyValueHead(), 1);
    EXPECT_EQ(m.name(qkv::HeadMatrix::Key), QStringLiteral("W_4^K (key/value head 2's)"));
    EXPECT_EQ(m.name(qkv::HeadMatrix::Value), QStringLiteral("W_4^V (key/value head 2's)"));
    EXPECT_EQ(m.name(qkv::HeadMatrix::Query), QStringLiteral("W_4^Q"));
    EXPECT_EQ(m.columns(qkv::HeadMatrix::Key), 8);
}

// The blocks' titles stay apart at the window's widths: "W_2^K (key/value head 1's)" touched
// "W_2^V" at 1400 x 900. Each label is its block's width, and under grouping what a block is
// shared as has its own line.
TEST(HeadWeightsViewGrouped, TheBlocksTitlesNeverTouch)
{
    EditorFixture f(editorConfig(32, 4, 2));
    f.selection.setHead(1);
    f.waitForModel();
    const HeadWeightsModel& m = *f.view.model();
    ASSERT_TRUE(m.grouped());
    for (const QSize size : {QSize(700, 560), QSize(1000, 700), QSize(1400, 900)}) {
        qkv::ui::testing::TextProbe probe(size);
        {
            QPainter painter(&probe);
            paintHeadWeights(painter, QRectF(QPointF(0, 0), QSizeF(size)), m, FigureOptions{});
        }
        const HeadWeightsGeometry g =
            headWeightsGeometry(QRectF(QPointF(0, 0), QSizeF(size)), QFontMetricsF(figureFont(), &probe), true);
        const QRectF& q = g.labels[HeadWeightsModel::index(qkv::HeadMatrix::Query)];
        const QRectF& k = g.labels[HeadWeightsModel::index(qkv::HeadMatrix::Key)];
        const QRectF& v = g.labels[HeadWeightsModel::index(qkv::HeadMatrix::Value)];
        EXPECT_LT(q.right(), k.left());
        EXPECT_LT(k.right(), v.left());
        // The drawn texts above the blocks (left of the ablation panel): at least 6 pixels apart.
        std::vector<qkv::ui::testing::DrawnText> titles;
        for (const qkv::ui::testing::DrawnText& t : probe.texts())
            if (t.bounds.center().y() < g.cells[0].top() && t.bounds.center().x() < g.ablation.left())
                titles.push_back(t);
        for (std::size_t i = 0; i < titles.size(); ++i)
            for (std::size_t j = i + 1; j < titles.size(); ++j)
                EXPECT_FALSE(titles[i].bounds.adjusted(-3, 0, 3, 0).intersects(titles[j].bounds))
                    << "'" << titles[i].text.toStdString() << "' touches '" << titles[j].text.toStdString() << "' at "
                    << size.width() << " x " << size.height();
        EXPECT_TRUE(probe.strings().contains(QStringLiteral("(key/value head 1's)")));
    }
}

}  // namespace
}  // namespace qkv::ui
