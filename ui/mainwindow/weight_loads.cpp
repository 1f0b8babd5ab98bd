#include "ui/mainwindow/weight_loads.hpp"

#include <initializer_list>

#include "core/checkpoint/model_input_loading.hpp"
#include "core/pipeline/layer_input.hpp"
#include "core/io/weights_file.hpp"
#include "ui/document/document.hpp"

namespace qkv::ui {

WeightLoads::WeightLoads(Document* document, QObject* parent)
    : QObject(parent), document_(document),
      weights_([this](const LoadedWeights& loaded) { applyWeights(loaded); }),
      headers_([this](const OpenedCheckpoint& opened) { emit checkpointOpened(opened.checkpoint, opened.error); }),
      layer_([this](const LoadedLayer& loaded) { applyLayer(loaded); })
{
    // A task's busy state changes after it updated isBusy(); the window's flag is idempotent.
    for (LatestTaskBase* task : std::initializer_list<LatestTaskBase*>{&weights_, &headers_, &layer_})
        task->setBusyCallback([this](bool) {
            if (!layer_.isBusy()) {
                progressTimer_.stop();
                pollModelLoad();
            }
            emit busyChanged(isBusy());
        });
    progressTimer_.setInterval(150);
    connect(&progressTimer_, &QTimer::timeout, this, &WeightLoads::pollModelLoad);
}

void WeightLoads::pollModelLoad()
{
    const bool reading = modelLoad_ && layer_.isBusy();
    const qkv::Index done = reading ? modelLoad_->done.load() : 0;
    const qkv::Index total = reading ? modelLoad_->total.load() : 0;
    if (done == shownDone_ && total == shownTotal_) return;
    shownDone_ = done;
    shownTotal_ = total;
    emit modelLoadProgress(done, total);
}

void WeightLoads::stopLoading()
{
    cancel();
    pollModelLoad();
}

void WeightLoads::cancel()
{
    if (modelLoad_) modelLoad_->stop = true;  // its reader ends before the next block
    modelLoad_.reset();
    weights_.cancel();
    headers_.cancel();
    layer_.cancel();
}

bool WeightLoads::isBusy() const { return weights_.isBusy() || headers_.isBusy() || layer_.isBusy(); }

void WeightLoads::loadWeights(const QString& path)
{
    cancel();  // a request supersedes every earlier one, of any kind
    weights_.request([path] {
        LoadedWeights loaded;
        loaded.path = path;
        const std::string file = path.toStdString();
        qkv::Expected<qkv::AttentionWeights> weights = qkv::loadAttentionWeights(file);
        if (weights) {
            loaded.weights = std::make_shared<const qkv::AttentionWeights>(std::move(*weights));
            return loaded;
        }
        loaded.error = QString::fromStdString(weights.error());
        // A file of several layers (a state dict, a checkpoint): the layer picker is elsewhere.
        if (const qkv::Expected<qkv::Checkpoint> checkpoint = qkv::openCheckpoint(file); checkpoint)
            loaded.error += QObject::tr("\n\nFile > Open Checkpoint… lists its %1 attention layers and loads the "
                                         "one you choose.")
                                 .arg(checkpoint->layers.size());
        return loaded;
    });
}

void WeightLoads::applyWeights(const LoadedWeights& loaded)
{
    if (loaded.weights) document_->setWeights(loaded.weights, loaded.path);
    emit weightsLoaded(loaded.path, loaded.error);
}

void WeightLoads::openCheckpoint(const QString& path)
{
    cancel();  // a request supersedes every earlier one, of any kind
    headers_.request([file = path.toStdString()] {
        OpenedCheckpoint opened;
        qkv::Expected<qkv::Checkpoint> checkpoint = qkv::openCheckpoint(file);
        if (checkpoint) opened.checkpoint = std::make_shared<const qkv::Checkpoint>(std::move(checkpoint).value());
        else opened.error = QString::fromStdString(checkpoint.error());
        return opened;
    });
}

void WeightLoads::loadLayer(const qkv::Checkpoint& checkpoint, const qkv::CheckpointLayer& layer,
                            std::optional<qkv::PositionalEncoding> positions,
                            std::shared_ptr<const qkv::PretrainedModel> model, std::optional<LayerDocument> opening)
{
    cancel();  // a request supersedes every earlier one, of any kind
    auto state = std::make_shared<ModelLoadState>();
    modelLoad_ = state;
    progressTimer_.start();
    layer_.request([checkpoint, layer, positions, model = std::move(model), opening = std::move(opening), state] {
        LoadedLayer loaded;
        loaded.source = QString::fromStdString(checkpoint.path);
        loaded.positions = positions;
        loaded.opening = opening;
        qkv::Expected<qkv::CheckpointLayerWeights> weights = qkv::loadCheckpointLayer(checkpoint, layer);
        if (!weights) {
            loaded.error = QString::fromStdString(weights.error());
            return loaded;
        }
        loaded.layer = std::make_shared<const qkv::CheckpointLayerWeights>(std::move(weights).value());
        // Its own input: the first layer's from the tables, a later one's from the model below it.
        const qkv::LoadProgress progress{[state](qkv::Index done, qkv::Index total) {
                                             state->done = done;
                                             state->total = total;
                                         },
                                         &state->stop};
        qkv::Expected<std::shared_ptr<const qkv::ModelInput>> input =
            qkv::loadLayerInput(checkpoint, layer, model, progress);
        if (input) loaded.modelInput = *input;
        else loaded.modelInputNote = QString::fromStdString(input.error());
        return loaded;
    });
}

void WeightLoads::applyLayer(const LoadedLayer& loaded)
{
    if (loaded.layer) {
        QStringList notes;
        for (const std::string& note : loaded.layer->notes) notes << QString::fromStdString(note);
        auto weights = std::make_shared<const qkv::AttentionWeights>(loaded.layer->weights);
        const QString name = QString::fromStdString(loaded.layer->layer.name);
        if (loaded.opening) {
            document_->openCheckpointLayer(std::move(weights), loaded.layer->settings, loaded.positions,
                                           *loaded.opening, loaded.source, name, notes, loaded.modelInput,
                                           loaded.modelInputNote);
        } else {
            document_->useCheckpointLayer(std::move(weights), loaded.layer->settings, loaded.positions, loaded.source,
                                          name, notes, loaded.modelInput, loaded.modelInputNote);
        }
    }
    emit layerLoaded(loaded.error);
}

}  // namespace qkv::ui
