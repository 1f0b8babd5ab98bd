#include "core/session/apply_weights.hpp"

#include <utility>

#include "core/config/examples.hpp"
#include "core/config/validation.hpp"

namespace qkv {

namespace {

// The weights a session uses from now on (null: generated from the seed), where they came from,
// and the model's own input that goes with them (null: embeddings that were the model's fall
// back to words, since the input belongs to the layer being replaced).
void useWeights(Session& s, std::shared_ptr<const AttentionWeights> weights, const std::string& file,
                const std::string& layer, std::shared_ptr<const ModelInput> modelInput)
{
    s.weights = std::move(weights);
    s.weightsProvenance = {};
    if (s.weights) s.weightsProvenance = {file, layer, {}};
    s.modelInput = std::move(modelInput);
    if (s.modelInput)
        s.config.embeddings = EmbeddingKind::Model;
    else if (s.config.embeddings == EmbeddingKind::Model)
        s.config.embeddings = EmbeddingKind::Word;
}

}  // namespace

std::vector<std::string> applyWeightsFile(Session& session, std::shared_ptr<const AttentionWeights> weights,
                                          const std::string& file)
{
    std::vector<std::string> notes;
    useWeights(session, weights, file, {}, nullptr);
    if (!weights) return notes;
    Config& c = session.config;
    c.d_model = weights->d_model();
    c.withBias = weights->hasBias();
    if (c.headCount < 1 || c.d_model % c.headCount != 0) {
        const Index repaired = nearestValidHeadCount(c.d_model, c.headCount);
        notes.push_back("h = " + std::to_string(c.headCount) + " does not divide the weights' d_model = " +
                        std::to_string(c.d_model) + "; h is " + std::to_string(repaired) + ", the nearest that does");
        c.headCount = repaired;
    }
    const Index width = weights->keyValueWidth();
    c.keyValueHeadCount = width == c.d_model || c.d_k() < 1 || width % c.d_k() != 0 ? 0 : width / c.d_k();
    return notes;
}

AppliedCheckpointLayer applyCheckpointLayer(Session& session, CheckpointLayerChoice layer)
{
    AppliedCheckpointLayer applied;
    useWeights(session, std::move(layer.weights), layer.file, layer.layer, std::move(layer.modelInput));
    Config& c = session.config;
    applied.notes = applyCheckpointLayerSettings(layer.settings, c, layer.chosen, layer.nameChoice);
    applied.headChangesCleared = !c.presets.empty() || !c.ablatedHeads.empty();
    c.presets.clear();
    c.ablatedHeads.clear();
    c.tokenEmbeddingScale = 1.0f;
    session.model = nullptr;
    session.modelLayer = 0;
    return applied;
}

Session sessionOnCheckpointLayer(const Session& previous, CheckpointLayerChoice layer, const LayerOpening& opening,
                                 AppliedCheckpointLayer* applied)
{
    Session opened;
    opened.config = builtInExample();
    opened.config.sourceText = previous.config.sourceText;
    opened.config.targetText = opening.targetText ? *opening.targetText : previous.config.targetText;
    if (opening.positions) {
        opened.config.positional = *opening.positions;
        layer.chosen.insert(LayerSetting::Positional);
    }
    // How the views look stays; what they point at (a tab, head, token, another model's heads) goes.
    const ViewOptions& seen = previous.view;
    opened.view.tab = seen.tab;
    opened.view.colormap = seen.colormap;
    opened.view.colorRange = seen.colorRange;
    opened.view.zoom = seen.zoom;
    opened.view.show = seen.show;
    opened.view.averageOfHeads = seen.averageOfHeads;
    opened.view.blockMaxima = seen.blockMaxima;
    AppliedCheckpointLayer result = applyCheckpointLayer(opened, std::move(layer));
    if (applied) *applied = std::move(result);
    return opened;
}

}  // namespace qkv
