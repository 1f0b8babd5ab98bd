// Loads that race: the latest request wins, each answer is given once, and a session opened
// meanwhile is not overwritten by a load asked for before it (ui/mainwindow/weight_loads.hpp).

#include <QSignalSpy>
#include <QTemporaryDir>

#include "core/io/weights_file.hpp"
#include "core/session/session.hpp"
#include "tests/ui/support/recording_prompts.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/weight_loads.hpp"

namespace qkv::ui::testing {
namespace {

class LoadOrder : public WindowTest {
protected:
    QString weightsFile(const QString& name, qkv::Index d_model, std::uint64_t seed)
    {
        const QString path = directory.filePath(name);
        EXPECT_TRUE(qkv::saveAttentionWeights(path.toStdString(),
                                              qkv::initialiseWeights(d_model, seed, qkv::WeightInit::Normal, false))
                        .ok());
        return path;
    }
    QString badFile(const QString& name)
    {
        const QString path = directory.filePath(name);
        QFile file(path);
        EXPECT_TRUE(file.open(QIODevice::WriteOnly));
        file.write("not a safetensors file");
        return path;
    }
    void waitForLoads()
    {
        ASSERT_TRUE(waitUntil([this] { return !window->loads()->isBusy(); }));
        settle();
    }

    QTemporaryDir directory;
};

TEST_F(LoadOrder, TwoLoadsInARowApplyTheSecondOnlyAndAnswerOnce)
{
    const QString first = weightsFile("first.safetensors", 32, 1), second = weightsFile("second.safetensors", 16, 2);
    QSignalSpy answered(window.get(), &MainWindow::weightsLoaded);
    window->loadWeights(first);
    window->loadWeights(second);
    waitForLoads();
    ASSERT_EQ(answered.count(), 1);
    EXPECT_EQ(answered.first().first().toString(), QString());
    EXPECT_EQ(window->document()->weightsSource(), second);
    EXPECT_EQ(window->document()->config().d_model, 16);
    EXPECT_FALSE(window->loads()->isBusy());
}

TEST_F(LoadOrder, AnEarlierErrorIsNotSaidAndTheLatestOneIsSaidOnce)
{
    const QString good = weightsFile("good.safetensors", 32, 1), bad = badFile("bad.safetensors");
    QSignalSpy answered(window.get(), &MainWindow::weightsLoaded);
    window->loadWeights(bad);
    window->loadWeights(good);
    waitForLoads();
    ASSERT_EQ(answered.count(), 1);
    EXPECT_EQ(answered.first().first().toString(), QString());  // the superseded error is not said

    window->loadWeights(good);
    window->loadWeights(bad);
    waitForLoads();
    ASSERT_EQ(answered.count(), 2);
    EXPECT_NE(answered.last().first().toString(), QString());  // said once, not lost
    EXPECT_EQ(window->document()->weightsSource(), good);       // nothing changed by the bad file
}

TEST_F(LoadOrder, ASessionOpenedWhileAFileIsReadIsNotOverwritten)
{
    qkv::Session session;
    session.config = smallConfig();
    session.config.d_model = 48;
    const QString sessionFile = directory.filePath("opened.qkv.json");
    ASSERT_TRUE(qkv::writeSession(sessionFile.toStdString(), session).ok());
    const QString weights = weightsFile("late.safetensors", 32, 3);
    auto log = std::make_shared<PromptLog>();
    log->answer = QMessageBox::Discard;  // a load that landed first made the document modified
    window->files()->setPrompts(recordingPrompts(log));
    QSignalSpy answered(window.get(), &MainWindow::weightsLoaded);
    window->loadWeights(weights);
    EXPECT_EQ(window->files()->openFile(sessionFile), QString());
    waitForLoads();
    EXPECT_EQ(window->document()->config().d_model, 48);
    EXPECT_TRUE(window->document()->weightsSource().isEmpty());
    // Either the load landed before the session replaced it, or it was dropped: never after.
    EXPECT_LE(answered.count(), 1);
}

TEST_F(LoadOrder, GeneratedWeightsAskedForLastStay)
{
    const QString weights = weightsFile("late.safetensors", 32, 3);
    window->loadWeights(weights);
    window->useGeneratedWeights();
    waitForLoads();
    EXPECT_TRUE(window->document()->weightsSource().isEmpty());
    EXPECT_EQ(window->document()->config().d_model, smallConfig().d_model);
}

}  // namespace
}  // namespace qkv::ui::testing
