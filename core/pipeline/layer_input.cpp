#include "core/pipeline/layer_input.hpp"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <vector>
#include <utility>

#include "core/checkpoint/model_input_loading.hpp"
#include "core/common/limits.hpp"
#include "core/pipeline/pretrained_run.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "core/text/subword_tokenizer.hpp"

namespace qkv {

namespace {

// "X = the hidden state BERT's layers before bert.encoder.layer.2.attention computed (post-
// LayerNorm, gelu, ...)": the formula the status line and tooltips show.
std::string hiddenStatesFormula(const PretrainedModel& model, const CheckpointLayer& layer)
{
    return "X = what " + std::string(familyName(model.recipe.family)) + "'s layers before " + layer.name +
           " computed (" + recipeSummary(model.recipe) + ")";
}

// The last runs of a layer's input (one per sentence the app shows: source and target), shared by
// the threads that compute them: the run whose tokens share the longest start with a new
// sentence lends it those positions.
class RecentRuns {
public:
    std::shared_ptr<const ModelRun> closest(const std::vector<std::int32_t>& ids) const
    {
        std::lock_guard<std::mutex> lock(mutex_);
        std::shared_ptr<const ModelRun> best;
        Index bestShared = 0;
        for (const auto& run : runs_) {
            const Index shared = sharedStart(run->tokens.ids, ids);
            if (shared > bestShared) best = run, bestShared = shared;
        }
        return best;
    }
    void add(std::shared_ptr<const ModelRun> run)
    {
        std::lock_guard<std::mutex> lock(mutex_);
        runs_.push_back(std::move(run));
        if (runs_.size() > kKept) runs_.erase(runs_.begin());
    }

private:
    static constexpr std::size_t kKept = 2;
    mutable std::mutex mutex_;
    std::vector<std::shared_ptr<const ModelRun>> runs_;
};

// A later layer's input: the hidden states `model` computes below it. Fails for an
// encoder-decoder's decoder layers (they read both sentences at once).
Expected<std::shared_ptr<const ModelInput>> wholeModelInput(const std::shared_ptr<const PretrainedModel>& model,
                                                            const CheckpointLayer& layer)
{
    if (!model->tokenizer) return Error{model->checkpoint.path + ": no tokenizer files beside it"};
    Expected<Index> modelIndex = modelLayerIndex(*model, layer);
    if (!modelIndex) return Error{modelIndex.error()};
    if (model->recipe.encoderDecoder() && layer.kind != AttentionMode::EncoderSelf)
        return Error{layer.name + " reads both sentences of the " +
                     std::string(familyName(model->recipe.family)) +
                     " encoder-decoder; the app shows its encoder's layers (the command line's --layer all shows "
                     "every layer)"};
    const Index index = *modelIndex;
    auto recent = std::make_shared<RecentRuns>();
    HiddenStatesOf hiddenStates = [model, index, recent](const std::vector<std::int32_t>& ids) -> Expected<MatrixF> {
        ModelTokens tokens;
        tokens.ids = ids;
        if (model->recipe.encoderDecoder())
            tokens.decoderIds = {static_cast<std::int32_t>(model->recipe.decoderStartTokenId)};
        RunOptions options;  // the layer's input only: no later block, no readout
        options.keepScores = false;
        options.keepWeights = false;  // nobody reads these layers' maps: the layer itself is computed again
        options.lastLayer = index;
        // A sentence typed on: a causal model computes only the positions after the ones it
        // shares with a recent run (model_run.hpp).
        options.previous = recent->closest(ids);
        Expected<ModelRun> run = runPretrainedModel(*model, tokens, options);
        if (!run) return Error{run.error()};
        auto kept = std::make_shared<const ModelRun>(std::move(*run));
        recent->add(kept);
        return kept->layer(index).queryInput;
    };
    HiddenStatesShape shape;
    shape.d_model = layer.d_model;
    // The whole model runs on its positions, at most limits::maxModelTokens.
    shape.positionCount = std::min(model->recipe.positionCount > 0 ? model->recipe.positionCount : limits::maxModelTokens,
                                   limits::maxModelTokens);
    shape.formula = hiddenStatesFormula(*model, layer);
    auto input = std::make_shared<ModelInput>(*model->tokenizer, std::move(hiddenStates), std::move(shape),
                                              layer.name + " of " + model->checkpoint.path);
    input->setWholeModel(model, index);
    return std::shared_ptr<const ModelInput>(std::move(input));
}

}  // namespace

Expected<std::shared_ptr<const ModelInput>> loadLayerInput(Checkpoint checkpoint, const CheckpointLayer& layer,
                                                           std::shared_ptr<const PretrainedModel> model,
                                                           const LoadProgress& progress)
{
    std::string wholeError;
    // Without tokenizer files no sentence reaches the model: reading its gigabytes would be for nothing.
    const std::string folder = std::filesystem::path(checkpoint.path).parent_path().string();
    if (!model && !hasSubwordTokenizerFiles(folder.empty() ? std::string(".") : folder))
        wholeError = checkpoint.path + ": no tokenizer files beside it";
    else if (!model) {
        Expected<PretrainedModel> loaded = loadPretrainedModel(checkpoint, WeightResidency::Automatic, progress);
        if (loaded) model = std::make_shared<const PretrainedModel>(std::move(*loaded));
        else if (loadStopped(loaded.error())) return Error{loaded.error()};
        else wholeError = loaded.error();
    }
    if (modelInputAvailable(checkpoint, layer)) {
        Expected<std::shared_ptr<const ModelInput>> tables = loadModelInput(checkpoint, layer);
        if (!tables || !model) return tables;
        // The first layer reads the tables as before; the model comes along for the views that
        // run it whole.
        Expected<Index> modelIndex = modelLayerIndex(*model, layer);
        if (!modelIndex) return tables;
        auto input = std::make_shared<ModelInput>(**tables);
        input->setWholeModel(model, *modelIndex);
        return std::shared_ptr<const ModelInput>(std::move(input));
    }
    Expected<std::shared_ptr<const ModelInput>> whole =
        model ? wholeModelInput(model, layer) : Expected<std::shared_ptr<const ModelInput>>(Error{wholeError});
    if (!whole)
        return Error{"'" + layer.name +
                     "' reads what the layers before it computed, and the model cannot run "
                     "whole: " +
                     whole.error()};
    return whole;
}

Status attachModelInput(Session& session)
{
    const Config& c = session.config;
    if (c.embeddings != EmbeddingKind::Model || session.modelInput) return {};
    const bool needed =
        (c.needsSource() && !session.sourceEmbeddings) || (c.needsTarget() && !session.targetEmbeddings);
    if (!needed) return {};
    const WeightsProvenance& from = session.weightsProvenance;
    if (from.file.empty() || from.layer.empty())
        return Error{
            "the embeddings are the model's own input, which comes with a checkpoint's attention layer: "
            "load one (its weights and its input are read together)"};
    CheckpointOptions options;
    options.headCount = c.headCount;
    Expected<Checkpoint> checkpoint = openCheckpoint(from.file, options);
    if (!checkpoint) return Error{checkpoint.error()};
    Expected<CheckpointLayer> layer = findCheckpointLayer(*checkpoint, from.layer);
    if (!layer) return Error{layer.error()};
    Expected<std::shared_ptr<const ModelInput>> input = loadLayerInput(std::move(*checkpoint), *layer);
    if (!input) return Error{input.error()};
    session.modelInput = std::move(*input);
    return {};
}

std::string attachModelInputOrUseWords(Session& session)
{
    const Status attached = attachModelInput(session);
    if (attached) return {};
    session.config.embeddings = EmbeddingKind::Word;
    return "The session's layer read the model's own input, which cannot be read again (" + attached.error() +
           "); embeddings by word stand in.";
}

}  // namespace qkv
