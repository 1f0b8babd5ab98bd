#pragma once
// The bilinear form of one head, W_i = W_i^Q (W_i^K)^T, kept as its two thin factors.
//
// Without biases, Q_i K_i^T = (X_q W_i^Q)(X_kv W_i^K)^T = X_q W_i X_kv^T (paper section 3.2.2):
// the d_model x d_model matrix W_i has rank <= d_k and costs d_model^2 parameters, while the
// factors cost 2 * d_model * d_k. Like TransformerLens's FactoredMatrix, for one head.
// All analysis in double (docs/architecture.md, "Numerical conventions").

#include <memory>
#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

// Copies share the (immutable) cached spectrum; a FactoredMatrix may be read from several
// threads at once (the spectrum is computed once, under std::call_once).
class FactoredMatrix {
public:
    // left = W_i^Q (d_model x d_k), right = W_i^K (d_model x d_k).
    // Precondition: left and right have the same shape (checked by fromFactors()).
    FactoredMatrix(MatrixD left, MatrixD right);
    // The constructor with its precondition checked: an Error (not a crash) when the shapes
    // of the two factors differ.
    static Expected<FactoredMatrix> fromFactors(MatrixD left, MatrixD right);
    // Head `head` (0-based) of a layer with h = headCount query heads: W_i^Q is its column block
    // of W^Q, W_i^K the block of W^K of the key/value head it reads (AttentionWeights knows the
    // layout). Preconditions: weights.shapeProblem(headCount) is empty, 0 <= head < headCount
    // (checked by checkedForHead()).
    static FactoredMatrix forHead(const AttentionWeights& weights, Index headCount, Index head);
    static Expected<FactoredMatrix> checkedForHead(const AttentionWeights& weights,
                                                   Index headCount, Index head);

    Index d_model() const { return left_.rows(); }
    Index d_k() const { return left_.cols(); }
    const MatrixD& left() const { return left_; }    // W_i^Q
    const MatrixD& right() const { return right_; }  // W_i^K

    // W_i = left * right^T, d_model x d_model. Forms the dense matrix: O(d_model^2 d_k).
    MatrixD dense() const;
    // Rows [row0, row0+rows) and columns [col0, col0+cols) of W_i, without forming all of it:
    // left.middleRows(row0, rows) * right.middleRows(col0, cols)^T, O(rows cols d_k).
    // A request that reaches past the edge is clipped to the matrix (the result is then
    // smaller than asked; empty when nothing overlaps); it never reads out of bounds.
    MatrixD denseBlock(Index row0, Index col0, Index rows, Index cols) const;
    // W_i at the listed rows and columns only: result(r, c) = W_i(rowIndices[r], colIndices[c]).
    // For drawing W_i at a reduced resolution (every k-th row and column) at large d_model.
    // Indices outside [0, d_model) are dropped.
    MatrixD denseSampled(const std::vector<Index>& rowIndices,
                         const std::vector<Index>& colIndices) const;

    // Singular values of W_i in decreasing order, min(d_model, d_k) of them (d_k in any
    // attention layer; the rest of W_i's d_model singular values are exactly zero). From thin
    // QRs of the factors and the SVD of the d_k x d_k middle R_L R_R^T: O(d_model d_k^2),
    // never an SVD of the dense matrix. Non-finite factors give NaN values (and rank 0).
    const VectorD& singularValues() const;
    // sigma_max * d_model * epsilon (the usual matrix-rank tolerance).
    double rankTolerance() const;
    // Number of singular values above rankTolerance().
    Index numericalRank() const;
    // ||W_i||_F = sqrt(sum sigma^2), from the singular values.
    double frobeniusNorm() const;

private:
    struct SpectrumCache;

    MatrixD left_;   // d_model x d_k
    MatrixD right_;  // d_model x d_k
    std::shared_ptr<SpectrumCache> spectrum_;  // filled on first use of singularValues()
};

// How far the two ways of computing a head's scores disagree.
struct EquivalenceReport {
    double maxAbsDifference = 0.0;  // max |X_q W_i X_kv^T - (X_q W_i^Q)(X_kv W_i^K)^T|
    double maxAbsScore = 0.0;       // max |(X_q W_i^Q)(X_kv W_i^K)^T|
    double relativeError = 0.0;     // maxAbsDifference / max(maxAbsScore, tiny)
};
// Unscaled (no 1/sqrt(d_k)), no biases; X_q is n_q x d_model, X_kv is n_k x d_model.
// Computed in double from the float inputs. Inputs whose column count is not d_model give
// a report of NaNs (never a crash).
EquivalenceReport equivalenceReport(const FactoredMatrix& factored, const MatrixF& queryInput,
                                    const MatrixF& keyValueInput);

// Both score matrices, for showing them side by side, and their report (one dense W_i formed).
struct ScoresBothWays {
    MatrixD factored;          // (X_q W_i^Q)(X_kv W_i^K)^T, n_q x n_k
    MatrixD full;              // X_q W_i X_kv^T,             n_q x n_k
    EquivalenceReport report;  // as equivalenceReport() gives it
};
// Same inputs and conventions as equivalenceReport(); mismatched columns give empty matrices
// and a report of NaNs.
ScoresBothWays scoresBothWays(const FactoredMatrix& factored, const MatrixF& queryInput,
                              const MatrixF& keyValueInput);

}  // namespace qkv
