// File > Open Checkpoint: a layer of a Hugging Face checkpoint (issue 11, section 3). Reading
// the headers and reading the layer both run off the GUI thread (a sharded model's headers
// are many files; a layer of a large model is hundreds of megabytes).
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QStandardPaths>

#include <memory>

#include "core/checkpoint/checkpoint.hpp"
#include "core/checkpoint/model_input_loading.hpp"
#include "ui/checkpoint/checkpoint_layer_dialog.hpp"
#include "ui/document/document.hpp"
#include "ui/mainwindow/background_load.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/settings/preference.hpp"

namespace qkv::ui {
namespace {

const Preference<QString> kCheckpointDirectory{
    QStringLiteral("checkpoint/directory"), QStandardPaths::writableLocation(QStandardPaths::HomeLocation)};

// What the background steps hand back to the GUI thread: a value or a message.
struct OpenedCheckpoint {
    std::shared_ptr<const qkv::Checkpoint> checkpoint;
    QString error;
};
struct LoadedLayer {
    std::shared_ptr<const qkv::CheckpointLayerWeights> layer;
    QString error;
    std::shared_ptr<const qkv::ModelInput> modelInput;  // the model's own input, for its first layer
    QString modelInputNote;                             // why there is none
};

}  // namespace

void MainWindow::openCheckpointInteractively()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Checkpoint"), kCheckpointDirectory.value(),
        tr("Checkpoints (*.safetensors *.index.json);;safetensors (*.safetensors);;Sharded index (*.index.json);;All files (*)"));
    if (path.isEmpty()) return;
    kCheckpointDirectory.setValue(QFileInfo(path).absolutePath());
    openCheckpoint(path);
}

void MainWindow::openCheckpoint(const QString& path)
{
    loadInBackground<OpenedCheckpoint>(
        this, status_,
        [file = path.toStdString()] {
            OpenedCheckpoint opened;
            qkv::Expected<qkv::Checkpoint> checkpoint = qkv::openCheckpoint(file);
            if (checkpoint) opened.checkpoint = std::make_shared<const qkv::Checkpoint>(std::move(checkpoint).value());
            else opened.error = QString::fromStdString(checkpoint.error());
            return opened;
        },
        [this](const OpenedCheckpoint& opened) {
            if (!opened.checkpoint) {
                QMessageBox::warning(this, tr("Cannot open the checkpoint"), opened.error);
                return;
            }
            CheckpointLayerDialog dialog(*opened.checkpoint, this);
            if (dialog.exec() != QDialog::Accepted) return;
            const std::optional<qkv::CheckpointLayer> layer = dialog.selectedLayer();
            if (!layer) return;
            connect(this, &MainWindow::checkpointLayerLoaded, this, [this](const QString& error) {
                if (!error.isEmpty()) QMessageBox::warning(this, tr("Cannot load the layer"), error);
            }, Qt::SingleShotConnection);
            loadCheckpointLayer(dialog.checkpoint(), *layer, dialog.chosenPositions());
        });
}

void MainWindow::loadCheckpointLayer(const qkv::Checkpoint& checkpoint, const qkv::CheckpointLayer& layer,
                                     std::optional<qkv::PositionalEncoding> positions)
{
    const QString source = QString::fromStdString(checkpoint.path);
    loadInBackground<LoadedLayer>(
        this, status_,
        [checkpoint, layer] {
            LoadedLayer loaded;
            qkv::Expected<qkv::CheckpointLayerWeights> weights = qkv::loadCheckpointLayer(checkpoint, layer);
            if (!weights) {
                loaded.error = QString::fromStdString(weights.error());
                return loaded;
            }
            loaded.layer = std::make_shared<const qkv::CheckpointLayerWeights>(std::move(weights).value());
            // Its own input comes with the model's first layer when the tables and tokenizer are there.
            qkv::Expected<std::shared_ptr<const qkv::ModelInput>> input = qkv::loadModelInput(checkpoint, layer);
            if (input) loaded.modelInput = *input;
            else loaded.modelInputNote = QString::fromStdString(input.error());
            return loaded;
        },
        [this, source, positions](const LoadedLayer& loaded) {
            if (loaded.layer) {
                QStringList notes;
                for (const std::string& note : loaded.layer->notes) notes << QString::fromStdString(note);
                auto weights = std::make_shared<const qkv::AttentionWeights>(loaded.layer->weights);
                document_->useCheckpointLayer(std::move(weights), loaded.layer->settings, positions, source,
                                              QString::fromStdString(loaded.layer->layer.name), notes,
                                              loaded.modelInput, loaded.modelInputNote);
            }
            emit checkpointLayerLoaded(loaded.error);
        });
}

}  // namespace qkv::ui
