#pragma once
// The two ways of computing one head's (unscaled, bias-free) scores, both matrices kept for
// display (paper section 3.2.2):
//   factored: (X_q W_i^Q)(X_kv W_i^K)^T     O(n_q d_model d_k + n_k d_model d_k + n_q n_k d_k)
//   full:      X_q W_i X_kv^T, W_i = W_i^Q (W_i^K)^T formed densely (d_model x d_model)
// The maximum difference shown comes from core's equivalenceReport(); this helper only
// returns the two matrices, which core does not expose. Qt-free: it can move to
// core/factored as is.

#include "core/common/matrix.hpp"
#include "core/factored/factored_matrix.hpp"

namespace qkv::ui {

struct ScoresBothWays {
    MatrixD factored;  // (X_q W_i^Q)(X_kv W_i^K)^T, n_q x n_k
    MatrixD full;      // X_q W_i X_kv^T,           n_q x n_k
    EquivalenceReport report;  // from core: max |full - factored| and relative error
};

// X_q: n_q x d_model, X_kv: n_k x d_model (float, as attention runs); computed in double.
ScoresBothWays scoresBothWays(const FactoredMatrix& factored, const MatrixF& queryInput,
                              const MatrixF& keyValueInput);

}  // namespace qkv::ui
