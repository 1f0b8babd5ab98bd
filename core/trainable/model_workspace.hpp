#pragma once
// What the forward pass keeps for the backward pass, and where the batch's rows sit. Internal to
// core/trainable (model_forward.cpp, model_backward.cpp); others use ForwardWorkspace opaquely.
//
// Symbols (model_spec.hpp): S source rows and T target rows of the packed batch, d_model, d_ff,
// h, w = d_k (factored heads) or d_model (full heads), B sequences.

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "core/trainable/model_forward.hpp"
#include "core/trainable/model_steps.hpp"

namespace qkv {

// A matrix whose storage only grows: resizing to no more entries than before allocates nothing,
// so a training step in steady state touches no new memory (docs/architecture.md, "Rules learned on this machine": every new
// page costs ~10 us here). Aligned to Eigen's widest packet: Eigen peels unaligned heads of a
// reduction off with scalar code, so an address-dependent alignment would make the bits depend
// on where the heap put a buffer. Aligned, they depend on the batch's shape alone.
template <typename Scalar>
struct Tensor {
    std::vector<Scalar, Eigen::aligned_allocator<Scalar>> storage;
    Index rows = 0, cols = 0;

    void resize(Index newRows, Index newCols)
    {
        rows = newRows;
        cols = newCols;
        const auto needed = static_cast<std::size_t>(newRows * newCols);
        if (storage.size() < needed) storage.resize(needed);
    }
    void resizeZero(Index newRows, Index newCols)
    {
        resize(newRows, newCols);
        std::fill(storage.begin(), storage.begin() + static_cast<std::ptrdiff_t>(rows * cols), Scalar(0));
    }
    Eigen::Map<RowMajorMatrix<Scalar>> view() { return {storage.data(), rows, cols}; }
    Eigen::Map<const RowMajorMatrix<Scalar>> view() const { return {storage.data(), rows, cols}; }
    Scalar* data() { return storage.data(); }
    const Scalar* data() const { return storage.data(); }
};

// One sequence's rows in a packed matrix.
struct Segment {
    Index start = 0, length = 0;
};

// The batch's token ids back to back, with each row's position in its sequence.
struct PackedBatch {
    std::vector<Segment> source, target;            // B each (source empty without an encoder)
    std::vector<std::int32_t> sourceIds, targetIds; // S, T
    std::vector<Index> sourcePositions, targetPositions;
    std::vector<std::int32_t> labels;               // T: targetOutput, -1 where no loss is taken
    Index sourceRows() const { return static_cast<Index>(sourceIds.size()); }
    Index targetRows() const { return static_cast<Index>(targetIds.size()); }
};

enum class SublayerKind { SelfAttention, CausalSelfAttention, CrossAttention, Mlp };

// One residual block's parameters, as offsets into ModelParameters::values.
struct SublayerPlan {
    SublayerKind kind = SublayerKind::Mlp;
    Index attentionLayer = -1;  // its index in attentionLayers(spec); -1 for an MLP
    // Attention: W_Q, W_K, W_V, W_O (factored) or W_1 .. W_h, W_V, W_O (full).
    // MLP: W_in, b_in, W_out, b_out.
    std::vector<std::size_t> weights;
    bool hasNorm = false;
    std::size_t gamma = 0, beta = 0;
    bool isAttention() const { return kind != SublayerKind::Mlp; }
};

struct StackPlan {
    std::vector<SublayerPlan> sublayers;
    bool hasFinalNorm = false;
    std::size_t finalGamma = 0, finalBeta = 0;
};

// Where every tensor of a spec lives, resolved once per spec (not by name at every step).
struct ModelPlan {
    ModelSpec spec;
    StackPlan encoder, decoder;
    std::size_t tokenTable = 0, positionTable = 0, readoutWeight = 0, readoutBias = 0;
    bool learnedPositions = false;
    std::size_t parameterCount = 0;  // values in ModelParameters
};
ModelPlan planModel(const ModelSpec& spec);

// The activations of one residual block (model_spec.hpp's blocks):
//   pre-norm  : a = norm(x); out = x + branch(a)
//   post-norm : s = x + branch(x); out = norm(s)
template <typename Scalar>
struct SublayerCache {
    Tensor<Scalar> stream;     // x, the residual stream entering, R x d_model
    Tensor<Scalar> normed;     // pre-norm: a = norm(x); post-norm: s = x + branch(x)      R x d_model
    Tensor<Scalar> mean, rstd; // the norm's row statistics, R x 1
    Tensor<Scalar> branch;     // the branch's output, R x d_model
    // Attention branch.
    Tensor<Scalar> query;      // Q = X_q W^Q (R_q x d_model), or [X_q W_1 | .. | X_q W_h] (R_q x h d_model)
    Tensor<Scalar> key;        // K = X_kv W^K, R_k x d_model (factored only; full heads read X_kv)
    Tensor<Scalar> value;      // V = X_kv W^V, R_k x d_model
    Tensor<Scalar> attention;  // every sequence's A_1..A_h back to back, sum_b h n_q n_k
    Tensor<Scalar> concat;     // Concat(head_1..head_h), R_q x d_model
    // MLP branch.
    Tensor<Scalar> preActivation, hidden;  // R x d_ff
};

template <typename Scalar>
struct StackCache {
    std::vector<SublayerCache<Scalar>> sublayers;
    Tensor<Scalar> output;          // the stream after the last block, R x d_model
    Tensor<Scalar> final;           // norm(output) when the stack has a final norm
    Tensor<Scalar> mean, rstd;      // its row statistics
    const Tensor<Scalar>& result(const StackPlan& plan) const { return plan.hasFinalNorm ? final : output; }
};

template <typename Scalar>
struct ForwardWorkspace<Scalar>::State {
    ModelPlan plan;
    bool planned = false;
    RowMajorMatrix<Scalar> sinusoid;  // P x d_model, for PositionKind::Sinusoidal
    PackedBatch batch;
    StackCache<Scalar> encoder, decoder;
    Tensor<Scalar> logits, probabilities;  // T x V
    std::vector<std::int32_t> predictions; // T
    // Gradients of activations, reused by every block in turn.
    Tensor<Scalar> dStream, dMemory, dBranchInput, dBranchOutput;  // R x d_model (dMemory: S x d_model)
    Tensor<Scalar> dQuery, dKey, dValue, dConcat;                  // as query, key, value, concat
    Tensor<Scalar> dHidden, dPreActivation;                        // R x d_ff
    Tensor<Scalar> dLogits, dFinal;                                // T x V, T x d_model
    std::vector<Scalar, Eigen::aligned_allocator<Scalar>> dScores;  // n_q x n_k of one head

    // Prepares the plan and tables for `spec` (once per spec).
    void prepare(const ModelSpec& spec);
};

// How one attention sublayer of `spec` forms its heads (model_steps.hpp).
inline AttentionShape attentionShapeOf(const ModelSpec& spec, SublayerKind kind)
{
    AttentionShape shape;
    shape.headCount = spec.headCount;
    shape.d_k = spec.d_k();
    shape.sharedKeys = spec.scoreForm == ScoreForm::Full;
    shape.queryWidth = shape.sharedKeys ? spec.d_model : spec.d_k();
    shape.causal = kind == SublayerKind::CausalSelfAttention;
    return shape;
}

// A tensor of `parameters` (or of a gradient) at a plan's offset.
template <typename Scalar>
Eigen::Map<const RowMajorMatrix<Scalar>> parameterMatrix(const ModelParameters<Scalar>& parameters,
                                                        std::size_t offset, Index rows, Index cols)
{
    return {parameters.values.data() + offset, rows, cols};
}
template <typename Scalar>
Eigen::Map<RowMajorMatrix<Scalar>> parameterMatrix(ModelParameters<Scalar>& parameters, std::size_t offset,
                                                  Index rows, Index cols)
{
    return {parameters.values.data() + offset, rows, cols};
}

// Copies the batch's ids into state.batch (rows back to back). Preconditions: batchProblem is empty.
void packBatch(const ModelSpec& spec, const std::vector<SequencePair>& batch, PackedBatch& packed);

// The forward pass over state.batch: embeddings, the encoder (if any), the decoder, the final
// norms and the logits (T x V) into state.logits.
template <typename Scalar>
void modelForward(const ModelParameters<Scalar>& parameters, typename ForwardWorkspace<Scalar>::State& state);
// The decoder half alone (embeddings, decoder, final norm, logits), reading the encoder output
// an earlier modelForward left in `state` for the same sources (greedy decoding's later steps).
template <typename Scalar>
void decoderForward(const ModelParameters<Scalar>& parameters, typename ForwardWorkspace<Scalar>::State& state);
// The backward pass from state.dLogits (T x V) after modelForward; adds into `gradient`.
template <typename Scalar>
void modelBackward(const ModelParameters<Scalar>& parameters, typename ForwardWorkspace<Scalar>::State& state,
                   ModelParameters<Scalar>& gradient);

}  // namespace qkv
