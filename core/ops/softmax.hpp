#pragma once
// Softmax over each row of scores (paper section 3.2.1, equation (1)), forward beside backward,
// in the three forms the code runs, each keeping the same rules:
//   - only the keys a query sees count (attention_mask.hpp's visible range, key padding);
//   - the row maximum starts from -infinity (no magic lower bound), so exp() never overflows
//     whatever the logits' magnitude (even +-1e30);
//   - a +inf logit is the limit of ever larger finite logits: the infinite entries share the
//     weight equally;
//   - no visible key, or every visible logit -inf: no distribution exists, the row becomes zeros
//     (never NaN) and is flagged "fully masked".
// Forms:
//   softmaxRow / softmaxForward    float rows of an attention map (the attention layer's blocks)
//   softmaxRowsForward / Backward  the trainable model's one sequence (float and double)
//   softmaxInPlace                 a whole row without a mask (double, the head presets' fit)
//   raiseRunningMaximum ...        the online form (Milakov & Gimelshein 2018): a row's maximum
//                                  and normaliser gathered one tile of keys at a time (the
//                                  streamed maps of long rows)
// The loops that promise a row's bits (head_blocks.cpp, streamed_attention.cpp) stay where they
// are and call these rules.

#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Core>

#include "core/common/matrix.hpp"
#include "core/ops/attention_mask.hpp"

namespace qkv {

// ---- One row of an attention map --------------------------------------------------------------

// How a row's maximum over its visible keys (started from -infinity) decides the row.
enum class SoftmaxRowCase {
    FullyMasked,     // maximum -inf: no visible key, or every visible logit -inf
    InfiniteLogits,  // maximum +inf: the +inf entries share the weight equally
    Finite,          // exp(s - max) / sum
};
constexpr SoftmaxRowCase softmaxRowCase(float rowMax)
{
    if (rowMax == -std::numeric_limits<float>::infinity()) return SoftmaxRowCase::FullyMasked;
    if (rowMax == std::numeric_limits<float>::infinity()) return SoftmaxRowCase::InfiniteLogits;
    return SoftmaxRowCase::Finite;
}

// attention[k] = exp(scores[k] - max) / sum for the keys `query` may see, 0 for every other key
// (n_k entries each; the two may be the same memory, to normalise in place). Returns false for
// a fully masked row (zeros).
bool softmaxRow(const float* scores, float* attention, Index n_k, Index query, const AttentionMask& mask);

// softmaxRow on every row of `scores` (n_q x n_k). fullyMasked gets n_q flags (softmaxRow's
// false). Rows are shared among at most threadsFor(work) threads (parallelism.hpp; the app allows one).
MatrixF softmaxForward(const MatrixF& scores, const AttentionMask& mask, std::vector<bool>& fullyMasked);

// ---- The trainable model's sequence (core/trainable) -----------------------------------------------

// In place: each row of scores (n_q x n_k, contiguous) becomes exp(s - max) / sum over the keys
// the query sees (visibleKeysEnd); causal rows see keys 0..q and get exact zeros after. Every
// row sees at least key 0 and the model's scores are finite, so no row is fully masked here and
// the maximum is the visible keys' own. Templated on Scalar: float trains, double checks the
// gradients.
template <typename Scalar>
void softmaxRowsForward(Scalar* scores, Index n_q, Index n_k, bool causal);
// dS = A * (dA - rowsum(dA * A)) (the softmax's Jacobian); masked entries have A = 0, so dS = 0.
// Written (not added) into dScores, which may alias dAttention.
template <typename Scalar>
void softmaxRowsBackward(Scalar* dScores, const Scalar* dAttention, const Scalar* attention, Index n_q, Index n_k);

// ---- A whole row, no mask -----------------------------------------------------------------------

// In place over an Eigen row expression: row = exp(row - max) / sum (one division per entry).
// For rows every key of which is visible, with finite entries (the head presets' fit).
template <class Row>
void softmaxInPlace(Row&& row)
{
    row.array() -= row.maxCoeff();
    row = row.array().exp().matrix();
    row /= row.sum();
}

// ---- The online form: one tile of keys at a time ------------------------------------------------

// A row's running maximum m (from -infinity) and normaliser Z = sum_j exp(s_j - m) over the
// tiles seen so far. A tile whose visible scores' maximum is tileMax raises m when larger and
// rescales Z by exp(m_old - m_new) (Z is 0 while m is -inf). False: the tile adds nothing (every
// key in it padded, tileMax -inf); else the caller adds sum exp(s - m) of the tile to Z.
inline bool raiseRunningMaximum(float tileMax, float& m, double& sum)
{
    constexpr float minusInfinity = -std::numeric_limits<float>::infinity();
    if (tileMax == minusInfinity) return false;
    if (tileMax > m) {
        sum = m == minusInfinity ? 0.0 : sum * std::exp(static_cast<double>(m) - static_cast<double>(tileMax));
        m = tileMax;
    }
    return true;
}

// Whether a finished row's (m, Z) can give weights: a +inf or NaN score (or an overflowed Z)
// cannot, and the online form refuses it (unlike softmaxRow, it cannot go back over the tiles
// to share the weight among the +inf entries). A row with no visible key (m -inf, Z 0) is fine:
// its weights are zeros (runningSoftmaxWeights is not called for it).
inline bool runningRowIsFinite(float m, double sum)
{
    return std::isfinite(sum) && m != std::numeric_limits<float>::infinity() && !std::isnan(m);
}

// weights = exp(s - m) / Z over a span of a row's visible scores, vectorised (one reciprocal,
// rounded to float, and a multiply per key), from the row's final m and Z.
template <class Scores>
void runningSoftmaxWeights(const Scores& scores, float m, double sum, RowVectorF& weights)
{
    weights.resize(scores.size());
    weights.array() = (scores.array() - m).exp() * static_cast<float>(1.0 / sum);
}

}  // namespace qkv
