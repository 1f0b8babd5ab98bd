// A long layer in the window (past 4,096 tokens each head's map is streamed and kept in blocks,
// core/pipeline/compute_request.hpp's prepareDrawnCompute): every tab either draws it or says in
// place where it is shown; a long computation shows its progress and stops on Stop, and the
// views keep the result they showed.

#include <QLabel>
#include <QSignalSpy>
#include <QStatusBar>
#include <QToolButton>

#include "core/common/limits.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "ui/document/compute_runner.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/stale_notice.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/views/result_view.hpp"

namespace qkv::ui::testing {
namespace {

class LongLayerTest : public WindowTest {
protected:
    // Decoder self-attention over `tokens` words.
    static qkv::Config longConfig(int tokens, qkv::Index d_model, qkv::Index heads)
    {
        qkv::Config config = smallConfig();
        config.mode = qkv::AttentionMode::DecoderCausal;
        config.d_model = d_model;
        config.headCount = heads;
        config.targetText.clear();
        for (int i = 0; i < tokens; ++i) config.targetText += i % 2 ? "cat " : "sat ";
        return config;
    }
    QToolButton* stopButton() const { return window->findChild<QToolButton*>(QStringLiteral("stopCompute")); }
};

TEST_F(LongLayerTest, EveryTabEitherDrawsALongLayerOrSaysInPlaceWhereItIsShown)
{
    setConfig(longConfig(4200, 16, 2));
    ASSERT_TRUE(window->document()->result());
    ASSERT_TRUE(window->document()->result()->streamed());
    ViewTabs* tabs = window->tabs();
    int covered = 0;
    for (ResultView* view : tabs->views()) {
        tabs->setCurrentWidget(view);
        QCoreApplication::processEvents();
        view->ensureCurrent();
        if (view->drawsLongLayers()) {
            EXPECT_TRUE(!view->longLayerCover() || !view->longLayerCover()->isVisible()) << view->id().toStdString();
            continue;
        }
        ++covered;
        ASSERT_NE(view->longLayerCover(), nullptr) << view->id().toStdString();
        EXPECT_TRUE(view->longLayerCover()->isVisible()) << view->id().toStdString();
        EXPECT_TRUE(view->longLayerCover()->text().contains(QStringLiteral("Heads tab")));
        EXPECT_EQ(view->longLayerCover()->geometry(), view->rect()) << view->id().toStdString();
    }
    EXPECT_GE(covered, 5);
    HeadsView* heads = tabs->headsView();
    tabs->setCurrentWidget(heads);
    ASSERT_TRUE(waitUntil([&] { return !heads->isBusy() && heads->canvas()->figure(); }));
    EXPECT_TRUE(heads->canvas()->figure()->pooled());
    EXPECT_EQ(heads->canvas()->figure()->rows(), limits::drawnPooledBlocks);

    // A short layer again: every view draws it.
    setConfig(smallConfig());
    for (ResultView* view : tabs->views()) {
        tabs->setCurrentWidget(view);
        QCoreApplication::processEvents();
        EXPECT_TRUE(!view->longLayerCover() || !view->longLayerCover()->isVisible()) << view->id().toStdString();
    }
}

TEST_F(LongLayerTest, StopEndsALongComputationAndTheViewsKeepTheLastResult)
{
    const auto shown = window->document()->result();
    ASSERT_TRUE(shown);
    ComputeRunner* runner = window->document()->runner();
    QSignalSpy progress(runner, &ComputeRunner::progress);
    QSignalSpy stopped(runner, &ComputeRunner::stopped);
    // Seconds of work: 32,000 tokens, 8 heads.
    window->document()->edit(longConfig(32000, 64, 8), QStringLiteral("a long text"));
    ASSERT_TRUE(waitUntil([&] { return stopButton() && stopButton()->isVisible(); }));
    ASSERT_TRUE(waitUntil([&] { return !progress.isEmpty() && progress.last().at(1).value<qkv::Index>() > 0; }));
    EXPECT_EQ(progress.last().at(1).value<qkv::Index>(), 8 * 32000);
    EXPECT_TRUE(window->statusBar()->findChildren<QLabel*>().size() > 0);
    stopButton()->click();
    ASSERT_TRUE(waitUntil([&] { return !runner->isBusy(); }));
    QCoreApplication::processEvents();
    EXPECT_EQ(stopped.count(), 1);
    EXPECT_EQ(runner->stoppedCount(), 1);
    EXPECT_EQ(window->document()->result(), shown);  // nothing of the last result is lost
    EXPECT_FALSE(stopButton()->isVisible());
    EXPECT_TRUE(window->staleNotice()->isVisible());
    EXPECT_TRUE(window->staleNotice()->text().contains(QStringLiteral("stopped"))) << window->staleNotice()->text().toStdString();

    // The next edit computes again, and the notice goes.
    setConfig(smallConfig());
    EXPECT_NE(window->document()->result(), shown);
    EXPECT_FALSE(window->staleNotice()->isVisible());
}

TEST_F(LongLayerTest, ANewerEditStopsALongComputationInsteadOfWaitingForIt)
{
    ComputeRunner* runner = window->document()->runner();
    QSignalSpy progress(runner, &ComputeRunner::progress);
    window->document()->edit(longConfig(32000, 64, 8), QStringLiteral("a long text"));
    ASSERT_TRUE(waitUntil([&] { return !progress.isEmpty() && progress.last().at(0).value<qkv::Index>() > 0; }));
    // A short edit supersedes it: the long one stops where it is (its rows never all done).
    const int stoppedBefore = runner->stoppedCount();
    window->document()->edit(smallConfig(), QStringLiteral("a short text"));
    settle();
    ASSERT_TRUE(window->document()->result());
    EXPECT_FALSE(window->document()->result()->streamed());
    EXPECT_EQ(runner->stoppedCount(), stoppedBefore + 1);
    EXPECT_FALSE(window->staleNotice()->isVisible());  // superseded, not stopped by the user
}

}  // namespace
}  // namespace qkv::ui::testing
