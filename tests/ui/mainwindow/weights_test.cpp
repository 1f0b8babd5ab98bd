// File > Load Weights: a good file drives d_model and the result; a bad one changes nothing.

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>

#include <QLabel>

#include "core/checkpoint/checkpoint.hpp"
#include "core/io/safetensors.hpp"
#include "core/io/weights_file.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/controls/controls_panel.hpp"
#include "ui/controls/weights_group.hpp"

namespace qkv::ui::testing {
namespace {

class WeightsTest : public WindowTest {
protected:
    // Loads through the window as the menu does and returns its error message.
    QString load(const QString& path)
    {
        QSignalSpy loaded(window.get(), &MainWindow::weightsLoaded);
        window->loadWeights(path);
        EXPECT_TRUE(loaded.wait(10000));
        settle();
        return loaded.isEmpty() ? QStringLiteral("no signal") : loaded.first().first().toString();
    }

    QTemporaryDir directory;
};

TEST_F(WeightsTest, LoadedWeightsSetDModelAndAreUsedAndUndoRestoresTheGeneratedOnes)
{
    const qkv::AttentionWeights weights = qkv::initialiseWeights(32, 77, qkv::WeightInit::Normal, true);
    const QString path = directory.filePath("layer.safetensors");
    ASSERT_TRUE(qkv::saveAttentionWeights(path.toStdString(), weights).ok());
    const auto generated = window->document()->result();

    EXPECT_EQ(load(path), QString());
    Document* document = window->document();
    EXPECT_EQ(document->config().d_model, 32);
    EXPECT_TRUE(document->config().withBias);
    EXPECT_EQ(document->config().headCount, 4);  // 4 still divides 32
    EXPECT_EQ(document->weightsSource(), path);
    ASSERT_TRUE(document->result());
    EXPECT_EQ(document->result()->weights->queryProjection, weights.queryProjection);
    EXPECT_TRUE(window->controls()->weights()->originLabel()->text().contains(QStringLiteral("layer.safetensors")));

    // d_model is now the file's: another value is refused at the field, the result stays.
    qkv::Config other = document->config();
    other.d_model = 64;
    document->edit(other, QStringLiteral("d_model"));
    settle();
    ASSERT_FALSE(document->issues().empty());
    EXPECT_EQ(document->issues().front().field, qkv::ConfigField::DModel);
    EXPECT_EQ(document->result()->config.d_model, 32);

    document->undoStack()->undo();  // the d_model edit
    document->undoStack()->undo();  // the load
    settle();
    EXPECT_EQ(document->config().d_model, 64);
    EXPECT_TRUE(document->weightsSource().isEmpty());
    EXPECT_EQ(document->result()->weights->queryProjection, generated->weights->queryProjection);
}

TEST_F(WeightsTest, HeadCountMovesToTheNearestDivisorOfTheFilesDModel)
{
    qkv::Config config = smallConfig();
    config.headCount = 8;
    setConfig(config);
    const QString path = directory.filePath("d12.safetensors");
    ASSERT_TRUE(qkv::saveAttentionWeights(path.toStdString(), qkv::initialiseWeights(12, 1, qkv::WeightInit::Normal, false)).ok());
    EXPECT_EQ(load(path), QString());
    EXPECT_EQ(window->document()->config().d_model, 12);
    EXPECT_EQ(window->document()->config().headCount, 6);  // 8 does not divide 12; 6 is nearest
    EXPECT_TRUE(window->document()->isValid());
}

TEST_F(WeightsTest, ACorruptFileIsReportedAndChangesNothing)
{
    const QString path = directory.filePath("broken.safetensors");
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(QByteArray("\x20\x00\x00\x00\x00\x00\x00\x00{\"W_Q\": not json", 24));
    file.close();
    const auto before = window->document()->result();
    const QString error = load(path);
    EXPECT_TRUE(error.contains(QStringLiteral("broken.safetensors"))) << error.toStdString();
    EXPECT_EQ(window->document()->result(), before);  // the very same result object
    EXPECT_TRUE(window->document()->weightsSource().isEmpty());
    EXPECT_EQ(window->document()->undoStack()->count(), 0);

    EXPECT_FALSE(load(directory.filePath("missing.safetensors")).isEmpty());
    EXPECT_EQ(window->document()->result(), before);
}

// A PyTorch state dict with several nn.MultiheadAttention layers: Load Weights points to the
// layer picker, and the picked layer (a decoder's cross-attention) is used with its kind.
TEST_F(WeightsTest, AStateDictOfSeveralLayersPointsToOpenCheckpointWhichLoadsOne)
{
    qkv::SafetensorsFile merged;
    std::vector<qkv::AttentionWeights> saved;
    for (const std::string prefix : {"decoder.layers.0.multihead_attn", "encoder.layers.0.self_attn"}) {
        saved.push_back(qkv::initialiseWeights(16, 5 + saved.size(), qkv::WeightInit::Normal, false));
        const QString one = directory.filePath("one.safetensors");
        ASSERT_TRUE(qkv::savePyTorchMultiheadAttention(one.toStdString(), saved.back(), prefix).ok());
        qkv::Expected<qkv::SafetensorsFile> read = qkv::readSafetensors(one.toStdString());
        ASSERT_TRUE(read.ok());
        for (qkv::Tensor& t : read->tensors) merged.tensors.push_back(std::move(t));
    }
    const QString path = directory.filePath("state.safetensors");
    ASSERT_TRUE(qkv::writeSafetensors(path.toStdString(), merged).ok());

    const auto before = window->document()->result();
    const QString error = load(path);
    EXPECT_TRUE(error.contains(QStringLiteral("Open Checkpoint"))) << error.toStdString();
    EXPECT_TRUE(error.contains(QStringLiteral("2 attention layers"))) << error.toStdString();
    EXPECT_EQ(window->document()->result(), before);

    qkv::Expected<qkv::Checkpoint> checkpoint = qkv::openCheckpoint(path.toStdString(), qkv::CheckpointOptions{2});
    ASSERT_TRUE(checkpoint.ok()) << checkpoint.error();
    QSignalSpy loaded(window.get(), &MainWindow::checkpointLayerLoaded);
    window->loadCheckpointLayer(*checkpoint, checkpoint->layers[0]);
    ASSERT_TRUE(loaded.wait(10000));
    EXPECT_EQ(loaded.first().first().toString(), QString());
    settle();
    const qkv::Config& config = window->document()->config();
    EXPECT_EQ(config.mode, qkv::AttentionMode::Cross);
    EXPECT_EQ(config.d_model, 16);
    EXPECT_EQ(config.headCount, 2);
    ASSERT_NE(window->document()->session().weights, nullptr);
    EXPECT_EQ(window->document()->session().weights->keyProjection, saved[0].keyProjection);
}

}  // namespace
}  // namespace qkv::ui::testing
