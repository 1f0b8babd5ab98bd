#pragma once
// Multi-head scaled dot-product attention (paper section 3.2, equations (1) and 3.2.2), with
// g key/value heads (grouped-query attention) and optional rotary positions.
//
// Symbols: n_q query tokens, n_k key/value tokens, d_model, h query heads, g key/value heads,
// d_k = d_v the head width (d_model / h unless the weights say otherwise); query head i reads
// key/value head j = i / (h / g).
//   Q = X_q W^Q + b^Q  (n_q x h d_k),  K = X_kv W^K + b^K  (n_k x g d_k),  V = X_kv W^V + b^V  (n_k x g d_v)
//   q/k norms only (Qwen3): Q and K RMS-normalised per head (or whole) with their scales
//   rotary only: each d_k block of Q and K rotated by its row's position (rotary.hpp)
//   scores_i = Q_i K_j^T / sqrt(d_k)  (+ -inf where masked)               (n_q x n_k)
//   soft-capped only (Gemma 2): the softmax reads c tanh(scores_i / c)
//   A_i = softmax(scores_i) over each row; head_i = A_i V_j                (n_q x d_v)
//   Output = Concat(head_1..head_h) W^O + b^O, ablated heads' blocks zero  (n_q x d_model)
// where Q_i is columns [i d_k, (i+1) d_k) of Q (the fused layout, docs/architecture.md, "Numerical conventions").

#include <cmath>
#include <vector>

#include "core/ops/attention_mask.hpp"
#include "core/attention/rotary.hpp"
#include "core/ops/softmax.hpp"
#include "core/common/matrix.hpp"
#include "core/config/attention_conventions.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

struct AttentionOptions {
    AttentionMask mask;
    RotaryLayout rotary = RotaryLayout::None;
    // The layer's rotary base, scaling and share (rotary only: applyRotary), its scores' d and soft
    // cap, held as one value (core/config/attention_conventions.hpp). Its slidingWindow reaches the
    // forward pass through `mask` (mask.window, causal layers only), which the caller sets from it.
    // scoreDim: the d of 1/sqrt(d); 0 for d_k. A full W_i head is shown as W_i^Q = W_i, W_i^K = I
    // (so the layer's d_k is d_model) while its model scales by the d_k it was trained with,
    // d_model / h. Gemma's query_pre_attn_scalar is such a d too. scoreSoftCap (Gemma 2): the
    // softmax reads c tanh(s / c) of each scaled score s, which keeps every logit within (-c, c);
    // 0: none. HeadAttention::scores stay the scaled scores s.
    AttentionConventions conventions;
    // Rotary only: the position of the first row of X_q and X_kv (a causal layer typed on
    // computes its new rows from there, causal_extension.hpp).
    Index firstPosition = 0;
    bool scaleScores = true;      // false: scores = Q_i K_j^T (T5)
    std::vector<bool> ablated;    // h entries or empty; true: head's Concat block is zeroed
    // Keep every head's scores (HeadAttention::scores) in the result: the heads grid's raw and
    // scaled scores, the step view, the cell tooltip and every export format read them, so the
    // app and the export keep them (the default). Without them a result holds h n_q n_k fewer
    // floats (256 MiB at n = 2048, h = 16, half of all its attention maps) and the forward
    // pass writes half as much; attention, head outputs and output are the same numbers.
    bool keepScores = true;
    // Keep every head's weights (HeadAttention::attention). Off only where nobody reads the maps:
    // the model run below a layer whose input a view shows needs each layer's output alone, and
    // holds L h n^2 fewer floats.
    bool keepWeights = true;
};

struct HeadAttention {
    MatrixF scores;     // n_q x n_k, Q_i K_j^T * scoreScale, before the cap and mask; empty without keepScores
    MatrixF attention;  // n_q x n_k, softmax of the masked scores; masked entries are exactly 0
};

struct AttentionResult {
    HeadGrouping grouping;   // h, g, d_k
    float scoreScale = 1.0f; // 1/sqrt(d_k) (or of AttentionConventions::scoreDim), or 1 when scores are not scaled
    double scoreDivisor = 1.0;  // sqrt(d_k) (or of scoreDim), or 1: the stored score times it is q_i . k_j
    double scoreSoftCap = 0.0;  // AttentionConventions::scoreSoftCap: the softmax read c tanh(score / c); 0: none
    RotaryLayout rotary = RotaryLayout::None;
    Index rotaryDims = 0;  // the components of each head rotary turned (0: every d_k)
    MatrixF query;        // Q, n_q x h d_k, after rotation when rotary
    MatrixF key;          // K, n_k x g d_k, after rotation when rotary
    MatrixF value;        // V, n_k x g d_v
    MatrixF queryBeforeRotation;  // rotary only: Q as projected (and normed, with q/k norms; else empty)
    MatrixF keyBeforeRotation;    // rotary only: K as projected (and normed, with q/k norms; else empty)
    std::vector<HeadAttention> heads;  // h entries
    MatrixF headOutputs;  // Concat(head_1..head_h), n_q x h d_v, every head (ablated or not)
    MatrixF output;       // n_q x d_model: Concat with ablated blocks zeroed, times W^O, + b^O
    std::vector<bool> ablated;  // h entries
    AttentionMask mask;
    // fullyMaskedRows[q]: every key of query q is masked; its attention row is all zeros
    // (not NaN) and its head outputs are zero.
    std::vector<bool> fullyMaskedRows;

    Index headCount() const { return static_cast<Index>(heads.size()); }
    Index d_k() const { return grouping.d_k; }
    Index queryCount() const { return query.rows(); }
    Index keyCount() const { return key.rows(); }
    Index d_v() const { return grouping.valueDim(); }
    // Q_i, K_j (n x d_k views) and V_j, head_i (n x d_v views) of query head i.
    auto queryHead(Index head) const { return query.middleCols(head * grouping.d_k, grouping.d_k); }
    auto keyHead(Index head) const { return key.middleCols(grouping.keyValueHeadOf(head) * grouping.d_k, grouping.d_k); }
    auto valueHead(Index head) const
    {
        return value.middleCols(grouping.keyValueHeadOf(head) * grouping.valueDim(), grouping.valueDim());
    }
    auto headOutput(Index head) const { return headOutputs.middleCols(head * grouping.valueDim(), grouping.valueDim()); }
    bool isAblated(Index head) const { return !ablated.empty() && ablated[static_cast<std::size_t>(head)]; }
    // What turns a stored (scaled) score back into q_i . k_j: sqrt(d_k), or 1 without scaling.
    double rawScoreFactor() const { return scoreDivisor; }
    bool keepsScores() const { return !heads.empty() && heads.front().scores.size() > 0; }
    // q_i . k_j before the scale, recovered from the stored score (recomputed from Q_i and K_j,
    // in float, when the scores were not kept).
    double rawScore(Index head, Index query, Index key) const
    {
        if (!keepsScores()) return static_cast<double>(queryHead(head).row(query).dot(keyHead(head).row(key)));
        return static_cast<double>(heads[static_cast<std::size_t>(head)].scores(query, key)) * rawScoreFactor();
    }
};

// Preconditions (checked by validateConfig / the pipeline, asserted here): weights fit
// `grouping` (AttentionWeights::shapeProblem is empty) with d_model = queryInput.cols() =
// keyValueInput.cols(); options.mask.keyPadding is empty or has keyValueInput.rows() entries;
// causal only when n_q == n_k; d_k even when rotary.
AttentionResult multiHeadAttentionForward(const MatrixF& queryInput,     // X_q,  n_q x d_model
                                          const MatrixF& keyValueInput,  // X_kv, n_k x d_model
                                          const AttentionWeights& weights, const HeadGrouping& grouping,
                                          const AttentionOptions& options);

// The forward pass's steps on their own, for callers that compute steps 2-4 otherwise (the
// streamed attention of long prompts, streamed_layer.hpp):
// step 1 (projections, q/k norms, rotation) and the scale; heads gets h entries with empty maps,
// headOutputs and output are left empty.
AttentionResult projectAttentionInputs(const MatrixF& queryInput, const MatrixF& keyValueInput,
                                       const AttentionWeights& weights, const HeadGrouping& grouping,
                                       const AttentionOptions& options);
// Step 5 from result.headOutputs (n_q x h d_v): output = Concat W^O + b^O, ablated blocks zero.
// With firstRow > 0 only output's rows from there (output must be n_q x d_model already).
void projectAttentionOutput(AttentionResult& result, const AttentionWeights& weights, Index firstRow = 0);

// The paper's layer with h = headCount query heads, g read from the weights' shapes, scaled
// scores, no rotation and no ablation.
inline AttentionResult multiHeadAttentionForward(const MatrixF& queryInput, const MatrixF& keyValueInput,
                                                 const AttentionWeights& weights, Index headCount,
                                                 const AttentionMask& mask)
{
    AttentionOptions options;
    options.mask = mask;
    return multiHeadAttentionForward(queryInput, keyValueInput, weights, weights.grouping(headCount), options);
}

}  // namespace qkv
