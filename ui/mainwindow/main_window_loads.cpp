// File > Load Weights, Open Checkpoint and Open Model: what the window asks for and what it does
// with the answers. The reading itself, and the rule that the latest request wins, is WeightLoads'.
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QStandardPaths>
#include <QStatusBar>
#include <QToolButton>

#include <cstdlib>

#include "core/checkpoint/checkpoint.hpp"
#include "core/checkpoint/model_folders.hpp"
#include "core/gguf/local_models.hpp"
#include "core/io/data_directory.hpp"
#include "ui/checkpoint/checkpoint_layer_dialog.hpp"
#include "ui/circuits/circuits_view.hpp"
#include "ui/checkpoint/model_list_dialog.hpp"
#include "ui/document/document.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figures/shown_text.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/mainwindow/notice_bar.hpp"
#include "ui/mainwindow/status_summary.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/mainwindow/weight_loads.hpp"
#include "ui/modelgrid/model_grid_view.hpp"
#include "ui/settings/folders.hpp"
#include "ui/settings/preference.hpp"

namespace qkv::ui {
namespace {

const Preference<QString> kWeightsDirectory{
    QStringLiteral("weights/directory"), QStandardPaths::writableLocation(QStandardPaths::HomeLocation)};
const Preference<QString> kCheckpointDirectory{
    QStringLiteral("checkpoint/directory"), QStandardPaths::writableLocation(QStandardPaths::HomeLocation)};
// The folder of the model Open Model… opened last: listed first next time.
const Preference<QString> kLastModel{QStringLiteral("model/lastOpened"), QString()};
// The demo model's layer with the induction heads, and its README's sentence: a block of letters
// twice, so that from the second copy on the next letter is the one that followed last time.
constexpr const char* kDemoInductionLayer = "transformer.h.1.attn";
constexpr const char* kDemoSentence = "a b c d e f g h a b c d e f g";

// The name a model's layer opens under: the model's folder ("Org/Name" in the Hugging Face
// cache, whose snapshot folders are commit hashes), else the checkpoint's file.
QString documentNameOf(const qkv::Checkpoint& checkpoint)
{
    if (checkpoint.configPath.empty()) return QFileInfo(QString::fromStdString(checkpoint.path)).fileName();
    const QDir folder = QFileInfo(QString::fromStdString(checkpoint.configPath)).absoluteDir();
    const std::string cached = qkv::cachedSnapshotModelName(folder.absolutePath().toStdString());
    return cached.empty() ? folder.dirName() : QString::fromStdString(cached);
}

}  // namespace

void MainWindow::connectLoads()
{
    // Reading a layer's whole model: its blocks counted in the status line, and Stop beside it.
    stopLoad_ = new QToolButton(this);
    stopLoad_->setObjectName(QStringLiteral("stopModelLoad"));
    stopLoad_->setText(tr("Stop"));
    stopLoad_->setToolTip(tr("Stop reading the model: the document stays exactly as it is"));
    stopLoad_->hide();
    statusBar()->addPermanentWidget(stopLoad_);
    connect(loads_, &WeightLoads::modelLoadProgress, this, [this](qkv::Index done, qkv::Index total) {
        status_->setModelLoad(done, total);
        stopLoad_->setVisible(total > 0);
    });
    connect(stopLoad_, &QToolButton::clicked, this, [this] {
        loads_->stopLoading();
        showStatus(tr("Stopped reading the model; the document is as it was."));
    });
    connect(loads_, &WeightLoads::weightsLoaded, this, [this](const QString&, const QString& error) {
        if (!error.isEmpty() && loadErrorsInBox_) showPlainWarning(this, tr("Cannot load weights"), error);
        emit weightsLoaded(error);
    });
    connect(loads_, &WeightLoads::layerLoaded, this, [this](const QString& error) {
        if (!error.isEmpty() && loadErrorsInBox_) showPlainWarning(this, tr("Cannot load the layer"), error);
        emit checkpointLayerLoaded(error);
    });
    // The Model tab's click: that layer of the model it draws, then that head, in every view.
    if (auto* model = qobject_cast<ModelGridView*>(tabs_->view(ModelGridView::kId)))
        connect(model, &ModelGridView::openLayerRequested, this,
                [this](std::shared_ptr<const qkv::PretrainedModel> pretrained, const qkv::CheckpointLayer& layer, int head) {
                    openModelLayer(pretrained, layer, head);
                });
    // The Circuits tab's click, the same way.
    if (auto* circuits = qobject_cast<CircuitsView*>(tabs_->view(CircuitsView::kId)))
        connect(circuits, &CircuitsView::openLayerRequested, this,
                [this](std::shared_ptr<const qkv::PretrainedModel> pretrained, const qkv::CheckpointLayer& layer, int head) {
                    openModelLayer(pretrained, layer, head);
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
                const QString name = documentNameOf(dialog.checkpoint());
                if (!files_->beginReplacing(tr("open %1").arg(name))) return;
                loadErrorsInBox_ = true;
                loads_->loadLayer(dialog.checkpoint(), *layer, dialog.chosenPositions(), nullptr, LayerDocument{name});
            });
}

void MainWindow::openModelLayer(const std::shared_ptr<const qkv::PretrainedModel>& model,
                                const qkv::CheckpointLayer& layer, int head)
{
    // A trained model's layer is the document's own model's, shown in place (no file to read).
    if (model->recipe.family == qkv::Family::Trained) {
        if (document_->showTrainedLayer(model->modelIndexOf(layer.name))) selection_->setHead(head);
        return;
    }
    if (model->recipe.encoderDecoder() && layer.kind != qkv::AttentionMode::EncoderSelf) {
        // loadLayerInput refuses them: the app's one layer reads one sentence.
        noticeBar_->setMessage(tr("Layer %1 (%2) is a decoder layer of the %3 encoder-decoder: it reads both "
                                  "sentences at once, so the other views cannot show it as their one layer. The "
                                  "Model tab shows it; `qkv-studio export --layer all` writes it.")
                                   .arg(layer.index)
                                   .arg(QString::fromStdString(layer.name),
                                        QString::fromUtf8(qkv::familyName(model->recipe.family).data())));
        return;
    }
    // The head once this layer is in: a load superseded by a later one is never answered, so
    // the next answer may be another layer's (then the head stays).
    auto answered = std::make_shared<QMetaObject::Connection>();
    *answered = connect(loads_, &WeightLoads::layerLoaded, this,
                        [this, answered, name = layer.name, head](const QString& error) {
                            disconnect(*answered);
                            if (!error.isEmpty()) noticeBar_->setMessage(tr("Cannot open the layer: %1").arg(error));
                            else if (document_->session().weightsProvenance.layer == name) selection_->setHead(head);
                        });
    loadErrorsInBox_ = false;
    showStatus(tr("Opening layer %1 (%2)…").arg(layer.index).arg(QString::fromStdString(layer.name)));
    loads_->loadLayer(model->checkpoint, layer, std::nullopt, model);
}

void MainWindow::loadWeightsInteractively()
{
    if (!files_->mayLeaveTraining(tr("load weights"))) return;
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
    // A training not kept is asked about before any dialog (as New asks); unsaved work once the
    // layer is chosen, as every open asks (connectLoads).
    if (!files_->mayLeaveTraining(tr("open a checkpoint"))) return;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Checkpoint"), firstExistingFolder({kCheckpointDirectory.value()}),
        ModelListDialog::modelFileFilters());
    if (path.isEmpty()) return;
    kCheckpointDirectory.setValue(QFileInfo(path).absolutePath());
    openCheckpoint(path);
}

void MainWindow::openModelInteractively()
{
    if (!files_->mayLeaveTraining(tr("open a model"))) return;
    const auto environment = [](const char* name) { return std::getenv(name); };
    ModelSources sources{qkv::huggingFaceCacheFolder(environment), qkv::ollamaModelsFolder(environment),
                         qkv::lmStudioModelsFolder(environment)};
    ModelListDialog dialog(std::move(sources), kLastModel.value(), this);
    if (dialog.exec() != QDialog::Accepted || dialog.chosenPath().isEmpty()) return;
    kLastModel.setValue(dialog.chosenPath());
    // A folder opens as its checkpoint (core/checkpoint/model_folders.hpp), a GGUF file by its magic.
    openCheckpoint(dialog.chosenPath());
}

void MainWindow::openCheckpoint(const QString& path) { loads_->openCheckpoint(path); }

bool MainWindow::openDemoModel()
{
    // Its headers only (the folder holds 0.4 MB); the layer is read off the GUI thread.
    const qkv::Expected<qkv::Checkpoint> checkpoint = qkv::openCheckpoint(qkv::demoModelDirectory().string());
    const qkv::Expected<qkv::CheckpointLayer> layer =
        checkpoint ? qkv::findCheckpointLayer(*checkpoint, kDemoInductionLayer) : qkv::Expected<qkv::CheckpointLayer>(qkv::Error{checkpoint.error()});
    if (!layer) {
        showPlainWarning(this, tr("Cannot open the demo model"), QString::fromStdString(layer.error()));
        return false;
    }
    const QString name = documentNameOf(*checkpoint);
    if (!files_->beginReplacing(tr("open the demo model"))) return false;
    // Opened with the sentence whose second half the induction heads complete, on the tab that
    // names them: one undo step, unmodified as opened.
    loadErrorsInBox_ = true;
    loads_->loadLayer(*checkpoint, *layer, std::nullopt, nullptr, LayerDocument{name, kDemoSentence, ModelGridView::kId});
    return true;
}

bool MainWindow::holdsDemoModel() const
{
    const qkv::WeightsProvenance& provenance = document_->session().weightsProvenance;
    if (provenance.layer != kDemoInductionLayer || document_->session().modelInput == nullptr) return false;
    const QFileInfo file(QString::fromStdString(provenance.file));
    return file.absolutePath() == QFileInfo(QString::fromStdString(qkv::demoModelDirectory().string())).absoluteFilePath();
}

void MainWindow::loadCheckpointLayer(const qkv::Checkpoint& checkpoint, const qkv::CheckpointLayer& layer,
                                     std::optional<qkv::PositionalEncoding> positions)
{
    loadErrorsInBox_ = false;
    loads_->loadLayer(checkpoint, layer, positions, nullptr, LayerDocument{documentNameOf(checkpoint)});
}

}  // namespace qkv::ui
