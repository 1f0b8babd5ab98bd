// The factored bilinear form of one head (paper section 3.2.2).
//
// Symbols (once per file, the llm.c way):
//   d_model  model width; rows of both factors and the side of W_i
//   d_k      columns of each factor (d_model / h in a standard layer)
//   m        min(d_model, d_k): how many singular values W_i can have that are not
//            structurally zero
//   n_q, n_k query and key/value token counts (rows of X_q and X_kv)
//
// Equations used here:
//   (1) scores without biases, head i:
//         Q_i K_i^T = (X_q W_i^Q)(X_kv W_i^K)^T = X_q (W_i^Q (W_i^K)^T) X_kv^T = X_q W_i X_kv^T
//   (2) thin QR of each factor: W_i^Q = Q_L R_L, W_i^K = Q_R R_R,
//         Q_L, Q_R: d_model x m with orthonormal columns; R_L, R_R: m x d_k (upper trapezoidal)
//   (3) W_i = Q_L (R_L R_R^T) Q_R^T; multiplying by matrices with orthonormal columns keeps
//       singular values, so sigma(W_i) = sigma(M) with the m x m middle M = R_L R_R^T.
//       Cost: two QRs, O(d_model d_k^2), plus an SVD of m x m, O(d_k^3); never O(d_model^3).
//   (4) rank tolerance tau = sigma_max * d_model * epsilon(double); rank = #{sigma > tau}.
//   (5) ||W_i||_F^2 = sum sigma^2.

#include "core/factored/factored_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <string>

#include "core/common/decompositions.hpp"

namespace qkv {

namespace {

// Column-major scratch type: Eigen's QR and SVD are written for (and fastest in) column-major.
using ColMajorD = Eigen::MatrixXd;

// Equations (2) and (3): singular values of left * right^T through the thin factors.
VectorD singularValuesThroughFactors(const MatrixD& left, const MatrixD& right)
{
    const Index m = std::min(left.rows(), left.cols());
    if (m == 0) {
        return VectorD();
    }
    if (!left.allFinite() || !right.allFinite()) {
        // An SVD of NaN/Inf has no meaning; say so with NaNs rather than iterate on garbage.
        return VectorD::Constant(m, std::numeric_limits<double>::quiet_NaN());
    }

    // (2) Thin QR of each d_model x d_k factor; only the m x d_k R is needed.
    const Eigen::HouseholderQR<ColMajorD> qrLeft{ColMajorD(left)};    // W_i^Q = Q_L R_L
    const Eigen::HouseholderQR<ColMajorD> qrRight{ColMajorD(right)};  // W_i^K = Q_R R_R
    const ColMajorD rLeft = qrLeft.matrixQR().topRows(m).triangularView<Eigen::Upper>();    // m x d_k
    const ColMajorD rRight = qrRight.matrixQR().topRows(m).triangularView<Eigen::Upper>();  // m x d_k

    // (3) The m x m middle M = R_L R_R^T has the same singular values as W_i.
    const ColMajorD middle = rLeft * rRight.transpose();  // m x m
    // Values only. BDCSVD falls back to one-sided Jacobi below 16 columns and uses divide and
    // conquer above, so d_k = d_model = 4096 (h = 1) stays practical.
    Eigen::BDCSVD<ColMajorD> svd(middle);
    return svd.singularValues();  // decreasing, non-negative
}

// [start, start + count) clipped to [0, size): returns {first, length}.
std::pair<Index, Index> clipRange(Index start, Index count, Index size)
{
    const Index first = std::clamp<Index>(start, 0, size);
    Index last = first;
    if (count > 0) {
        // start + count computed without overflow: how far the request reaches past `first`.
        const Index reach = start >= first ? count : count - std::min(count, first - start);
        last = first + std::min(reach, size - first);
    }
    return {first, last - first};
}

std::vector<Index> inRange(const std::vector<Index>& indices, Index size)
{
    std::vector<Index> kept;
    kept.reserve(indices.size());
    for (const Index i : indices) {
        if (i >= 0 && i < size) {
            kept.push_back(i);
        }
    }
    return kept;
}

}  // namespace

struct FactoredMatrix::SpectrumCache {
    std::once_flag once;
    VectorD values;
};

FactoredMatrix::FactoredMatrix(MatrixD left, MatrixD right)
    : left_(std::move(left)), right_(std::move(right)), spectrum_(std::make_shared<SpectrumCache>())
{
    eigen_assert(left_.rows() == right_.rows() && left_.cols() == right_.cols());
}

Expected<FactoredMatrix> FactoredMatrix::fromFactors(MatrixD left, MatrixD right)
{
    if (left.rows() != right.rows() || left.cols() != right.cols()) {
        return Error{"the factors of W_i must have the same shape: W_i^Q is " +
                     std::to_string(left.rows()) + " x " + std::to_string(left.cols()) +
                     " but W_i^K is " + std::to_string(right.rows()) + " x " +
                     std::to_string(right.cols())};
    }
    return FactoredMatrix(std::move(left), std::move(right));
}

FactoredMatrix FactoredMatrix::forHead(const AttentionWeights& weights, Index headCount, Index head)
{
    eigen_assert(weights.shapeProblem(headCount).empty());
    eigen_assert(head >= 0 && head < headCount);
    const HeadGrouping grouping = weights.grouping(headCount);
    // W_i^Q = W^Q[:, i d_k : (i+1) d_k]; W_i^K is the block of the key/value head that head i
    // reads (its own block when g = h) (docs/architecture.md, "Numerical conventions").
    return FactoredMatrix(weights.queryHead(head, grouping).cast<double>(),
                          weights.keyHead(head, grouping).cast<double>());
}

Expected<FactoredMatrix> FactoredMatrix::checkedForHead(const AttentionWeights& weights,
                                                        Index headCount, Index head)
{
    if (const std::string problem = weights.shapeProblem(headCount); !problem.empty()) {
        return Error{"there is no head to factor: " + problem};
    }
    if (head < 0 || head >= headCount) {
        return Error{"head " + std::to_string(head + 1) + " does not exist; heads are 1.." +
                     std::to_string(headCount)};
    }
    return forHead(weights, headCount, head);
}

MatrixD FactoredMatrix::dense() const
{
    return left_ * right_.transpose();  // W_i = W_i^Q (W_i^K)^T, d_model x d_model
}

MatrixD FactoredMatrix::denseBlock(Index row0, Index col0, Index rows, Index cols) const
{
    const auto [r, nr] = clipRange(row0, rows, d_model());
    const auto [c, nc] = clipRange(col0, cols, d_model());
    // W_i[r:r+nr, c:c+nc] = W_i^Q[r:r+nr, :] (W_i^K[c:c+nc, :])^T, O(nr nc d_k).
    return left_.middleRows(r, nr) * right_.middleRows(c, nc).transpose();
}

MatrixD FactoredMatrix::denseSampled(const std::vector<Index>& rowIndices,
                                     const std::vector<Index>& colIndices) const
{
    const std::vector<Index> rows = inRange(rowIndices, d_model());
    const std::vector<Index> cols = inRange(colIndices, d_model());
    const MatrixD leftRows = left_(rows, Eigen::all);    // |rows| x d_k
    const MatrixD rightRows = right_(cols, Eigen::all);  // |cols| x d_k
    return leftRows * rightRows.transpose();
}

const VectorD& FactoredMatrix::singularValues() const
{
    if (!spectrum_) {  // only a moved-from object has no cache; its factors are empty too
        static const VectorD empty;
        return empty;
    }
    std::call_once(spectrum_->once,
                   [this] { spectrum_->values = singularValuesThroughFactors(left_, right_); });
    return spectrum_->values;
}

double FactoredMatrix::rankTolerance() const
{
    const VectorD& sigma = singularValues();
    if (sigma.size() == 0) {
        return 0.0;
    }
    // (4): sigma_max * d_model * epsilon. sigma is sorted, so sigma(0) is the largest.
    return sigma(0) * static_cast<double>(d_model()) * std::numeric_limits<double>::epsilon();
}

Index FactoredMatrix::numericalRank() const
{
    const double tolerance = rankTolerance();
    const VectorD& sigma = singularValues();
    // Strictly above: the zero matrix (tolerance 0) has rank 0; NaN compares false -> 0.
    return static_cast<Index>((sigma.array() > tolerance).count());
}

double FactoredMatrix::frobeniusNorm() const
{
    // (5): ||W_i||_F = sqrt(sum sigma^2); stableNorm avoids overflow for huge entries.
    const VectorD& sigma = singularValues();
    return sigma.size() == 0 ? 0.0 : sigma.stableNorm();
}

ScoresBothWays scoresBothWays(const FactoredMatrix& factored, const MatrixF& queryInput,
                              const MatrixF& keyValueInput)
{
    ScoresBothWays out;
    EquivalenceReport& report = out.report;
    if (queryInput.cols() != factored.d_model() || keyValueInput.cols() != factored.d_model()) {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        report.maxAbsDifference = report.maxAbsScore = report.relativeError = nan;
        return out;
    }
    const MatrixD xq = queryInput.cast<double>();      // n_q x d_model
    const MatrixD xkv = keyValueInput.cast<double>();  // n_k x d_model
    // (1), factored: project both sides into the d_k-dimensional head space, then dot products.
    out.factored = (xq * factored.left()) * (xkv * factored.right()).transpose();  // n_q x n_k
    // (1), full: the d_model x d_model bilinear form W_i between both inputs.
    out.full = (xq * factored.dense()) * xkv.transpose();  // n_q x n_k
    if (out.factored.size() == 0) return out;  // no scores: nothing can disagree

    report.maxAbsDifference = (out.full - out.factored).cwiseAbs().maxCoeff();
    report.maxAbsScore = out.factored.cwiseAbs().maxCoeff();
    report.relativeError =
        report.maxAbsDifference / std::max(report.maxAbsScore, std::numeric_limits<double>::min());
    return out;
}

EquivalenceReport equivalenceReport(const FactoredMatrix& factored, const MatrixF& queryInput,
                                    const MatrixF& keyValueInput)
{
    return scoresBothWays(factored, queryInput, keyValueInput).report;
}

}  // namespace qkv
