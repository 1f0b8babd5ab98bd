#pragma once
// A whole pretrained model: its checkpoint, its family's recipe (family_recipe.hpp) and every
// weight converted to float in our layout, block by block.
//
// Layout (row vectors, y = x W + b, docs/architecture.md, "Numerical conventions"):
//   attention   AttentionWeights exactly as loadCheckpointLayer builds them (the same code)
//   MLP         W_1 d_model x d_ff, W_gate d_model x d_ff (SwiGLU), W_2 d_ff x d_model
//   norms       gamma and beta, 1 x d_model each (RMSNorm: no beta)
//   tables      as stored, one row per token id / position (V x d_model, P x d_model)
//   readout     logits = t E^T + b with E the token table when tied (not copied)
//
// Model order: the order the forward pass runs the attention layers. Encoder-only and
// decoder-only: block 0..L-1. Encoder-decoder: the encoder's blocks first, then each decoder
// block's self-attention followed by its cross-attention. This is not the checkpoint's listing
// order (Checkpoint::layers sorts by name: BART's "model.decoder..." lists before
// "model.encoder..."); CheckpointLayer::index keeps the listing index.
//
// Loading reads every tensor the recipe names (pread of their bytes) and converts them here; one
// BlockWeights per block, built from the checkpoint and the block's names alone (blockWeights()),
// so a model too large to keep converted reads each block again when a run reaches it
// (WeightResidency).

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/attention/multi_head_attention.hpp"
#include "core/checkpoint/checkpoint.hpp"
#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/families/family_recipe.hpp"
#include "core/families/family_tensors.hpp"
#include "core/text/subword_tokenizer.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

struct NormWeights {
    RowVectorF gamma;  // 1 x d_model (Gemma: 1 + w, the scale); empty: no such norm
    RowVectorF beta;   // 1 x d_model; empty for RMSNorm

    bool present() const { return gamma.size() > 0; }
};

struct FeedForwardWeights {
    MatrixF in;          // W_1 (gated: W_up), d_model x d_ff
    RowVectorF inBias;   // 1 x d_ff, or empty
    MatrixF gate;        // W_gate, d_model x d_ff: gated MLPs (SwiGLU, GeGLU) only, else empty
    MatrixF out;         // W_2, d_ff x d_model
    RowVectorF outBias;  // 1 x d_model, or empty
};

// One attention sublayer: the layer as the checkpoint lists it, its weights and its norm.
struct AttentionSublayerWeights {
    CheckpointLayer layer;       // index: the checkpoint's listing index
    Index modelIndex = 0;        // its place in model order
    AttentionWeights attention;  // our layout (loadCheckpointLayer's conversion)
    NormWeights norm;            // before (pre) or after the residual (post); absent in OLMo 2
    NormWeights outputNorm;      // on the sublayer's output (Gemma 2 and 3, OLMo 2), else absent
};

struct BlockWeights {
    ModelStack stack = ModelStack::Encoder;
    Index block = 0;  // within its stack
    AttentionSublayerWeights selfAttention;
    std::optional<AttentionSublayerWeights> crossAttention;  // encoder-decoder decoder blocks
    FeedForwardWeights feedForward;
    NormWeights feedForwardNorm;        // absent in OLMo 2
    NormWeights feedForwardOutputNorm;  // on the MLP's output (Gemma 2 and 3, OLMo 2), else absent
    // OneBlockAtATime: memory the block's decoding used besides its weights (a GGUF tensor in the
    // file's order before its heads' rows were put back), kept for the next block's (runBlockWeights).
    std::vector<MatrixF> decodingBuffers;
};

struct EmbeddingWeights {
    MatrixF tokens;      // V x d_model
    MatrixF positions;   // rows x d_model (learned positions), else empty
    MatrixF tokenTypes;  // T x d_model (BERT, RoBERTa), else empty
    NormWeights norm;    // the embedding norm, empty without one
};

struct ReadoutWeights {
    MatrixF transform;         // MaskedLm: d_model x d_model (x W form), else empty
    RowVectorF transformBias;  // 1 x d_model
    NormWeights transformNorm;
    MatrixF decoder;  // V x d_model when untied; empty: the token table
    RowVectorF bias;  // 1 x V, or empty
};

// One stack of blocks with its input and its final norm.
struct StackWeights {
    EmbeddingWeights embeddings;
    std::vector<BlockWeights> blocks;
    NormWeights finalNorm;  // empty without one
};

// Where the blocks' weights live between runs. OneBlockAtATime keeps only each block's description
// and reads and converts a block's tensors from the checkpoint's files (positioned reads, which the
// system's page cache serves) when a run reaches it, so a model whose float32 weights do
// not fit in memory still runs: it then needs the embeddings, the readout and one block at a
// time (model_memory.hpp), at the cost of converting every block on every run.
enum class WeightResidency {
    Automatic,       // OneBlockAtATime when the blocks in float32 would take over half the available memory
    Whole,           // every block converted once, at load
    OneBlockAtATime  // a block converted when a run reaches it, then dropped
};

struct PretrainedModel {
    Checkpoint checkpoint;
    FamilyRecipe recipe;
    StackWeights encoder;  // encoder-only models and the encoder of an encoder-decoder
    StackWeights decoder;  // decoder-only models and the decoder of an encoder-decoder
    ReadoutWeights readout;
    std::vector<CheckpointLayer> layersInModelOrder;  // every attention layer, model order
    std::optional<SubwordTokenizer> tokenizer;        // when the folder has its files (an encoder-decoder's source)
    std::optional<SubwordTokenizer> targetTokenizer;  // an encoder-decoder's target (decoder) side
    std::string tokenizerFolder;
    std::vector<std::string> notes;  // for people: what was filled in or left out
    // Whole or OneBlockAtATime (never Automatic once loaded). With OneBlockAtATime the blocks in
    // encoder/decoder hold their description (stack, block, layers, model indices) and no weights:
    // read them with runBlockWeights / sublayerAttention.
    WeightResidency residency = WeightResidency::Whole;
    // OneBlockAtATime: a run converts block b + 1 on another thread (one OpenMP thread) while block b
    // computes. Measured on the 2-core machine (docs/benchmarks.md): a 256-token run of an 8B bf16
    // model took 75 s instead of 90 s while others loaded the machine, and gained nothing measurable
    // on the idle machine (both cores computing), at the cost of a second block in float32 (0.81 GiB
    // at 8B). Off by default: the peak stays one block. The same bits either way.
    bool convertAhead = false;

    bool hasReadout() const { return recipe.readout != ReadoutKind::None; }
    // The stack the one sequence of an encoder-only or decoder-only model runs through.
    const StackWeights& singleStack() const { return recipe.encoderLayerCount > 0 ? encoder : decoder; }
    // E of the readout: the stored decoder, or the (tied) token table.
    const MatrixF& readoutMatrix() const;
    Index layerCount() const { return static_cast<Index>(layersInModelOrder.size()); }
    // The attention sublayer at `modelIndex`; precondition 0 <= modelIndex < layerCount().
    const AttentionSublayerWeights& sublayer(Index modelIndex) const;
    // The model-order index of the layer with this module path (a CheckpointLayer's name, as
    // findCheckpointLayer resolves a name or a listing index), or -1 when the model has none.
    Index modelIndexOf(std::string_view layerName) const;
};

// What a caller follows of a long load, and how it stops one: `report(done, total)` after each
// block is read (from a worker thread, one call at a time; total is every stack's blocks), and
// `stop` set (from any thread) ends the load before its next block with an error that says so
// (loadStopped() recognises it). Both optional.
struct LoadProgress {
    std::function<void(Index done, Index total)> report;
    const std::atomic<bool>* stop = nullptr;
};
// Whether `error` is the one a stopped load returns.
bool loadStopped(const std::string& error);

// Opens a checkpoint (a .safetensors file, a shard index, or a Hugging Face model folder holding
// config.json, model.safetensors or model.safetensors.index.json and the tokenizer files) and
// loads the whole model. Errors name the file and the tensor: a missing tensor of a layer, a
// shape that does not fit, a value that is not finite, a family not run whole yet.
Expected<PretrainedModel> openPretrainedModel(const std::string& path, const CheckpointOptions& options = {},
                                              WeightResidency residency = WeightResidency::Automatic,
                                              const LoadProgress& progress = {});
Expected<PretrainedModel> loadPretrainedModel(Checkpoint checkpoint,
                                              WeightResidency residency = WeightResidency::Automatic,
                                              const LoadProgress& progress = {});

// Block `b` of `stack` (one of model's) as a run reads it: the resident block, or (OneBlockAtATime)
// its tensors read from the checkpoint's files and converted now, kept in `storage` while it is used.
// Errors: the file no longer holds what it held at load.
Expected<const BlockWeights*> runBlockWeights(const PretrainedModel& model, const StackWeights& stack, Index b,
                                              std::optional<BlockWeights>& storage);
// The attention weights of the sublayer at `modelIndex`, shared with the model when resident,
// else read from the file now.
Expected<std::shared_ptr<const AttentionWeights>> sublayerAttention(const std::shared_ptr<const PretrainedModel>& model,
                                                                     Index modelIndex);

// For people, once for the model: which layers slide, q/k norms, Gemma's norms, a parallel
// residual, partial rotary, the scores' scale and caps (core/families/attention_rules.hpp).
std::vector<std::string> blockConventionNotes(const PretrainedModel& model);

// What the model's family and config.json decide of one attention layer's computation
// (core/families/attention_rules.hpp): the mask (causal for a decoder's self-attention, with its sliding
// window), the rotary positions, the scores' scale and soft cap. Block `block` of `stack`, heads
// d_k wide. The one rule model runs and the app's layer views read; no ablation, keepScores as default.
AttentionOptions modelLayerAttentionOptions(const PretrainedModel& model, ModelStack stack, Index block, Index d_k,
                                            bool cross);

// The description of one block without its matrices (what OneBlockAtATime keeps between runs):
// its attention layers as the checkpoint lists them, its norms' values, and its MLP's names and
// shapes checked from the headers. No other value is read, so a value that is not finite is found
// (and said, with its tensor) when a run reaches the block.
Expected<BlockWeights> blockDescription(const Checkpoint& checkpoint, const FamilyRecipe& recipe, ModelStack stack,
                                        Index block);

// Asks the system to start reading the stored bytes of the block's weights (its attention and MLP
// tensors) into its page cache, on a short-lived thread of its own, and returns at once: a run
// announces block b + 1 when it reaches block b, so the disk works while block b computes.
void announceBlockReading(const Checkpoint& checkpoint, const FamilyRecipe& recipe, ModelStack stack, Index block);

// The weights of one block from the checkpoint (reads that block's tensors only).
Expected<BlockWeights> blockWeights(const Checkpoint& checkpoint, const FamilyRecipe& recipe, ModelStack stack,
                                    Index block);

}  // namespace qkv
