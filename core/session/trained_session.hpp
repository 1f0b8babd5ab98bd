#pragma once
// A trained model as a document: the session `qkv-studio train` writes and the Train tab's Keep
// makes. It shows one attention layer of the model on one example, with a Config that agrees
// with that layer (core/pipeline/trained_layer.hpp): mode = the layer's kind, d_model and h the
// model's, positions none (they are inside the hidden states X), no biases.

#include <memory>
#include <string>

#include "core/session/session.hpp"
#include "core/training/tasks.hpp"
#include "core/training/trained_model.hpp"

namespace qkv {

// The layer a trained model's document shows first: the first cross-attention layer (where the
// alignment is learned), or for a decoder-only model its last layer (the induction heads').
Index firstShownLayer(const ModelSpec& spec);

// The Config that shows `layer` of `model` on the sentences `source` and `target` (words of
// its vocabulary, space-separated; the decoder's <bos> is added by the model).
Config trainedLayerConfig(const TrainedModel& model, Index layer, std::string source, std::string target);

// A session of `model` showing `layer` on `example` (one of the task's held-out examples).
Session trainedModelSession(std::shared_ptr<const TrainedModel> model, Index layer, const TaskExample& example);

}  // namespace qkv
