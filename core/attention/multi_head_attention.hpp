#pragma once
// Multi-head scaled dot-product attention (paper section 3.2, equations (1) and 3.2.2).
//
// Symbols: n_q query tokens, n_k key/value tokens, d_model, h heads, d_k = d_v = d_model / h.
//   Q = X_q W^Q + b^Q,  K = X_kv W^K + b^K,  V = X_kv W^V + b^V          (n x d_model each)
//   scores_i = Q_i K_i^T / sqrt(d_k)  (+ -inf where masked)               (n_q x n_k)
//   A_i = softmax(scores_i) over each row; head_i = A_i V_i                (n_q x d_k)
//   Output = Concat(head_1..head_h) W^O + b^O                              (n_q x d_model)
// where Q_i is columns [i*d_k, (i+1)*d_k) of Q (the fused layout, design.md section 2).

#include <cmath>
#include <vector>

#include "core/attention/attention_mask.hpp"
#include "core/common/matrix.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

struct HeadAttention {
    MatrixF scores;     // n_q x n_k, Q_i K_i^T / sqrt(d_k), before the mask
    MatrixF attention;  // n_q x n_k, softmax of the masked scores; masked entries are exactly 0
};

struct AttentionResult {
    Index d_k = 0;
    MatrixF query;        // Q, n_q x d_model (head i: query.middleCols(i*d_k, d_k))
    MatrixF key;          // K, n_k x d_model
    MatrixF value;        // V, n_k x d_model
    std::vector<HeadAttention> heads;  // h entries
    MatrixF headOutputs;  // Concat(head_1..head_h), n_q x d_model
    MatrixF output;       // n_q x d_model
    AttentionMask mask;
    // fullyMaskedRows[q]: every key of query q is masked; its attention row is all zeros
    // (not NaN) and its head outputs are zero.
    std::vector<bool> fullyMaskedRows;

    Index headCount() const { return static_cast<Index>(heads.size()); }
    // q_i . k_j before the 1/sqrt(d_k) scale, recovered from the stored scaled score.
    double rawScore(Index head, Index query, Index key) const
    {
        return static_cast<double>(heads[static_cast<std::size_t>(head)].scores(query, key)) *
               std::sqrt(static_cast<double>(d_k));
    }
    Index queryCount() const { return query.rows(); }
    Index keyCount() const { return key.rows(); }
};

// Preconditions (checked by validateConfig / the pipeline, asserted here): weights are
// d_model x d_model with d_model = queryInput.cols() = keyValueInput.cols(), headCount divides
// d_model, mask.keyPadding is empty or has keyValueInput.rows() entries, causal only when
// n_q == n_k.
AttentionResult multiHeadAttentionForward(const MatrixF& queryInput,     // X_q,  n_q x d_model
                                          const MatrixF& keyValueInput,  // X_kv, n_k x d_model
                                          const AttentionWeights& weights, Index headCount,
                                          const AttentionMask& mask);

// Row-wise stable softmax of `scores` with masked entries excluded (step 3 of the forward
// pass). Subtracts each row's maximum over unmasked entries, starting from -infinity; a row with
// no unmasked entry becomes zeros and is reported through `fullyMasked` (n_q entries).
// Finite logits of any magnitude (even +-1e30) give no NaN.
MatrixF softmaxForward(const MatrixF& scores, const AttentionMask& mask,
                       std::vector<bool>& fullyMasked);

}  // namespace qkv
