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
//
// Activation patching (Meng et al. 2022, "Locating and Editing Factual Associations in GPT";
// Heimersheim & Nanda 2024, "How to use and interpret activation patching"): values another run of
// the same model computed (RunOptions::patch) replace this run's, and every later layer sees them.
// With RunOptions::previous the run without the patch, the layers before the first patched one
// are shared, and for a causal model the positions before the first patched row too (the
// typed-on mechanism, causal_extension.hpp): the same bits as a full run with the same patch.

#include <compare>
#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include "core/attention/multi_head_attention.hpp"
#include "core/attention/streamed_attention.hpp"
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

// What a run takes from another run of the same one-stack model on as many tokens (`source`, run
// whole, not streamed). Layers in model order; an empty patch changes nothing.
struct ActivationPatch {
    std::shared_ptr<const ModelRun> source;
    // Each head's block of Concat(head_1..head_h) (its z, n x d_v, before W^O) at every position.
    std::set<ModelHead> heads;
    // The residual stream entering the block of layer residualLayer (the block's input, a row of
    // ModelRun::hiddenStates) at residualPosition; -1: none.
    Index residualLayer = -1;
    Index residualPosition = -1;

    bool empty() const { return heads.empty() && residualLayer < 0; }
};

// The rows of the readout a run computes. The logits over the vocabulary cost n d_model V
// multiply-adds, a fifth of a BERT-base forward pass on 128 tokens and a third of GPT-2 small's on
// 256; a view that shows the prediction at a few positions (a masked LM's [MASK]s) asks for those.
enum class LogitRows {
    All,     // every position of the sequence the readout reads (a decoder's, for an encoder-decoder)
    None,    // no readout
    Chosen,  // RunOptions::logitPositions
};

// RunOptions::lastLayer's default: run every layer, then the readout.
inline constexpr Index kEveryLayer = -1;

struct RunOptions {
    std::set<ModelHead> ablatedHeads;
    bool keepScores = true;   // AttentionOptions::keepScores for every layer
    bool keepWeights = true;  // AttentionOptions::keepWeights for every layer (false: no maps held)
    // Stop right after this attention layer (model order): no later sublayer or block, no final
    // norm, no readout. What a layer's input (LayerRun::queryInput) needs, and nothing more.
    Index lastLayer = kEveryLayer;
    LogitRows logitRows = LogitRows::All;
    // With LogitRows::Chosen: distinct positions of the sequence the readout reads, any order
    // (the logits' rows follow it). Refused with a message when out of range or repeated.
    std::vector<Index> logitPositions;
    // A run of the same model on the same tokens: the layers before the first one whose
    // switched-off heads differ are taken from it (shared, not recomputed), as far as it ran them
    // whole (a run stopped inside a block lends only the blocks before). Ignored when its tokens
    // or keepScores differ. Its lastLayer and readout rows need not match this run's.
    // For a causal language model whose tokens differ, the positions both share from the start
    // are taken from it instead, in every layer (ModelRun::firstRecomputedPosition), when it ran
    // every layer (or stopped where this run stops) with the same switched-off heads and keepScores.
    std::shared_ptr<const ModelRun> previous;
    // Each layer streamed (a long prompt, streamed_layer.hpp): its heads' maps kept pooled to at
    // most pooledBlocks x pooledBlocks blocks with their row statistics and softmax constants
    // (LayerRun::streamedHeads), never n x n; pooledValueNorms: the heads' value norms pooled too.
    // 0: the full maps. A streamed run lends no layer to a later run and borrows none.
    Index pooledBlocks = 0;
    bool pooledValueNorms = false;
    // Values taken from another run (above). Refused with a message for an encoder-decoder, a
    // streamed run, a source of another length or stopped, heads or positions that do not exist.
    ActivationPatch patch;
};

// One attention layer of a run.
struct LayerRun {
    CheckpointLayer layer;  // index: the checkpoint's listing index
    Index modelIndex = 0;   // its place in model order
    ModelStack stack = ModelStack::Encoder;
    Index block = 0;            // within its stack
    MatrixF queryInput;         // X_q, n_q x d_model: what the attention reads (after the norm when pre-LN)
    MatrixF keyValueInput;      // X_kv, n_k x d_model (cross-attention: the encoder's output)
    AttentionResult attention;  // multiHeadAttentionForward's result, ablations applied
    // A streamed run's (RunOptions::pooledBlocks): attention's maps are then empty.
    std::vector<StreamedAttention> streamedHeads;
    MatrixD transformedNorms;  // with pooledValueNorms: ||f_i(x_j)||, n_k x h
};

struct ModelRun {
    ModelTokens tokens;
    std::set<ModelHead> ablatedHeads;
    ActivationPatch patch;  // RunOptions::patch
    bool keepScores = true;
    bool keepWeights = true;
    Index lastLayer = kEveryLayer;  // RunOptions::lastLayer: kEveryLayer for a whole run
    std::vector<std::shared_ptr<const LayerRun>> layers;  // model order; lastLayer + 1 when stopped
    // As Hugging Face's output_hidden_states: the embeddings' output, then each block's output
    // (L + 1 entries, n x d_model); with a final norm (GPT-2's ln_f) the last entry is after it.
    // The one sequence's stack, or an encoder-decoder's encoder. A stopped run holds the b + 1
    // states h_0..h_b up to the input of the block b it stopped in (its stack's; none of the
    // decoder when it stopped in the encoder), the same bits as a whole run's.
    std::vector<MatrixF> hiddenStates;
    std::vector<MatrixF> decoderHiddenStates;  // encoder-decoder only
    // k x V: row r holds the logits at position logitPositions[r] (decoder positions for an
    // encoder-decoder); all n positions in order by default, none without a readout, when
    // stopped, or with LogitRows::None. A chosen row has the bits of a whole readout's row.
    MatrixF logits;
    LogitRows logitRows = LogitRows::All;
    std::vector<Index> logitPositions;
    // The first layer (model order) recomputed rather than taken from RunOptions::previous: the
    // first whose switched-off heads differ, or earlier when the previous run stopped before it.
    // It and every later layer run were recomputed (so were the earlier sublayers of its block:
    // a cross-attention's self-attention, with the same bits). 0 without a previous run;
    // layerCount when no layer was recomputed (the previous run is returned as it is when its
    // lastLayer and readout rows are also this run's).
    Index firstRecomputedLayer = 0;
    // A causal language model typed on (RunOptions::previous with other tokens): positions before
    // this one were taken from the previous run in every layer, hidden state and logit row (every
    // position's logits when both runs computed them all), the same bits as a whole run; the
    // positions from here on were computed. 0 when nothing was taken that way. A patched run of a
    // causal model whose previous run is the unpatched one: the first row the patch changes.
    Index firstRecomputedPosition = 0;

    const LayerRun& layer(Index modelIndex) const { return *layers[static_cast<std::size_t>(modelIndex)]; }
    // The row of `logits` that holds `position`, or -1 when the run did not compute it.
    Index logitRow(Index position) const;
};

// How many tokens `a` and `b` share from the start: the positions a causal run typed on takes
// from the previous one.
Index sharedStart(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b);

// Runs the model on `tokens`. Refuses (with a message) ids outside the vocabulary, more tokens
// than the model has positions, no tokens, decoder ids for a model without a decoder (and none
// for an encoder-decoder), switched-off heads that do not exist, a lastLayer outside the model,
// and chosen logit positions outside the readout's sequence or repeated.
Expected<ModelRun> runPretrainedModel(const PretrainedModel& model, const ModelTokens& tokens,
                                      const RunOptions& options = {});

}  // namespace qkv
