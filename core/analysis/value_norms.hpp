#pragma once
// Value-weighted attention: how much of each key token actually reaches each query, per head
// and for the whole layer (Kobayashi, Kuribayashi, Yokoi and Inui, 2020, "Attention is not
// only a weight: analyzing transformers with vector norms": the output rewritten as a sum of
// weighted vectors, and the norm-based analysis of those vectors).
//
// Symbols: n_q queries, n_k keys, h query heads, g key/value heads, d_k, d_model = h d_k;
// head i reads key/value head kv(i) = keyValueHeadOf(i); a^i_qj = A_i(q, j).
// The layer output splits by heads and keys (the paper's reformulation; docs/architecture.md, "Numerical conventions"):
//   Output(q) = sum_i sum_j a^i_qj f_i(x_j) + b^O,
//   f_i(x_j) = (x_j W^V_kv(i) + b^V_kv(i)) W^O_i = V_kv(i)(j) W^O_i        (1 x d_model)
// with V_kv(i)(j) row j of the head's d_k value columns and W^O_i head i's d_k rows of W^O.
// So a weight a^i_qj alone says nothing about what key j adds: a large weight on a key whose
// transformed vector is short moves the output less than a small weight on a long one.
//   per head   N_i(q, j) = ||a^i_qj f_i(x_j)|| = a^i_qj ||f_i(x_j)||             (n_q x n_k)
//   layer      N(q, j)   = || sum_{i on} a^i_qj f_i(x_j) ||                       (n_q x n_k)
// Norms are Euclidean over d_model. b^O is left out, as in the paper: it is added to every
// query whatever the keys are, so it belongs to no token. Switched-off (ablated) heads are
// removed from the layer sum (their Concat block is zero, so they add nothing to the output)
// but still get their own N_i, the effect they would have if switched on. A fully masked query
// row has A_i(q, :) = 0, so its norms are 0.
//
// Computation: ||f_i(x_j)|| once per (head, key): n_k x d_k times d_k x d_model per head, in
// float as the layer itself runs (2 n_k d_model^2 flops in all). The layer norm is a sum over
// heads that may cancel, so it runs in double: per key j, the Gram matrix
// G_j = F_j^T F_j of F_j = [f_i(x_j)^T]_{i on} (d_model x h_on; h_on^2 d_model flops, one
// symmetric rank update), then N(q, j) = sqrt(a^T G_j a) with a = (a^i_qj)_{i on} (h_on^2 / 2
// per (q, j)). The products of float entries are exact in double, so rounding stays near
// h_on eps_double (sum_i a^i_qj ||f_i(x_j)||)^2 in the square: after the root, ~1e-7 of that
// scale at h = 32 when the heads cancel completely, and far below float resolution otherwise.
// (A thin QR of each F_j avoids the square but took 3x as long for a BERT-base-shaped layer.)
// Keys go in blocks shared among at most threadsFor(work) threads (parallelism.hpp).

#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

struct AttentionResult;
struct AttentionWeights;

struct ValueNorms {
    std::vector<MatrixF> heads;  // h entries, n_q x n_k each: N_i(q, j) = a^i_qj ||f_i(x_j)||
    MatrixF layer;               // n_q x n_k: N(q, j) = ||sum_{i on} a^i_qj f_i(x_j)||
    MatrixD transformedNorms;    // n_k x h: ||f_i(x_j)||, the length of what key j offers head i

    Index headCount() const { return static_cast<Index>(heads.size()); }
};

// The kernel on a computed layer: its attention maps (heads[i].attention, n_q x n_k), V
// (value, n_k x g d_k, biases included), grouping and ablation flags; outputProjection is W^O,
// (h d_k) x d_model. Errors: shapes that disagree (W^O rows, V's columns, attention sizes,
// ablation flags), non-finite V, W^O or attention weights.
Expected<ValueNorms> valueWeightedNorms(const AttentionResult& attention, const MatrixF& outputProjection);

// The same with the layer's weights (reads W^O).
Expected<ValueNorms> valueWeightedNorms(const AttentionResult& attention, const AttentionWeights& weights);

}  // namespace qkv
