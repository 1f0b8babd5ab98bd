#pragma once
// Applying a file to a session: a weights file, or one attention layer of a checkpoint. The one
// rule the app's Load Weights / Use Generated Weights / Open Checkpoint and the command line's
// --weights [--layer] share, so the window and `qkv-studio export` make the same session of the
// same file.

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/checkpoint/checkpoint.hpp"
#include "core/embedding/model_input.hpp"
#include "core/session/session.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

// Weights from a file in our layout (or nn.MultiheadAttention's), named `file`; null returns to
// the weights generated from the seed. d_model, the biases and g follow the file (W^K's width is
// g d_k; multi-head when it is d_model), and h moves to the nearest valid head count when it no
// longer divides d_model (d_k = d_model / h must be whole). The model's own input goes with the
// layer it belonged to: embeddings that were the model's become by word. Returns what changed
// beyond what was asked ("h = 3 does not divide ...; h is 4"), for people.
std::vector<std::string> applyWeightsFile(Session& session, std::shared_ptr<const AttentionWeights> weights,
                                          const std::string& file);

// One attention layer of a checkpoint, as loaded (loadCheckpointLayer).
struct CheckpointLayerChoice {
    std::shared_ptr<const AttentionWeights> weights;
    CheckpointLayerSettings settings;
    std::string file;   // the checkpoint, as the session will name it (weightsProvenance.file)
    std::string layer;  // the layer's module path
    // The layer's own input (core/pipeline/layer_input.hpp), or null: the embeddings then stay
    // (model embeddings fall back to words).
    std::shared_ptr<const ModelInput> modelInput;
    // Settings the user chose (their values already in the session's config): they stand where
    // the checkpoint does not fix them (applyCheckpointLayerSettings), named by `nameChoice`.
    std::set<LayerSetting> chosen;
    LayerChoiceName nameChoice;
};

struct AppliedCheckpointLayer {
    std::vector<std::string> notes;   // applyCheckpointLayerSettings's
    bool headChangesCleared = false;  // the session had presets or switched-off heads
};

// Uses the layer: its weights and what its model fixes (d_model, h, g, biases, positions, the
// 1/sqrt(d_k) scale, the mode). Presets and switched-off heads are cleared (a preset would
// overwrite the layer's own heads), and the token scale returns to the paper's 1 (it served the
// positional presets). With a model input the embeddings become the model's own.
AppliedCheckpointLayer applyCheckpointLayer(Session& session, CheckpointLayerChoice layer);

}  // namespace qkv
