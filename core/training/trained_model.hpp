#pragma once
// A model the app trained, as a document and a session keep it: weights, vocabulary, the task
// and settings it learned, its curves. Immutable once made (shared between threads).
//
// The pipeline shows any of its attention layers like any other layer (core/pipeline): the
// typed sentences are encoded with its vocabulary, the model runs up to the layer, and the
// layer's W^Q, W^K, W^V, W^O read the hidden states the layers below computed.

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/common/expected.hpp"
#include "core/trainable/model_forward.hpp"
#include "core/training/training_run.hpp"
#include "core/training/vocabulary.hpp"

namespace qkv {

struct TrainedModel {
    ModelParameters<float> parameters;
    Vocabulary vocabulary;
    TrainingSettings settings;
    std::vector<CurvePoint> curve;
    long steps = 0;
    // Token accuracy at the last evaluation; NaN when the run was never evaluated.
    double heldOutAccuracy = std::numeric_limits<double>::quiet_NaN();

    // "trained: reverse, 2,000 steps, held-out accuracy 99.6%" (", full W_i" after the task for
    // the full variant; no accuracy when never evaluated).
    std::string provenance() const;
    // The current state of a run (copies the parameters).
    static std::shared_ptr<const TrainedModel> snapshot(const TrainingRun& run);
};

// One attention layer of a trained model on the user's sentences.
struct ModelLayerInput {
    std::vector<std::string> queryLabels, keyLabels;  // the model's tokens ("<bos>", "chat")
    MatrixF queryInput;     // X_q, n_q x d_model
    MatrixF keyValueInput;  // X_kv, n_k x d_model
    AttentionMode kind;
};
// Encodes `source` and `target` with the model's vocabulary (the decoder reads <bos> + target)
// and runs the model up to `layer` (0-based, attentionLayers order). An unknown word is an error
// naming it and the sentence ("the target sentence: 'zebra' is not in this model's vocabulary
// (27 tokens)"); so are an empty source, more words than the model has positions and a layer
// out of range. A decoder-only model (induction) ignores `source`.
Expected<ModelLayerInput> modelLayerInput(const TrainedModel& model, Index layer, const std::string& source,
                                          const std::string& target);

}  // namespace qkv
