#include "core/session/trained_session.hpp"

#include <utility>
#include <vector>

namespace qkv {

Index firstShownLayer(const ModelSpec& spec)
{
    const std::vector<AttentionLayerInfo> layers = attentionLayers(spec);
    for (std::size_t i = 0; i < layers.size(); ++i)
        if (layers[i].kind == AttentionMode::Cross) return static_cast<Index>(i);
    return static_cast<Index>(layers.size()) - 1;
}

Config trainedLayerConfig(const TrainedModel& model, Index layer, std::string source, std::string target)
{
    const ModelSpec& spec = model.parameters.spec;
    Config config;
    config.mode = attentionLayers(spec).at(static_cast<std::size_t>(layer)).kind;
    config.d_model = spec.d_model;
    config.headCount = spec.headCount;
    config.keyValueHeadCount = 0;  // g = h
    // A full W_i head is shown as W_i^Q = W_i, W_i^K = I: d_k = d_model (attentionLayerWeights).
    config.headDim = spec.scoreForm == ScoreForm::Full ? spec.d_model : 0;
    config.positional = PositionalEncoding::None;
    config.withBias = false;
    config.sourceText = std::move(source);
    config.targetText = std::move(target);
    return config;
}

Session trainedModelSession(std::shared_ptr<const TrainedModel> model, Index layer, const TaskExample& example)
{
    // The typed target is what the decoder writes; its input's leading <bos> the model adds.
    std::vector<std::int32_t> target = example.ids.targetInput;
    if (!target.empty() && target.front() == Vocabulary::bos) target.erase(target.begin());
    Session session;
    session.config = trainedLayerConfig(*model, layer, model->vocabulary.decode(example.ids.source),
                                        model->vocabulary.decode(target));
    session.model = std::move(model);
    session.modelLayer = layer;
    return session;
}

}  // namespace qkv
