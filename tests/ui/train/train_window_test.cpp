// The Train tab in the main window: the last tab, titled and tipped like the views; closing the
// window or opening a session while a model is not kept asks first, and nothing saved is lost.

#include <QPushButton>
#include <QTabBar>
#include <QTemporaryDir>

#include "tests/ui/support/recording_prompts.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "tests/ui/train/train_test_support.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/status_summary.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/train/train_tab.hpp"
#include "ui/train/training_worker.hpp"

namespace qkv::ui::testing {
namespace {

class TrainWindowTest : public WindowTest {
protected:
    void SetUp() override
    {
        WindowTest::SetUp();
        log = std::make_shared<PromptLog>();
        FilePrompts prompts = recordingPrompts(log);
        prompts.askToStopTraining = [this](const QString& action) {
            asked << action;
            return stopTraining;
        };
        window->files()->setPrompts(prompts);
        tab()->worker()->setPublishInterval(30);
        makeSmall(*tab()->form(), 100000);
    }
    TrainTab* tab() const { return window->trainTab(); }
    void startTraining()
    {
        tab()->startButton()->click();
        ASSERT_TRUE(waitFor(tab(), &TrainTab::snapshotShown,
                            [&] { return tab()->worker()->latest() && tab()->worker()->latest()->steps > 0; }));
    }

    std::shared_ptr<PromptLog> log;
    QStringList asked;
    bool stopTraining = false;
};

TEST_F(TrainWindowTest, TheTrainTabIsLastAfterEveryViewWithItsToolTip)
{
    ViewTabs* tabs = window->tabs();
    ASSERT_EQ(tabs->count(), static_cast<int>(tabs->views().size()) + 1);
    EXPECT_EQ(tabs->widget(tabs->count() - 1), tab());
    EXPECT_EQ(tabs->tabText(tabs->count() - 1), TrainTab::title());
    EXPECT_EQ(tabs->tabToolTip(tabs->count() - 1), TrainTab::summary());
    // Choosing it is no view option: the session's tab stays the view last shown.
    const std::string before = window->document()->viewOptions().tab;
    tabs->setCurrentWidget(tab());
    EXPECT_EQ(window->document()->viewOptions().tab, before);
}

TEST_F(TrainWindowTest, ClosingWhileTrainingAsksAndCancelKeepsItRunning)
{
    startTraining();
    stopTraining = false;
    EXPECT_FALSE(window->close());
    ASSERT_EQ(asked.size(), 1);
    EXPECT_TRUE(asked.front().contains(QStringLiteral("close")));
    EXPECT_TRUE(tab()->worker()->hasRun());
    EXPECT_TRUE(window->document()->isPreviewing());

    stopTraining = true;
    log->answer = QMessageBox::Discard;
    EXPECT_TRUE(window->close());
    EXPECT_FALSE(tab()->worker()->hasRun());
    EXPECT_FALSE(window->document()->isPreviewing());
    EXPECT_EQ(window->document()->config(), smallConfig());
}

TEST_F(TrainWindowTest, OpeningASessionWhileTrainingAsksFirst)
{
    QTemporaryDir directory;
    const QString path = directory.filePath(QStringLiteral("other.qkv.json"));
    qkv::Session other;
    other.config = smallConfig();
    other.config.seed = 77;
    ASSERT_TRUE(qkv::writeSession(path.toStdString(), other).ok());
    startTraining();

    stopTraining = false;
    EXPECT_TRUE(window->files()->openFile(path).isEmpty());
    EXPECT_EQ(asked.size(), 1);
    EXPECT_TRUE(tab()->worker()->hasRun());
    EXPECT_NE(window->document()->documentSession().config.seed, 77u);

    stopTraining = true;
    EXPECT_TRUE(window->files()->openFile(path).isEmpty());
    EXPECT_EQ(asked.size(), 2);
    EXPECT_FALSE(tab()->worker()->hasRun());
    EXPECT_FALSE(window->document()->isPreviewing());
    EXPECT_EQ(window->document()->config().seed, 77u);
}

// Loading weights, a checkpoint's layer or a model while a trained model is not kept asks as New
// does: Cancel keeps the training, Stop drops it and its preview (the document stays).
TEST_F(TrainWindowTest, OpeningACheckpointOrWeightsWhileTrainingAsksFirst)
{
    startTraining();
    stopTraining = false;
    window->openCheckpointInteractively();  // cancelled before any file dialog
    window->openModelInteractively();
    window->loadWeightsInteractively();
    ASSERT_EQ(asked.size(), 3);
    EXPECT_TRUE(asked[0].contains(QStringLiteral("checkpoint")));
    EXPECT_TRUE(asked[1].contains(QStringLiteral("model")));
    EXPECT_TRUE(asked[2].contains(QStringLiteral("weights")));
    EXPECT_TRUE(tab()->worker()->hasRun());
    EXPECT_TRUE(window->document()->isPreviewing());

    stopTraining = true;
    EXPECT_TRUE(window->files()->mayLeaveTraining(QStringLiteral("open a checkpoint")));
    EXPECT_FALSE(tab()->worker()->hasRun());
    EXPECT_FALSE(window->document()->isPreviewing());
    EXPECT_FALSE(tab()->hasUnkeptTraining());
    EXPECT_EQ(window->document()->config(), smallConfig());  // the document is as it was
    EXPECT_TRUE(window->files()->mayLeaveTraining(QStringLiteral("load weights")));  // nothing to ask now
    EXPECT_EQ(asked.size(), 4);
}

TEST_F(TrainWindowTest, SaveWhileTrainingWritesTheDocumentNotThePreview)
{
    QTemporaryDir directory;
    const QString path = directory.filePath(QStringLiteral("saved.qkv.json"));
    startTraining();
    ASSERT_TRUE(window->document()->isPreviewing());
    EXPECT_TRUE(window->files()->saveTo(path).isEmpty());
    const auto saved = qkv::readSession(path.toStdString());
    ASSERT_TRUE(saved.ok()) << saved.error();
    EXPECT_EQ(saved->config, smallConfig());
    EXPECT_FALSE(saved->model);
    EXPECT_TRUE(window->document()->isPreviewing());  // training and its preview go on
}

// The status bar speaks of what the views show: while training previews its model on the held-out
// example, its n_q and n_k, not the document's.
TEST_F(TrainWindowTest, TheStatusBarCountsThePreviewsTokens)
{
    startTraining();
    ASSERT_TRUE(window->document()->isPreviewing());
    ASSERT_TRUE(waitUntil([&] { return !window->document()->isBusy() && window->document()->result(); }));
    const auto result = window->document()->result();
    const QString expected = QStringLiteral("n_q = %1  ·  n_k = %2")
                                 .arg(result->attention.queryCount())
                                 .arg(result->attention.keyCount());
    QLabel* status = window->findChild<StatusSummary*>();
    ASSERT_NE(status, nullptr);
    EXPECT_TRUE(status->text().startsWith(expected)) << status->text().toStdString() << " / " << expected.toStdString();
    EXPECT_NE(result->config.sourceText, smallConfig().sourceText);  // the held-out example, not the document
    tab()->pauseButton()->click();
}

}  // namespace
}  // namespace qkv::ui::testing
