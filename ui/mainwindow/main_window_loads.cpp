// File > Load Weights and File > Open Checkpoint: what the window asks for and what it does with
// the answers. The reading itself, and the rule that the latest request wins, is WeightLoads'.
#include <QFileDialog>
#include <QFileInfo>
#include <QStandardPaths>

#include "ui/checkpoint/checkpoint_layer_dialog.hpp"
#include "ui/document/document.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/mainwindow/weight_loads.hpp"
#include "ui/settings/folders.hpp"
#include "ui/settings/preference.hpp"
#include "ui/views/shown_text.hpp"

namespace qkv::ui {
namespace {

const Preference<QString> kWeightsDirectory{
    QStringLiteral("weights/directory"), QStandardPaths::writableLocation(QStandardPaths::HomeLocation)};
const Preference<QString> kCheckpointDirectory{
    QStringLiteral("checkpoint/directory"), QStandardPaths::writableLocation(QStandardPaths::HomeLocation)};

}  // namespace

void MainWindow::connectLoads()
{
    connect(loads_, &WeightLoads::weightsLoaded, this, [this](const QString&, const QString& error) {
        if (!error.isEmpty() && loadErrorsInBox_) showPlainWarning(this, tr("Cannot load weights"), error);
        emit weightsLoaded(error);
    });
    connect(loads_, &WeightLoads::layerLoaded, this, [this](const QString& error) {
        if (!error.isEmpty() && loadErrorsInBox_) showPlainWarning(this, tr("Cannot load the layer"), error);
        emit checkpointLayerLoaded(error);
    });
    // Open Checkpoint's second step: the user picks a layer of the checkpoint just read.
    connect(loads_, &WeightLoads::checkpointOpened, this,
            [this](std::shared_ptr<const qkv::Checkpoint> checkpoint, const QString& error) {
                if (!checkpoint) {
                    showPlainWarning(this, tr("Cannot open the checkpoint"), error);
                    return;
                }
                CheckpointLayerDialog dialog(*checkpoint, this);
                if (dialog.exec() != QDialog::Accepted) return;
                const std::optional<qkv::CheckpointLayer> layer = dialog.selectedLayer();
                if (!layer) return;
                loadErrorsInBox_ = true;
                loads_->loadLayer(dialog.checkpoint(), *layer, dialog.chosenPositions());
            });
}

void MainWindow::loadWeightsInteractively()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Load Weights"), firstExistingFolder({kWeightsDirectory.value()}),
                                                      tr("safetensors (*.safetensors);;All files (*)"));
    if (path.isEmpty()) return;
    kWeightsDirectory.setValue(QFileInfo(path).absolutePath());
    loadErrorsInBox_ = true;
    loads_->loadWeights(path);
}

void MainWindow::loadWeights(const QString& path)
{
    loadErrorsInBox_ = false;
    loads_->loadWeights(path);
}

void MainWindow::useGeneratedWeights()
{
    loads_->cancel();  // a file still being read would replace the generated weights asked for now
    document_->setWeights(nullptr, QString());
}

void MainWindow::openCheckpointInteractively()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Checkpoint"), firstExistingFolder({kCheckpointDirectory.value()}),
        tr("Checkpoints (*.safetensors *.index.json);;safetensors (*.safetensors);;Sharded index (*.index.json);;All files (*)"));
    if (path.isEmpty()) return;
    kCheckpointDirectory.setValue(QFileInfo(path).absolutePath());
    openCheckpoint(path);
}

void MainWindow::openCheckpoint(const QString& path) { loads_->openCheckpoint(path); }

void MainWindow::loadCheckpointLayer(const qkv::Checkpoint& checkpoint, const qkv::CheckpointLayer& layer,
                                     std::optional<qkv::PositionalEncoding> positions)
{
    loadErrorsInBox_ = false;
    loads_->loadLayer(checkpoint, layer, positions);
}

}  // namespace qkv::ui
