// Opening anything (a session, an example, the demo model, a checkpoint's layer) replaces the
// whole document in one undo step, after the one question about unsaved work; nothing of the
// document before leaks into it (a kept trained model least of all), and Undo returns to it whole.

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>

#include "core/checkpoint/checkpoint.hpp"
#include "core/io/data_directory.hpp"
#include "core/session/session.hpp"
#include "core/session/trained_session.hpp"
#include "tests/support/trained_model_fixture.hpp"
#include "tests/ui/support/recording_prompts.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/document/examples.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/views/result_view.hpp"

namespace qkv::ui::testing {
namespace {

constexpr const char* kDemoLayer = "transformer.h.1.attn";
constexpr const char* kDemoSentence = "a b c d e f g h a b c d e f g";

class WholeDocumentsTest : public WindowTest {
protected:
    void SetUp() override
    {
        WindowTest::SetUp();
        log = std::make_shared<PromptLog>();
        window->files()->setPrompts(recordingPrompts(log));
    }
    Document* document() const { return window->document(); }

    // The Train tab's Keep: a trained model becomes the document in one undo step.
    void keepTrainedModel()
    {
        const std::shared_ptr<const TrainedModel> model = qkv::testing::smallTrainedModel();
        qkv::Session trained = document()->session();
        trained.config = trainedLayerConfig(*model, 1, "the black cat", "der schwarze");
        trained.model = model;
        trained.modelLayer = 1;
        document()->keep(trained, QStringLiteral("Keep"));
        settle();
        ASSERT_TRUE(document()->isValid()) << document()->issues().front().message;
        ASSERT_NE(document()->session().model, nullptr);
    }
    // File > Examples' demo model, through the menu's path; true once its layer is in.
    bool openDemoModel()
    {
        QSignalSpy loaded(window.get(), &MainWindow::checkpointLayerLoaded);
        if (!window->openDemoModel()) return false;
        if (!loaded.wait(20000) || !loaded.front().front().toString().isEmpty()) return false;
        settle();
        return true;
    }

    std::shared_ptr<PromptLog> log;
};

TEST_F(WholeDocumentsTest, AfterKeepTheDemoModelOpensWholeWithNoTrainedWeightsLeft)
{
    keepTrainedModel();
    const QString trainedName = document()->displayName();
    const int steps = document()->undoStack()->count();
    log->answer = QMessageBox::Discard;
    ASSERT_TRUE(openDemoModel());

    const qkv::Session& opened = document()->session();
    EXPECT_EQ(opened.model, nullptr);
    EXPECT_EQ(opened.weightsProvenance.layer, kDemoLayer);
    EXPECT_EQ(opened.config.targetText, kDemoSentence);
    EXPECT_TRUE(document()->isValid()) << document()->issues().front().message;
    ASSERT_TRUE(document()->result());
    EXPECT_NE(document()->result()->wholeModel, nullptr);
    EXPECT_EQ(document()->undoStack()->count(), steps + 1) << "one undo step, the sentence included";
    EXPECT_EQ(document()->displayName(), QStringLiteral("demo-model"));
    EXPECT_FALSE(document()->isModified());
    EXPECT_EQ(window->tabs()->currentWidget(), window->tabs()->view(QStringLiteral("model")));

    // Undo: the trained model's document again, whole, under its own name.
    document()->undoStack()->undo();
    settle();
    EXPECT_NE(document()->session().model, nullptr);
    EXPECT_EQ(document()->session().modelLayer, 1);
    EXPECT_EQ(document()->displayName(), trainedName);
    EXPECT_TRUE(document()->isValid());
}

TEST_F(WholeDocumentsTest, ACheckpointsLayerOpensOverATrainedModelWithoutIt)
{
    keepTrainedModel();
    const qkv::Expected<qkv::Checkpoint> demo = qkv::openCheckpoint(qkv::demoModelDirectory().string());
    ASSERT_TRUE(demo) << demo.error();
    const qkv::Expected<qkv::CheckpointLayer> layer = qkv::findCheckpointLayer(*demo, "0");
    ASSERT_TRUE(layer) << layer.error();
    QSignalSpy loaded(window.get(), &MainWindow::checkpointLayerLoaded);
    window->loadCheckpointLayer(*demo, *layer);
    ASSERT_TRUE(loaded.wait(20000));
    ASSERT_EQ(loaded.front().front().toString(), QString());
    settle();
    EXPECT_EQ(document()->session().model, nullptr);
    EXPECT_EQ(document()->session().sourceEmbeddings, nullptr);
    EXPECT_TRUE(document()->config().ablatedHeads.empty());
    EXPECT_TRUE(document()->isValid()) << document()->issues().front().message;
}

// Every entry of File > Examples, the demo model too: the same question with the same answers,
// then a new document under the example's name in one undo step.
TEST_F(WholeDocumentsTest, EveryExampleAsksTheSameQuestionAndOpensTheSameWay)
{
    std::vector<std::function<bool()>> opens;
    std::vector<QString> names;
    for (const Example& example : examples()) {
        opens.push_back([this, example] {
            window->files()->openExample(example);
            settle();
            return true;
        });
        names.push_back(example.fileName);
    }
    opens.push_back([this] { return openDemoModel(); });
    names.push_back(QStringLiteral("demo-model"));

    for (std::size_t i = 0; i < opens.size(); ++i) {
        SCOPED_TRACE(names[i].toStdString());
        Config edited = smallConfig();
        edited.seed = 1000 + i;
        document()->edit(edited, QStringLiteral("Seed"));
        settle();
        ASSERT_TRUE(document()->isModified());
        const QString before = document()->displayName();
        const int steps = document()->undoStack()->count();

        log->answer = QMessageBox::Cancel;
        log->askedToSave.clear();
        opens[i]();
        EXPECT_EQ(log->askedToSave, QStringList{before});
        EXPECT_EQ(document()->config().seed, edited.seed) << "Cancel changes nothing";
        EXPECT_EQ(document()->undoStack()->count(), steps);

        log->answer = QMessageBox::Discard;
        log->askedToSave.clear();
        EXPECT_TRUE(opens[i]());
        EXPECT_EQ(log->askedToSave, QStringList{before});
        EXPECT_EQ(document()->displayName(), names[i]);
        EXPECT_TRUE(document()->filePath().isEmpty());
        EXPECT_FALSE(document()->isModified());
        EXPECT_EQ(document()->undoStack()->count(), steps + 1);
        EXPECT_NE(document()->config().seed, edited.seed);
    }
}

TEST_F(WholeDocumentsTest, OpeningASessionIsOneUndoStepBackToTheDocumentAndItsFile)
{
    QTemporaryDir directory;
    const QString first = directory.filePath(QStringLiteral("first.qkv.json"));
    const QString second = directory.filePath(QStringLiteral("second.qkv.json"));
    qkv::Session a;
    a.config = smallConfig();
    a.config.seed = 11;
    qkv::Session b = a;
    b.config.seed = 22;
    b.view.tab = "factored";
    ASSERT_TRUE(qkv::writeSession(first.toStdString(), a).ok());
    ASSERT_TRUE(qkv::writeSession(second.toStdString(), b).ok());

    ASSERT_TRUE(window->files()->openFile(first).isEmpty());
    settle();
    const std::string firstTab = document()->viewOptions().tab;
    ASSERT_TRUE(window->files()->openFile(second).isEmpty());
    settle();
    EXPECT_EQ(document()->config().seed, 22u);
    EXPECT_EQ(document()->filePath(), QFileInfo(second).absoluteFilePath());
    EXPECT_FALSE(document()->isModified());
    EXPECT_EQ(document()->undoStack()->undoText(), QStringLiteral("Open second.qkv.json"));

    document()->undoStack()->undo();
    settle();
    EXPECT_EQ(document()->config().seed, 11u);
    EXPECT_EQ(document()->filePath(), QFileInfo(first).absoluteFilePath());
    EXPECT_EQ(document()->viewOptions().tab, firstTab);
    document()->undoStack()->redo();
    settle();
    EXPECT_EQ(document()->config().seed, 22u);
    EXPECT_EQ(document()->filePath(), QFileInfo(second).absoluteFilePath());
    EXPECT_FALSE(document()->isModified());
}

}  // namespace
}  // namespace qkv::ui::testing
