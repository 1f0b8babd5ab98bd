#pragma once
// Reading weights the user chose, off the GUI thread: Load Weights, a checkpoint's headers and a
// checkpoint's layer (a large layer takes seconds; the window stays usable meanwhile).
//
// One latest-only task per kind (ui/background/latest_task.hpp), and one order across them: every
// request supersedes all earlier ones of any kind, and cancel() (a session or an example about
// to replace the document) supersedes them all. So a load asked for earlier never lands on one
// asked for later, each finished request is answered once (its signal, with its error), and a
// superseded request is answered never. Results are applied to the document here; the signals
// say what happened, for the window's message boxes and for tests.

#include <QObject>
#include <QString>
#include <QTimer>

#include <atomic>
#include <memory>
#include <optional>

#include "core/checkpoint/checkpoint.hpp"
#include "ui/background/latest_task.hpp"
#include "ui/document/document.hpp"

namespace qkv {
class ModelInput;
struct PretrainedModel;
}

namespace qkv::ui {

class WeightLoads : public QObject {
    Q_OBJECT
public:
    explicit WeightLoads(Document* document, QObject* parent = nullptr);

    // A safetensors or .npy weights file in our layout or nn.MultiheadAttention's; used whole.
    void loadWeights(const QString& path);
    // A checkpoint's headers (and config.json), for choosing a layer.
    void openCheckpoint(const QString& path);
    // One layer of an opened checkpoint, used with the user's positions where the file does
    // not fix them. `model`: the checkpoint's whole model when already loaded (the Model tab's),
    // so that it is not read again for the layer's input. With `opening` (File > Open
    // Checkpoint, Open Model, the demo model) the layer opens as a new document
    // (Document::openCheckpointLayer); without, it is an edit of
    // the document (the Model tab's click on another layer of its model).
    void loadLayer(const qkv::Checkpoint& checkpoint, const qkv::CheckpointLayer& layer,
                   std::optional<qkv::PositionalEncoding> positions,
                   std::shared_ptr<const qkv::PretrainedModel> model = nullptr,
                   std::optional<LayerDocument> opening = std::nullopt);
    // Drops every request not yet answered (their work still ends in the background; a whole
    // model being read stops before its next block).
    void cancel();
    // Stops reading a layer's whole model (a model of gigabytes takes seconds): the request is
    // dropped and the document stays exactly as it was.
    void stopLoading();
    // Some file is being read.
    bool isBusy() const;

signals:
    // Each finished, latest request once: an empty error on success.
    void weightsLoaded(const QString& path, const QString& error);
    void checkpointOpened(std::shared_ptr<const qkv::Checkpoint> checkpoint, const QString& error);
    void layerLoaded(const QString& error);
    void busyChanged(bool busy);  // isBusy() now (may repeat the last value)
    // While a layer's whole model is read: its blocks read so far and in all, a few times a
    // second; (0, 0) when none is being read.
    void modelLoadProgress(qkv::Index done, qkv::Index total);

private:
    struct LoadedWeights {
        QString path;
        std::shared_ptr<const qkv::AttentionWeights> weights;
        QString error;
    };
    struct OpenedCheckpoint {
        std::shared_ptr<const qkv::Checkpoint> checkpoint;
        QString error;
    };
    struct LoadedLayer {
        QString source;
        std::optional<qkv::PositionalEncoding> positions;
        std::optional<LayerDocument> opening;
        std::shared_ptr<const qkv::CheckpointLayerWeights> layer;
        QString error;
        std::shared_ptr<const qkv::ModelInput> modelInput;  // the model's own input to the layer
        QString modelInputNote;                             // why there is none
    };
    void applyWeights(const LoadedWeights& loaded);
    void applyLayer(const LoadedLayer& loaded);
    void pollModelLoad();

    // The whole model a layer request reads: the worker writes its counts, the window reads them
    // (pollModelLoad) and may set stop. Shared with the request, which may outlive this object.
    struct ModelLoadState {
        std::atomic<bool> stop{false};
        std::atomic<qkv::Index> done{0}, total{0};
    };

    Document* document_;
    std::shared_ptr<ModelLoadState> modelLoad_;
    QTimer progressTimer_;
    qkv::Index shownDone_ = 0, shownTotal_ = 0;
    // Last members: destroyed, and their work ended, first.
    LatestTask<LoadedWeights> weights_;
    LatestTask<OpenedCheckpoint> headers_;
    LatestTask<LoadedLayer> layer_;
};

}  // namespace qkv::ui
