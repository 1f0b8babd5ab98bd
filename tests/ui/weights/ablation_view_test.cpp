// Switching heads off: the editor's switch and the heads grid change
// config.ablatedHeads as one undo step, panel titles say "off", and the numbers shown are the
// core's (core/analysis/head_ablation.hpp), not the view's own.

#include <QContextMenuEvent>
#include <QLabel>
#include <QSignalSpy>
#include <QToolButton>

#include "core/analysis/head_ablation.hpp"
#include "tests/ui/weights/editor_test_support.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/weights/head_weights_figures.hpp"

namespace qkv::ui {
namespace {

using testing::editorConfig;
using testing::EditorFixture;

TEST(Ablation, TheEditorsSwitchTogglesTheHeadAsOneUndoStep)
{
    EditorFixture f(editorConfig());
    f.selection.setHead(2);
    f.waitForModel();
    const int steps = f.document.undoStack()->count();
    EXPECT_FALSE(f.view.switchOffButton()->isChecked());
    f.view.switchOffButton()->click();
    f.waitForModel();
    EXPECT_EQ(f.document.config().ablatedHeads, std::vector<qkv::Index>{2});
    EXPECT_EQ(f.document.undoStack()->count(), steps + 1);
    EXPECT_TRUE(f.view.switchOffButton()->isChecked());
    EXPECT_TRUE(f.document.result()->attention.isAblated(2));
    f.view.switchOffButton()->click();
    f.waitForModel();
    EXPECT_TRUE(f.document.config().ablatedHeads.empty());
    f.document.undoStack()->undo();
    f.waitForModel();
    EXPECT_EQ(f.document.config().ablatedHeads, std::vector<qkv::Index>{2});
    EXPECT_TRUE(f.view.switchOffButton()->isChecked());
}

TEST(Ablation, TheDisplayedEffectIsTheCoresNumber)
{
    EditorFixture f(editorConfig());
    f.selection.setHead(1);
    f.selection.setCell(2, 0);
    f.waitForModel();
    const auto core = qkv::ablationEffects(*f.document.result());
    ASSERT_TRUE(core.ok()) << core.error();
    const qkv::AblationEffects* shown = f.view.model()->effects();
    ASSERT_TRUE(shown);
    ASSERT_EQ(shown->relativeChange.rows(), core->relativeChange.rows());
    EXPECT_TRUE((shown->relativeChange.array() == core->relativeChange.array()).all());
    EXPECT_EQ(shown->mostImportantHead, core->mostImportantHead);
    const QString expected = percentText(core->relativeChange(2, 1));
    EXPECT_TRUE(f.view.ablationLabel()->text().contains(QStringLiteral("Ablating head 2")))
        << f.view.ablationLabel()->text().toStdString();
    EXPECT_TRUE(f.view.ablationLabel()->text().endsWith(expected)) << f.view.ablationLabel()->text().toStdString();
    // Independently: ||head_i W^O_i|| / ||output|| for query 2 and head 1, from the stored blocks.
    const qkv::Result& r = *f.document.result();
    const qkv::Index d_k = r.config.d_k();
    const Eigen::MatrixXd contribution = r.attention.headOutputs.block(2, d_k, 1, d_k).cast<double>() *
                                         r.weights->outputProjection.middleRows(d_k, d_k).cast<double>();
    const double relative = contribution.norm() / r.attention.output.row(2).cast<double>().norm();
    EXPECT_NEAR(core->relativeChange(2, 1), relative, 1e-5);
}

TEST(Ablation, PanelTitlesSayOff)
{
    const QStringList titles = panelHeadTitles({QStringLiteral("random"), QStringLiteral("random")}, {1});
    EXPECT_EQ(titles, (QStringList{QStringLiteral("Head 1 · random"), QStringLiteral("Head 2 · random · off")}));
    // Every head says what it is, random ones included.
    EXPECT_EQ(panelHeadTitles({QStringLiteral("random"), QStringLiteral("random")}),
              (QStringList{QStringLiteral("Head 1 · random"), QStringLiteral("Head 2 · random")}));
}

TEST(Ablation, RightClickingAHeadPanelOffersToSwitchItOff)
{
    auto result = qkv::compute(editorConfig());
    ASSERT_TRUE(result.ok());
    HeadSelection selection;
    HeadsView view(&selection);
    view.setResult(result.value());
    view.resize(1200, 800);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.ensureCurrent();
    HeadsCanvas* canvas = view.canvas();
    // Nobody listens yet: the event goes on to the view's own menu (Export Figure).
    const QPoint inHead2 = canvas->cellCenter(2, 0, 0);
    ASSERT_EQ(canvas->headAt(inHead2), 2);
    QContextMenuEvent first(QContextMenuEvent::Mouse, inHead2, canvas->mapToGlobal(inHead2));
    QApplication::sendEvent(canvas, &first);
    EXPECT_FALSE(first.isAccepted());
    QSignalSpy spy(canvas, &HeadsCanvas::headContextMenuRequested);
    QContextMenuEvent second(QContextMenuEvent::Mouse, inHead2, canvas->mapToGlobal(inHead2));
    QApplication::sendEvent(canvas, &second);
    EXPECT_TRUE(second.isAccepted());
    ASSERT_EQ(spy.count(), 1);
    EXPECT_EQ(spy[0][0].toInt(), 2);
    EXPECT_EQ(selection.head(), 2);
}

}  // namespace
}  // namespace qkv::ui
