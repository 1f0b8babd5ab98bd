#pragma once
// What compute() takes besides the Config: the user's own weights and embeddings, the model's
// own input, a trained model's layer. Below the pipeline, so that the session (which holds
// them) and every reader of a Result need not include the pipeline.

#include <memory>

#include "core/common/matrix.hpp"
#include "core/embedding/model_input.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

struct TrainedModel;  // core/training/trained_model.hpp

// What the user supplied instead of the generated defaults. Shared and immutable: a request
// copies pointers, never matrices.
struct UserInputs {
    std::shared_ptr<const AttentionWeights> weights;     // replaces the seeded initialisation
    std::shared_ptr<const MatrixF> sourceEmbeddings;     // replaces generated source X (n_src x d_model)
    std::shared_ptr<const MatrixF> targetEmbeddings;     // replaces generated target X (n_tgt x d_model)
    // The model's own tokenizer and tables (a checkpoint's first layer), read when
    // Config::embeddings is Model for each sentence without user embeddings.
    std::shared_ptr<const ModelInput> modelInput;
    // A model trained in the app and the attention layer shown (an attentionLayers(spec) index):
    // X_q, X_kv and the token labels come from running the model on the typed sentences, the
    // weights from the layer (or from `weights` when the user edited them); core/pipeline/
    // trained_layer.hpp.
    std::shared_ptr<const TrainedModel> trainedModel;
    Index trainedLayer = 0;
};

}  // namespace qkv
