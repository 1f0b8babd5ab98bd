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
// positional presets). With a model input the embeddings become the model's own. A model trained
// in the app goes: the layer shown is now the checkpoint's, never one of the trained model's.
AppliedCheckpointLayer applyCheckpointLayer(Session& session, CheckpointLayerChoice layer);

// A checkpoint's layer opened as a document (File > Open Checkpoint, Open Model, the demo model):
// a new session holding the layer as applyCheckpointLayer uses it, on the built-in example's
// settings. Of `previous` only what the user typed and how the views look stay: the sentences
// (`opening.targetText`, when given, replaces the target) and the tab, colormap, colour range,
// zoom and what the grid shows. Nothing else carries over: no trained model, loaded embeddings,
// presets, switched-off heads, seed or scales of the document before, no model head switched off
// (those name another model's heads), the first head and token selected.
struct LayerOpening {
    std::optional<PositionalEncoding> positions;  // the user's choice where the checkpoint leaves them open
    std::optional<std::string> targetText;        // the sentence the layer opens on, else previous's
};
Session sessionOnCheckpointLayer(const Session& previous, CheckpointLayerChoice layer, const LayerOpening& opening = {},
                                 AppliedCheckpointLayer* applied = nullptr);

}  // namespace qkv
