#pragma once
// One attention layer of a trained model as the pipeline computes it (docs/architecture.md, "Model"): the
// typed sentences are encoded with the model's vocabulary, the model runs up to the layer
// (modelLayerInput in core/training/trained_model.hpp), and the layer's W^Q, W^K, W^V, W^O
// (attentionLayerWeights) read the hidden states the layers below computed. Every view and the
// export then work on it as on any other layer.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.hpp"
#include "core/config/validation.hpp"
#include "core/pipeline/compute.hpp"

namespace qkv {

struct TrainedModel;

// What does not fit between the Config and the trained model, each under its field: the layer
// index, mode = the layer's kind, d_model, h, g = h, positions none (they are inside X), no
// biases, no loaded embeddings, a Full-W_i layer (no W_i^Q, W_i^K for the views), and each
// sentence the layer reads: a word outside the vocabulary (named), or too many tokens for the
// model's positions. Empty without a trained model.
std::vector<ValidationIssue> trainedModelIssues(const Config& config, const UserInputs& inputs);

// The d of the layer's 1/sqrt(d) score scale: the d_k the model was trained with, d_model / h.
// It differs from the shown layer's d_k only for a Full model, whose heads are shown with
// W_i^K = I (d_k = d_model; model_parameters.hpp, attentionLayerWeights).
Index trainedScoreDim(const TrainedModel& model);

// The layer's inputs and labels for `config`'s sentences; the tokens' spans point into them.
struct TrainedLayerSentences {
    std::vector<Token> queryTokens, keyTokens;
    std::vector<std::string> queryLabels, keyLabels;
    MatrixF queryInput;     // X_q, n_q x d_model
    MatrixF keyValueInput;  // X_kv, n_k x d_model
};
// Preconditions: trainedModelIssues(config, inputs) is empty.
Expected<TrainedLayerSentences> trainedLayerSentences(const Config& config, const UserInputs& inputs);

// A trained model's attention layer by name ("decoder.0.cross_attention") or by index in
// attentionLayers order, from 0 (the command line's --layer NAME|INDEX). The error lists them.
Expected<Index> findTrainedLayer(const TrainedModel& model, std::string_view nameOrIndex);

// The weights the layer computes with: the user's (an edit of the layer) when given, else the
// model's own W^Q, W^K, W^V, W^O. Null for a Full-W_i layer without user weights.
std::shared_ptr<const AttentionWeights> trainedLayerWeights(const UserInputs& inputs);

}  // namespace qkv
