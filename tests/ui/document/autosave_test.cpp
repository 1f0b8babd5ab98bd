// The app's last state: restored through the session
// format, loaded and edited weights included; a broken autosave never stops the app.

#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>

#include "core/io/weights_file.hpp"
#include "tests/ui/support/recording_prompts.hpp"
#include "tests/ui/support/session_test_support.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/document/examples.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/status_summary.hpp"

namespace qkv::ui::testing {
namespace {

class AutosaveTest : public WindowTest {
protected:
    void SetUp() override
    {
        WindowTest::SetUp();
        log = std::make_shared<PromptLog>();
        window->files()->setPrompts(recordingPrompts(log));
    }
    // A new window, as the next start of the app.
    std::unique_ptr<MainWindow> restart()
    {
        auto next = std::make_unique<MainWindow>();
        next->document()->waitUntilIdle();
        QCoreApplication::processEvents();
        return next;
    }
    // Loads a weights file and edits head 2: weights the seed cannot regenerate.
    void loadAndEdit()
    {
        weightsFile = directory.filePath(QStringLiteral("layer.safetensors"));
        ASSERT_TRUE(
            saveAttentionWeights(weightsFile.toStdString(), initialiseWeights(64, 5, WeightInit::Normal, true)).ok());
        QSignalSpy loaded(window.get(), &MainWindow::weightsLoaded);
        window->loadWeights(weightsFile);
        ASSERT_TRUE(loaded.wait(10000));
        settle();
        auto edited = std::make_shared<AttentionWeights>(*window->document()->result()->unscaledWeights);
        edited->outputHead(1, window->document()->result()->grouping()).setConstant(0.25f);
        ASSERT_TRUE(window->document()->editWeights(edited, {1}, QStringLiteral("Edit head 2")));
        settle();
    }

    QTemporaryDir directory;
    QString weightsFile;
    std::shared_ptr<PromptLog> log;
};

TEST_F(AutosaveTest, TheFirstStartOpensTheTranslationExample)
{
    window.reset();
    clearAutosave();
    const auto first = restart();
    // Where to begin, in the status bar, until the next message.
    EXPECT_TRUE(first->startupMessage().contains(QStringLiteral("Help > Student Guide (F1)")))
        << first->startupMessage().toStdString();
    EXPECT_EQ(first->statusBar()->currentMessage(), first->startupMessage());
    const Document* document = first->document();
    EXPECT_EQ(document->displayName(), firstStartExample().fileName);
    EXPECT_FALSE(document->isModified());
    EXPECT_EQ(document->config().mode, AttentionMode::Cross);
    ASSERT_TRUE(document->result());
    const auto figure = first->headsView()->canvas()->figure();
    ASSERT_TRUE(figure);
    EXPECT_EQ(figure->panelTitle(0), QStringLiteral("Head 1 · same meaning"));
    EXPECT_EQ(figure->panelTitle(3), QStringLiteral("Head 4 · uniform"));
}

TEST_F(AutosaveTest, ClosingAndStartingAgainRestoresLoadedAndEditedWeights)
{
    loadAndEdit();
    const QString file = directory.filePath(QStringLiteral("mine.qkv.json"));
    ASSERT_EQ(window->files()->saveTo(file), QString());
    window->selection()->setHead(1);  // unsaved view change, kept by Save on close
    log->answer = QMessageBox::Save;
    const auto before = window->document()->result();
    const Session session = window->document()->session();
    ASSERT_TRUE(window->close());
    window.reset();
    QFile::remove(weightsFile);  // the autosave holds the weights themselves

    const auto next = restart();
    ASSERT_TRUE(next->document()->result());
    expectSameResult(*next->document()->result(), *before);
    EXPECT_EQ(next->document()->session().weightsProvenance.heads, session.weightsProvenance.heads);
    EXPECT_EQ(next->document()->filePath(), QFileInfo(file).absoluteFilePath());
    EXPECT_FALSE(next->document()->isModified());
    EXPECT_EQ(next->document()->viewOptions().head, 1);
    EXPECT_EQ(next->headsView()->canvas()->figure()->panelTitle(1), QStringLiteral("Head 2 · edited"));
    // Closing unchanged does not write the (possibly large) autosave again.
    QSignalSpy written(next->autosave(), &Autosave::written);
    EXPECT_TRUE(next->close());
    EXPECT_EQ(written.count(), 0);
    // QSettings keeps the geometry and recent files, never the configuration.
    for (const QString& key : QSettings().allKeys())
        EXPECT_FALSE(key.startsWith(QStringLiteral("lastConfig"))) << key.toStdString();
}

TEST_F(AutosaveTest, AfterACrashTheUnsavedStateComesBackMarkedUnsaved)
{
    window->autosave()->setDelay(0);
    QSignalSpy written(window->autosave(), &Autosave::written);
    loadAndEdit();
    ASSERT_TRUE(waitUntil([&] { return !window->autosave()->isPending() && !window->autosave()->isWriting(); }));
    ASSERT_FALSE(written.isEmpty());
    ASSERT_TRUE(written.last().first().toString().isEmpty()) << written.last().first().toString().toStdString();
    const auto before = window->document()->result();
    window.reset();  // no close event: as if the app had crashed

    const auto next = restart();
    expectSameResult(*next->document()->result(), *before);
    EXPECT_TRUE(next->document()->isModified());
    EXPECT_TRUE(next->isWindowModified());
}

TEST_F(AutosaveTest, DiscardingOnCloseReturnsToTheFileAsSaved)
{
    const QString file = directory.filePath(QStringLiteral("kept.qkv.json"));
    ASSERT_EQ(window->files()->saveTo(file), QString());
    Config config = window->document()->config();
    config.seed = 1234;
    window->document()->edit(config, QStringLiteral("seed"));
    log->answer = QMessageBox::Discard;
    ASSERT_TRUE(window->close());
    window.reset();

    const auto next = restart();
    EXPECT_EQ(next->document()->config().seed, smallConfig().seed);
    EXPECT_EQ(next->document()->filePath(), QFileInfo(file).absoluteFilePath());
    EXPECT_FALSE(next->document()->isModified());
}

TEST_F(AutosaveTest, ABrokenAutosaveFallsBackToTheFirstStartExampleAndSaysSo)
{
    window.reset();
    const QString autosavePath = Autosave::sessionPath(Autosave::defaultDirectory());
    {
        QFile file(autosavePath);
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        file.write("{\"format\": \"qkv-studio-session\", \"version\": 1, \"config\": {\"d_model\": ");
    }
    const auto next = restart();
    EXPECT_TRUE(next->startupMessage().contains(QStringLiteral("could not be restored")))
        << next->startupMessage().toStdString();
    EXPECT_TRUE(next->startupMessage().contains(QStringLiteral("autosave.qkv.json")));
    EXPECT_EQ(next->statusBar()->currentMessage(), next->startupMessage());
    // Shown, the message is not drawn over the status summary (a message shown before the
    // window was left the summary visible beneath it).
    next->show();
    QCoreApplication::processEvents();
    EXPECT_EQ(next->statusBar()->currentMessage(), next->startupMessage());
    const auto* summary = next->findChild<StatusSummary*>();
    ASSERT_NE(summary, nullptr);
    EXPECT_FALSE(summary->isVisible()) << "the summary is drawn under the startup message";
    EXPECT_EQ(next->document()->displayName(), firstStartExample().fileName);
    EXPECT_TRUE(next->document()->result());
    // Moved aside, so the next start is clean (the new state may be autosaved meanwhile).
    EXPECT_TRUE(!QFileInfo::exists(autosavePath) || readSession(autosavePath.toStdString()).ok());
    EXPECT_TRUE(
        QFileInfo::exists(QDir(Autosave::defaultDirectory()).filePath(QStringLiteral("autosave.broken.qkv.json"))));
}

}  // namespace
}  // namespace qkv::ui::testing
