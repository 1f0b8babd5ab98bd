// File > Save, Open, New, Examples and the close prompt: a saved session
// reopens to the same numbers and view; bad files and failed saves say why and change nothing.

#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QUndoStack>

#include "core/analysis/value_norms.hpp"
#include "core/common/limits.hpp"
#include "core/io/weights_file.hpp"
#include "core/presets/head_presets.hpp"
#include "core/session/session.hpp"
#include "tests/ui/support/recording_prompts.hpp"
#include "tests/ui/support/session_test_support.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/controls/controls_panel.hpp"
#include "ui/controls/field_message.hpp"
#include "ui/controls/sentence_field.hpp"
#include "ui/document/examples.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/factored/factored_view.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/view_tabs.hpp"

namespace qkv::ui::testing {
namespace {

class SessionsTest : public WindowTest {
protected:
    void SetUp() override
    {
        WindowTest::SetUp();
        log = std::make_shared<PromptLog>();
        window->files()->setPrompts(recordingPrompts(log));
    }
    DocumentFiles* files() const { return window->files(); }
    Document* document() const { return window->document(); }
    QString path(const char* name) const { return directory.filePath(QString::fromLatin1(name)); }
    HeadPreset preset(Index head, HeadPresetKind kind) const
    {
        HeadPreset p;
        p.head = head;
        p.kind = kind;
        return p;
    }

    QTemporaryDir directory;
    std::shared_ptr<PromptLog> log;
};

TEST_F(SessionsTest, ASavedSessionReopensToTheSameNumbersAndView)
{
    Config config = smallConfig();
    config.keyValueHeadCount = 2;
    config.scales.query = 1.5f;
    config.withBias = true;
    setConfig(config);
    document()->applyPreset(preset(1, HeadPresetKind::SameToken));
    document()->setAblatedHeads({3});
    settle();
    // The view: factored tab, head 3, a cell, and the heads grid's own settings.
    window->tabs()->setCurrentWidget(window->tabs()->factoredView());
    window->selection()->setHead(2);
    window->selection()->setCell(1, 2);
    HeadsView* heads = window->headsView();
    heads->setScoreKind(ScoreKind::ValueWeighted);
    heads->setColormap(ColormapName::Cividis);
    heads->setShowAverage(true);
    heads->zoomBy(1);
    settle();
    const auto saved = document()->result();
    const ViewOptions view = document()->viewOptions();
    EXPECT_EQ(view.tab, "factored");
    EXPECT_EQ(view.show, "value-weighted");
    EXPECT_EQ(view.colormap, "cividis");
    EXPECT_DOUBLE_EQ(view.zoom, 1.25);

    const QString file = path("round trip.qkv.json");
    EXPECT_EQ(files()->saveTo(file), QString());
    EXPECT_FALSE(document()->isModified());
    EXPECT_FALSE(window->isWindowModified());
    EXPECT_TRUE(window->windowTitle().startsWith(QStringLiteral("round trip.qkv.json")));
    EXPECT_TRUE(window->statusBar()->currentMessage().contains(QStringLiteral("round trip.qkv.json")));
    EXPECT_EQ(files()->recentFiles().files().value(0), QFileInfo(file).absoluteFilePath());

    files()->newDocument();
    settle();
    heads->setColormap(ColormapName::Viridis);
    heads->setShowAverage(false);
    heads->zoomToFit();
    window->tabs()->setCurrentWidget(heads);
    ASSERT_NE(document()->config(), saved->config);

    log->answer = QMessageBox::Discard;  // the view changes above are unsaved
    EXPECT_EQ(files()->openFile(file), QString());
    settle();
    ASSERT_TRUE(document()->result());
    expectSameResult(*document()->result(), *saved);
    EXPECT_EQ(document()->viewOptions(), view);
    EXPECT_EQ(window->tabs()->currentWidget(), window->tabs()->factoredView());
    EXPECT_EQ(window->selection()->head(), 2);
    EXPECT_EQ(window->selection()->queryRow(), 1);
    EXPECT_EQ(window->selection()->keyColumn(), 2);
    EXPECT_EQ(heads->scoreKind(), ScoreKind::ValueWeighted);
    EXPECT_EQ(heads->colormap(), ColormapName::Cividis);
    EXPECT_TRUE(heads->showAverage());
    EXPECT_DOUBLE_EQ(heads->zoom(), 1.25);
    EXPECT_FALSE(document()->isModified());
    EXPECT_EQ(document()->undoStack()->count(), 1);  // Open (Undo returns to the new document)
    EXPECT_TRUE(log->errors.isEmpty()) << log->errors.join(QLatin1Char('\n')).toStdString();
    // The reopened grid, once its tab is shown, draws the layer's value-weighted norm (head 4
    // switched off) from core.
    window->tabs()->setCurrentWidget(heads);
    QCoreApplication::processEvents();
    const auto figure = heads->canvas()->figure();
    ASSERT_TRUE(figure && figure->valueNorms());
    EXPECT_EQ(figure->result(), document()->result());
    const Expected<ValueNorms> norms =
        valueWeightedNorms(document()->result()->attention, *document()->result()->weights);
    ASSERT_TRUE(norms.ok());
    EXPECT_TRUE(figure->panel(figure->panelCount() - 1).cwiseEqual(norms->layer).all());
}

TEST_F(SessionsTest, LoadedAndEditedWeightsAreSavedInTheSession)
{
    const QString weightsFile = path("layer.safetensors");
    ASSERT_TRUE(
        saveAttentionWeights(weightsFile.toStdString(), initialiseWeights(64, 77, WeightInit::Normal, false)).ok());
    QSignalSpy loaded(window.get(), &MainWindow::weightsLoaded);
    window->loadWeights(weightsFile);
    ASSERT_TRUE(loaded.wait(10000));
    settle();
    auto edited = std::make_shared<AttentionWeights>(*document()->result()->unscaledWeights);
    edited->queryHead(1, document()->result()->grouping()).array() *= -1.0f;
    ASSERT_TRUE(document()->editWeights(edited, {1}, QStringLiteral("Edit head 2")));
    settle();
    const auto saved = document()->result();
    EXPECT_EQ(window->headsView()->canvas()->figure()->panelTitle(0), QStringLiteral("Head 1 · from file"));
    EXPECT_EQ(window->headsView()->canvas()->figure()->panelTitle(1), QStringLiteral("Head 2 · edited"));

    const QString file = path("weights.qkv.json");
    ASSERT_EQ(files()->saveTo(file), QString());
    QFile::remove(weightsFile);  // the session is self-contained
    files()->newDocument();
    settle();
    ASSERT_EQ(files()->openFile(file), QString());
    settle();
    expectSameResult(*document()->result(), *saved);
    EXPECT_EQ(document()->weightsSource(), weightsFile);
    EXPECT_EQ(document()->session().weightsProvenance.heads,
              (std::vector<HeadOrigin>{HeadOrigin::File, HeadOrigin::Edited, HeadOrigin::File, HeadOrigin::File}));
    EXPECT_EQ(window->headsView()->canvas()->figure()->panelTitle(1), QStringLiteral("Head 2 · edited"));
}

// A session may hold a prompt longer than the views draw (up to the 32,768 tokens an export streams):
// it opens, keeps its text, and the sentence field says why nothing is drawn and what can.
TEST_F(SessionsTest, ASessionWithALongPromptOpensAndItsLayerIsDrawnInBlocks)
{
    Session session;
    session.config = smallConfig();
    session.config.mode = AttentionMode::DecoderCausal;
    for (int i = 0; i < 5000; ++i) session.config.targetText += "w ";
    const QString file = path("long.qkv.json");
    ASSERT_TRUE(writeSession(file.toStdString(), session).ok());
    ASSERT_EQ(files()->openFile(file), QString());
    settle();
    EXPECT_EQ(document()->session().config.targetText, session.config.targetText);
    // Past the held maps' 4,096 tokens the layer streams: no message, a result kept in blocks.
    EXPECT_TRUE(window->controls()->targetField()->message()->text().isEmpty())
        << window->controls()->targetField()->message()->text().toStdString();
    ASSERT_TRUE(document()->result());
    EXPECT_TRUE(document()->result()->streamed());
    EXPECT_EQ(document()->result()->attention.queryCount(),
              static_cast<Index>(document()->targetSentence()->words.size()));
    EXPECT_GT(document()->result()->attention.queryCount(), limits::maxFullMapTokens);
    HeadsView* heads = window->tabs()->headsView();
    heads->ensureCurrent();
    ASSERT_TRUE(waitUntil([&] { return !heads->isBusy() && heads->canvas()->figure(); }));
    ASSERT_TRUE(heads->canvas()->figure());
    EXPECT_TRUE(heads->canvas()->figure()->pooled());

    // Past the streamed limit the field says so.
    Config config = document()->config();
    for (int i = 0; i < 28000; ++i) config.targetText += "w ";
    document()->edit(config, QStringLiteral("text"));
    settle();
    const QString message = window->controls()->targetField()->message()->text();
    EXPECT_TRUE(message.contains(QStringLiteral("32768"))) << message.toStdString();
}

TEST_F(SessionsTest, BadFilesAreRefusedWithAMessageAndChangeNothing)
{
    // A good session to break in several ways.
    const QString good = path("good.qkv.json");
    ASSERT_EQ(files()->saveTo(good), QString());
    QFile goodFile(good);
    ASSERT_TRUE(goodFile.open(QIODevice::ReadOnly));
    const QByteArray text = goodFile.readAll();
    goodFile.close();
    Config config = document()->config();
    config.seed = 99;
    document()->edit(config, QStringLiteral("seed"));  // unsaved: must survive every refusal
    settle();

    const auto write = [&](const char* name, const QByteArray& bytes) {
        QFile file(path(name));
        EXPECT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(bytes);
        return path(name);
    };
    QByteArray newer = text;
    newer.replace("\"version\": 1", "\"version\": 99");
    QByteArray hostile = text;  // d_model far beyond the limit: refused before any allocation
    hostile.replace("\"d_model\": 64", "\"d_model\": 1000000000");
    QByteArray badSpelling = text;
    badSpelling.replace("\"mode\": \"self\"", "\"mode\": \"sideways\"");
    ASSERT_NE(newer, text);
    ASSERT_NE(hostile, text);
    ASSERT_NE(badSpelling, text);
    const QString fifo = path("fifo.qkv.json");
    ASSERT_TRUE(makeFifo(fifo));
    QDir(directory.path()).mkdir(QStringLiteral("folder.qkv.json"));

    const std::vector<std::pair<QString, QString>> cases = {
        {write("truncated.qkv.json", text.left(text.size() / 2)), QStringLiteral("truncated")},
        {write("garbage.qkv.json", QByteArray("\x00\x01garbage", 9)), QStringLiteral("not valid JSON")},
        {write("array.qkv.json", QByteArray("[1, 2, 3]")), QStringLiteral("not a QKV Studio session")},
        {write("newer.qkv.json", newer), QStringLiteral("newer")},
        {write("hostile.qkv.json", hostile), QStringLiteral("d_model")},
        {write("spelling.qkv.json", badSpelling), QStringLiteral("sideways")},
        {fifo, QStringLiteral("not a regular file")},
        {path("folder.qkv.json"), QStringLiteral("folder")},
        {path("missing.qkv.json"), QStringLiteral("no such file")},
    };
    const auto result = document()->result();
    const int undoCount = document()->undoStack()->count();
    const QString filePath = document()->filePath();
    for (const auto& [file, problem] : cases) {
        SCOPED_TRACE(file.toStdString());
        log->errors.clear();
        QSignalSpy opened(files(), &DocumentFiles::sessionOpened);
        const QString error = files()->openFile(file);
        settle();
        EXPECT_TRUE(error.contains(QFileInfo(file).fileName())) << error.toStdString();
        EXPECT_TRUE(error.contains(problem)) << error.toStdString();
        ASSERT_EQ(log->errors.size(), 1);
        EXPECT_TRUE(log->errors.front().contains(error));
        ASSERT_EQ(opened.count(), 1);
        EXPECT_EQ(opened.first().first().toString(), error);
        EXPECT_TRUE(log->askedToSave.isEmpty());  // refused before asking about unsaved changes
        EXPECT_EQ(document()->result(), result);
        EXPECT_EQ(document()->config().seed, 99u);
        EXPECT_EQ(document()->undoStack()->count(), undoCount);
        EXPECT_EQ(document()->filePath(), filePath);
        EXPECT_TRUE(document()->isModified());
    }
}

TEST_F(SessionsTest, AFailedSaveSaysWhyAndLosesNothing)
{
    Config config = document()->config();
    config.seed = 12;
    document()->edit(config, QStringLiteral("seed"));
    const QString fifo = path("fifo.qkv.json");
    ASSERT_TRUE(makeFifo(fifo));
    for (const QString& target : {path("no/such/folder/x.qkv.json"), fifo, directory.path()}) {
        SCOPED_TRACE(target.toStdString());
        log->errors.clear();
        const QString error = files()->saveTo(target);
        EXPECT_FALSE(error.isEmpty());
        ASSERT_EQ(log->errors.size(), 1);
        EXPECT_TRUE(window->statusBar()->currentMessage().contains(error));
        EXPECT_TRUE(document()->isModified());
        EXPECT_TRUE(document()->filePath().isEmpty());
        EXPECT_EQ(document()->config().seed, 12u);
    }
    EXPECT_FALSE(QFileInfo(fifo).isFile());  // the FIFO is still a FIFO, not replaced
    EXPECT_TRUE(QFileInfo::exists(fifo));
}

TEST_F(SessionsTest, TheTitleMarksUnsavedChangesAndClosingAsks)
{
    EXPECT_EQ(window->windowTitle(), QStringLiteral("Untitled[*] — QKV Studio"));
    EXPECT_FALSE(window->isWindowModified());
    window->controls()->seedBox()->setValue(5);
    EXPECT_TRUE(window->isWindowModified());

    log->answer = QMessageBox::Cancel;
    EXPECT_FALSE(window->close());
    EXPECT_TRUE(window->isVisible());
    EXPECT_EQ(log->askedToSave, QStringList{QStringLiteral("Untitled")});

    // Save: asks where (untitled), writes, closes.
    log->answer = QMessageBox::Save;
    log->savePath = path("closing.qkv.json");
    EXPECT_TRUE(window->close());
    auto saved = readSession(log->savePath.toStdString());
    ASSERT_TRUE(saved) << saved.error();
    EXPECT_EQ(saved->config.seed, 5u);
}

TEST_F(SessionsTest, DiscardingClosesWithoutWriting)
{
    window->selection()->setHead(2);  // a view change is a change too
    EXPECT_TRUE(window->isWindowModified());
    log->answer = QMessageBox::Discard;
    log->savePath = path("never.qkv.json");
    EXPECT_TRUE(window->close());
    EXPECT_EQ(log->askedToSave.size(), 1);
    EXPECT_FALSE(QFileInfo::exists(log->savePath));
}

TEST_F(SessionsTest, AnExampleOpensUntitledUnderItsNameAndSaveAsksWhere)
{
    const Example& decoder = examples()[1];
    files()->openExample(decoder);
    settle();
    EXPECT_EQ(document()->displayName(), decoder.fileName);
    EXPECT_TRUE(document()->filePath().isEmpty());
    EXPECT_FALSE(document()->isModified());
    EXPECT_TRUE(window->windowTitle().startsWith(decoder.fileName));
    log->savePath = path("mine.qkv.json");
    EXPECT_TRUE(files()->save());
    EXPECT_EQ(document()->filePath(), log->savePath);
}

}  // namespace
}  // namespace qkv::ui::testing
