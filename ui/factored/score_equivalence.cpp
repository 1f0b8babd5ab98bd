#include "ui/factored/score_equivalence.hpp"

namespace qkv::ui {

ScoresBothWays scoresBothWays(const FactoredMatrix& factored, const MatrixF& queryInput,
                              const MatrixF& keyValueInput)
{
    ScoresBothWays out;
    if (queryInput.cols() != factored.d_model() || keyValueInput.cols() != factored.d_model()) {
        return out;  // empty matrices; the view shows nothing rather than crash
    }
    const MatrixD xq = queryInput.cast<double>();    // n_q x d_model
    const MatrixD xkv = keyValueInput.cast<double>();  // n_k x d_model

    // 1. factored: project both sides into the d_k-dimensional head space, then dot products.
    const MatrixD q = xq * factored.left();    // X_q W_i^Q,  n_q x d_k
    const MatrixD k = xkv * factored.right();  // X_kv W_i^K, n_k x d_k
    out.factored = q * k.transpose();          // n_q x n_k

    // 2. full: the d_model x d_model bilinear form, then both inputs.
    const MatrixD w = factored.dense();        // W_i, d_model x d_model
    out.full = (xq * w) * xkv.transpose();     // n_q x n_k

    // 3. the difference as core measures it.
    out.report = equivalenceReport(factored, queryInput, keyValueInput);
    return out;
}

}  // namespace qkv::ui
