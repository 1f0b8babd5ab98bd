// The guide's patching step on a 1000 x 700 window: it opens the demo model, types the clean
// sentence (one undo step) and the corrupted prompt on the Predict tab's Patching page, points at
// the page, and says in one sentence per grid what the patching measured, from core's numbers.

#include <QLabel>
#include <QLineEdit>
#include <QTabWidget>
#include <QUndoStack>

#include <algorithm>

#include "core/pipeline/patching.hpp"
#include "core/pipeline/pretrained_run.hpp"
#include "tests/ui/guide/demo_guide_fixture.hpp"
#include "tests/ui/support/recording_prompts.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/document/document.hpp"
#include "ui/guide/guide_panel.hpp"
#include "ui/guide/guide_steps.hpp"
#include "ui/guide/guide_targets.hpp"
#include "ui/guide/highlight_overlay.hpp"
#include "ui/guide/student_guide.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/patching/patch_grid_canvas.hpp"
#include "ui/patching/patching_data.hpp"
#include "ui/patching/patching_panel.hpp"
#include "ui/predict/prediction_view.hpp"
#include "ui/views/result_view.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui::testing {
namespace {

constexpr int kCircuits = 10;
constexpr int kPatching = 11;  // after "What does a head write into the prediction?"

using PatchingGuideTest = DemoGuideTest;

TEST_F(PatchingGuideTest, TheStepPatchesTheGuidesPromptsAndSaysWhatTheGridsShow)
{
    const GuideStep& step = guideSteps()[kPatching];
    ASSERT_EQ(step.target, GuideTarget::PatchingGrids);
    EXPECT_LT(step.text.size(), 480);
    reach(kCircuits);
    ASSERT_TRUE(window->holdsDemoModel());
    const int steps = window->document()->undoStack()->count();

    reach(kPatching);
    EXPECT_EQ(window->document()->config().targetText, step.state.sentence.toStdString());
    EXPECT_EQ(window->document()->undoStack()->count(), steps + 1) << "the sentence is one edit";
    const auto* view = qobject_cast<ResultView*>(window->tabs()->currentWidget());
    ASSERT_NE(view, nullptr);
    EXPECT_EQ(view->id(), QStringLiteral("predictions"));
    auto* panel = window->findChild<PatchingPanel*>();
    ASSERT_NE(panel, nullptr);
    EXPECT_EQ(targetWidget(*window, step.target), panel);
    EXPECT_EQ(guide->overlay()->target(), panel);
    auto* predict = static_cast<PredictionView*>(window->tabs()->view(PredictionView::kId));
    EXPECT_EQ(predict->pages()->currentWidget(), panel) << "the Patching page is shown";
    const QRect shown = visibleRect(*panel->headsCanvas(), *window);
    EXPECT_GE(shown.width(), 150);
    EXPECT_GE(shown.height(), 100);
    EXPECT_EQ(panel->corruptEdit()->text(), step.state.corrupted);
    ASSERT_TRUE(panel->grids()) << panel->statusLabel()->text().toStdString();

    // Core's grids for the two prompts, computed here: the panel's sentences from them.
    const PretrainedModel& model = *window->tabs()->wholeModelRuns()->model();
    Expected<ModelSentences> clean = modelSentences(model, "", step.state.sentence.toStdString());
    Expected<ModelSentences> corrupt = modelSentences(model, "", step.state.corrupted.toStdString());
    ASSERT_TRUE(clean && corrupt);
    Expected<PatchingRuns> runs = patchingRuns(model, clean->tokens.ids, corrupt->tokens.ids);
    ASSERT_TRUE(runs) << runs.error();
    Expected<PatchingReadouts> readouts = patchingReadouts(model, *runs);
    ASSERT_TRUE(readouts) << readouts.error();
    Expected<std::int32_t> e = singleTokenId(model, " e", "answer");
    Expected<std::int32_t> f = singleTokenId(model, " f", "wrong token");
    ASSERT_TRUE(e && f);
    Expected<PatchingGrids> grids = patchingGrids(model, *readouts, *e, *f);
    ASSERT_TRUE(grids) << grids.error();
    EXPECT_EQ(panel->grids()->answer, *e) << "the model answers e";
    EXPECT_EQ(panel->grids()->wrong, *f) << "and f on the corrupted prompt";
    const QString where = guide->panel()->whereLabel()->text();
    const QString heads = headsSentence(*panel->prompts(), *grids);
    const QString residual = residualSentence(*panel->prompts(), *grids);
    EXPECT_TRUE(where.contains(heads.toHtmlEscaped())) << where.toStdString() << "\n" << heads.toStdString();
    EXPECT_TRUE(where.contains(residual.toHtmlEscaped())) << where.toStdString() << "\n" << residual.toStdString();
    // What the demo model's run shows: the induction head 1.1 carries most of the answer, which
    // enters at the changed position 4.
    EXPECT_TRUE(heads.startsWith(QStringLiteral("Heads: 1.1 recovers"))) << heads.toStdString();
    EXPECT_TRUE(residual.contains(QStringLiteral("position 4"))) << residual.toStdString();
}

}  // namespace
}  // namespace qkv::ui::testing
