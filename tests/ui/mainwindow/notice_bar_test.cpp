// A message longer than the status bar's line (a checkpoint layer's notes) is shown whole above
// the views until dismissed or replaced; a short one stays in the status bar alone.

#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>
#include <QToolButton>


#include "core/checkpoint/checkpoint.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/mainwindow/notice_bar.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "support/test_paths.hpp"

namespace qkv::ui::testing {
namespace {

TEST_F(WindowTest, ACheckpointLayersNotesAreShownWholeAboveTheViews)
{
    NoticeBar* bar = window->noticeBar();
    ASSERT_NE(bar, nullptr);
    EXPECT_FALSE(bar->isVisible());

    const std::string t5 = std::string(qkv::testDataDir()) + "/checkpoint/t5/model.safetensors";
    Expected<Checkpoint> checkpoint = openCheckpoint(t5);
    ASSERT_TRUE(checkpoint.ok()) << checkpoint.error();
    QSignalSpy loaded(window.get(), &MainWindow::checkpointLayerLoaded);
    window->loadCheckpointLayer(*checkpoint, checkpoint->layers.front());
    ASSERT_TRUE(loaded.wait(10000));
    settle();
    ASSERT_TRUE(bar->isVisible());
    // The note a student needs, which the one-line status bar cut off.
    EXPECT_TRUE(bar->message().contains(QStringLiteral("relative position bias"))) << bar->message().toStdString();
    EXPECT_EQ(window->statusBar()->currentMessage(), bar->message());
    EXPECT_LE(bar->mapTo(window.get(), QPoint(0, bar->height())).y(), window->tabs()->mapTo(window.get(), QPoint(0, 0)).y());

    QTest::mouseClick(bar->dismissButton(), Qt::LeftButton);
    EXPECT_FALSE(bar->isVisible());

    emit window->document()->notice(QStringLiteral("A long message. ").repeated(40));
    EXPECT_TRUE(bar->isVisible());
    emit window->document()->notice(QStringLiteral("Short."));
    EXPECT_FALSE(bar->isVisible());  // replaced by a message the status bar shows whole
    EXPECT_EQ(window->statusBar()->currentMessage(), QStringLiteral("Short."));
}

// A message of many lines at the smallest window: the strip holds at most kMaxLines lines and
// scrolls the rest, so the views keep their room and the window does not grow by itself.
TEST_F(WindowTest, ALongMessageScrollsInItsStripAndTheWindowKeepsItsSize)
{
    window->resize(1000, 700);
    settle();
    emit window->document()->notice(QStringLiteral("A message of a checkpoint's many notes, word after word. ").repeated(30));
    settle();
    QTest::qWait(50);
    NoticeBar* bar = window->noticeBar();
    ASSERT_TRUE(bar->isVisible());
    EXPECT_EQ(window->size(), QSize(1000, 700));
    const int lines = bar->textLabel()->fontMetrics().lineSpacing();
    EXPECT_LE(bar->height(), lines * (NoticeBar::kMaxLines + 1) + 8);
    EXPECT_GT(bar->textLabel()->height(), bar->height()) << "the rest scrolls";
    // A shorter one is as tall as its lines.
    bar->setMessage(QStringLiteral("A message longer than the status bar's line. ").repeated(3));
    settle();
    ASSERT_TRUE(bar->isVisible());
    EXPECT_LT(bar->height(), lines * 2 + 12);
    EXPECT_EQ(window->size(), QSize(1000, 700));
}

}  // namespace
}  // namespace qkv::ui::testing
