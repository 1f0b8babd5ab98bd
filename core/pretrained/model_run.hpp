#pragma once
// The forward pass of a whole pretrained model on token ids: every attention layer reads the
// hidden states the layers before it computed, and goes through multiHeadAttentionForward (the
// engine every view reads), so every view and export works on any layer.
//
// Symbols: n tokens (n_src, n_tgt for an encoder-decoder), d_model, h heads, V vocabulary.
// Layers are numbered in model order (pretrained_model.hpp): the order the forward pass runs them.
//
// Switching heads off (Michel et al. 2019, "Are Sixteen Heads Really Better than One?"): a head's
// block of Concat(head_1..head_h) is zeroed before W^O, and every later layer sees the change. A
// run that passes the previous run (RunOptions::previous) re-runs only the blocks from the first
// layer whose switched-off heads changed; the earlier layers and hidden states are shared, the
// same bits as a full run.

#include <compare>
#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include "core/attention/multi_head_attention.hpp"
#include "core/checkpoint/checkpoint.hpp"
#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/pretrained/pretrained_model.hpp"

namespace qkv {

// A head anywhere in the model: its layer in model order and its index in that layer.
struct ModelHead {
    Index layer = 0;
    Index head = 0;
    auto operator<=>(const ModelHead&) const = default;
};

struct ModelTokens {
    std::vector<std::int32_t> ids;         // the one sequence, or an encoder-decoder's source
    std::vector<std::int32_t> decoderIds;  // encoder-decoder only: the decoder's input (teacher-forced)
};

struct ModelRun;

struct RunOptions {
    std::set<ModelHead> ablatedHeads;
    bool keepScores = true;  // AttentionOptions::keepScores for every layer
    // A run of the same model on the same tokens: the layers before the first one whose
    // switched-off heads differ are taken from it (shared, not recomputed). Ignored when its
    // tokens or keepScores differ.
    std::shared_ptr<const ModelRun> previous;
};

// One attention layer of a run.
struct LayerRun {
    CheckpointLayer layer;      // index: the checkpoint's listing index
    Index modelIndex = 0;       // its place in model order
    ModelStack stack = ModelStack::Encoder;
    Index block = 0;            // within its stack
    MatrixF queryInput;         // X_q, n_q x d_model: what the attention reads (after the norm when pre-LN)
    MatrixF keyValueInput;      // X_kv, n_k x d_model (cross-attention: the encoder's output)
    AttentionResult attention;  // multiHeadAttentionForward's result, ablations applied
};

struct ModelRun {
    ModelTokens tokens;
    std::set<ModelHead> ablatedHeads;
    bool keepScores = true;
    std::vector<std::shared_ptr<const LayerRun>> layers;  // model order
    // As Hugging Face's output_hidden_states: the embeddings' output, then each block's output
    // (L + 1 entries, n x d_model); with a final norm (GPT-2's ln_f) the last entry is after it.
    // The one sequence's stack, or an encoder-decoder's encoder.
    std::vector<MatrixF> hiddenStates;
    std::vector<MatrixF> decoderHiddenStates;  // encoder-decoder only
    MatrixF logits;                            // n x V (decoder positions), empty without a readout
    // The first layer (model order) whose switched-off heads differ from RunOptions::previous's:
    // it and every later layer were recomputed (so were the earlier sublayers of its block: a
    // cross-attention's self-attention, with the same bits). 0 without a previous run;
    // layerCount when nothing changed (the previous run is returned as it is).
    Index firstRecomputedLayer = 0;

    const LayerRun& layer(Index modelIndex) const { return *layers[static_cast<std::size_t>(modelIndex)]; }
};

// Runs the model on `tokens`. Refuses (with a message) ids outside the vocabulary, more tokens
// than the model has positions, no tokens, decoder ids for a model without a decoder (and none
// for an encoder-decoder), and switched-off heads that do not exist.
Expected<ModelRun> runPretrainedModel(const PretrainedModel& model, const ModelTokens& tokens,
                                      const RunOptions& options = {});

}  // namespace qkv
