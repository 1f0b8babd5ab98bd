// The Q/K map: principal axes of the stacked [Q_i; K_i] (definitions in qk_projection.hpp).
//
// Symbols: N = n_q + n_k points, d_k coordinates, m = min(N, d_k), M_c (N x d_k) centred.
//   (1) C = M_c^T M_c (d_k x d_k) when d_k <= N, else the dual G = M_c M_c^T (N x N): both have
//       the same non-zero eigenvalues, and G u = lambda u gives the loading v = M_c^T u / sqrt(lambda)
//   (2) top two eigenpairs of the m x m matrix: dense (m <= 384) or block Lanczos
//   (3) sign: largest-magnitude entry of each loading positive
//   (4) coordinates M_c v_k; ratios lambda_k / ||M_c||_F^2

#include "core/analysis/qk_projection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <string>

#include "core/analysis/head_range.hpp"
#include "core/common/decompositions.hpp"
#include "core/common/random.hpp"
#include "core/result/result.hpp"

namespace qkv {

namespace {

constexpr Index denseLimit = 384;        // largest m solved densely
constexpr Index krylovBlockSize = 4;     // vectors added per block Lanczos step
constexpr Index krylovBasisLimit = 256;  // the basis stops growing here
constexpr double krylovTolerance = 1e-10;  // residual / lambda_1 that counts as converged

// (3) Flip v so that its largest-magnitude entry (the first of equal ones) is positive.
void fixSign(Eigen::Ref<Eigen::VectorXd> v)
{
    Index largest = 0;
    for (Index j = 1; j < v.size(); ++j)
        if (std::abs(v(j)) > std::abs(v(largest))) largest = j;
    if (v(largest) < 0.0) v = -v;
}

// Appends `candidate` to the orthonormal columns [0, count) of `basis` after removing its part
// in their span (two passes: "twice is enough"). False when (almost) nothing is left of it.
bool appendOrthogonal(Eigen::MatrixXd& basis, Index& count, Eigen::VectorXd candidate)
{
    const double before = candidate.norm();
    if (!(before > 0.0)) return false;
    for (int pass = 0; pass < 2; ++pass)
        candidate.noalias() -= basis.leftCols(count) * (basis.leftCols(count).transpose() * candidate);
    const double after = candidate.norm();
    if (!(after > 1e-8 * before)) return false;
    basis.col(count++) = candidate / after;
    return true;
}

Eigen::VectorXd deterministicRandomVector(Index size, SplitMix64& rng)
{
    Eigen::VectorXd v(size);
    for (Index i = 0; i < size; ++i) v(i) = rng.uniform(-1.0, 1.0);
    return v;
}

}  // namespace

namespace detail {

TopEigenpairs topTwoEigenpairsDense(const Eigen::MatrixXd& gram)
{
    const Index m = gram.rows();
    TopEigenpairs top;
    top.vectors = Eigen::MatrixXd::Zero(m, std::min<Index>(m, 2));
    if (m == 0) return top;
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(gram);  // values increasing
    for (Index k = 0; k < top.vectors.cols(); ++k) {
        top.values[static_cast<std::size_t>(k)] = solver.eigenvalues()(m - 1 - k);
        top.vectors.col(k) = solver.eigenvectors().col(m - 1 - k);
    }
    return top;
}

// Block Lanczos: the basis V grows by C times its newest block, orthogonalised against all of
// V; Rayleigh-Ritz on H = V^T C V gives the approximate pairs. A block that falls into span(V)
// is replaced by pseudo-random vectors (fixed seed), so an eigenvalue of multiplicity up to the
// block size is found and the basis reaches all of R^m when it must.
TopEigenpairs topTwoEigenpairsKrylov(const Eigen::MatrixXd& gram)
{
    const Index m = gram.rows();
    const Index wanted = std::min<Index>(m, 2);
    TopEigenpairs top;
    top.vectors = Eigen::MatrixXd::Zero(m, wanted);
    if (m == 0) return top;
    const Index capacity = std::min(m, krylovBasisLimit);
    Eigen::MatrixXd basis(m, capacity);  // V, orthonormal columns
    Eigen::MatrixXd image(m, capacity);  // C V
    SplitMix64 rng(0x9E3779B97F4A7C15ull);
    Index count = 0, blockStart = 0, nextCheck = 16;
    bool stalled = false;  // a step added nothing (cannot happen before the basis spans R^m)
    for (Index j = 0; j < krylovBlockSize && count < capacity; ++j)
        appendOrthogonal(basis, count, deterministicRandomVector(m, rng));

    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> ritz;
    while (true) {
        image.middleCols(blockStart, count - blockStart).noalias() = gram * basis.middleCols(blockStart, count - blockStart);
        const bool full = count == capacity || stalled;
        if (count >= nextCheck || full) {
            // Rayleigh-Ritz, every 16 vectors (the small eigenproblem costs O(count^3)).
            Eigen::MatrixXd h = basis.leftCols(count).transpose() * image.leftCols(count);  // count x count
            h = 0.5 * (h + h.transpose()).eval();
            ritz.compute(h);
            const double lambda1 = std::max(ritz.eigenvalues()(count - 1), 0.0);
            bool converged = true;
            for (Index k = 0; k < wanted; ++k) {
                const Eigen::VectorXd y = ritz.eigenvectors().col(count - 1 - k);
                const double theta = ritz.eigenvalues()(count - 1 - k);
                const double residual = (image.leftCols(count) * y - theta * (basis.leftCols(count) * y)).norm();
                converged = converged && residual <= krylovTolerance * lambda1;
            }
            if (converged || full) {
                for (Index k = 0; k < wanted; ++k) {
                    top.values[static_cast<std::size_t>(k)] = ritz.eigenvalues()(count - 1 - k);
                    top.vectors.col(k) = basis.leftCols(count) * ritz.eigenvectors().col(count - 1 - k);
                }
                return top;
            }
            nextCheck = count + 16;
        }
        // The next block: C times the newest block (the Krylov step).
        const Index newestStart = blockStart, newestEnd = count;
        blockStart = count;
        for (Index j = newestStart; j < newestEnd && count < capacity; ++j)
            if (!appendOrthogonal(basis, count, image.col(j)))
                appendOrthogonal(basis, count, deterministicRandomVector(m, rng));
        stalled = count == blockStart;  // nothing added: settle with what there is
    }
}

}  // namespace detail

namespace {

// (1)-(3) and the ratios of (4): fills axes, explainedVarianceRatio, iterative and residual of
// `projection` from the centred points (N x d_k) whose squared norm is `total` > 0.
void principalAxes(const Eigen::MatrixXd& centred, double total, QkProjection& projection)
{
    const Index N = centred.rows(), d_k = centred.cols();
    // (1) The smaller Gram matrix, lower triangle by a rank update (half the products).
    const bool dual = N < d_k;
    const Index m = std::min(N, d_k);
    Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(m, m);
    if (dual) gram.selfadjointView<Eigen::Lower>().rankUpdate(centred);          // N x N
    else gram.selfadjointView<Eigen::Lower>().rankUpdate(centred.transpose());  // d_k x d_k
    gram.triangularView<Eigen::StrictlyUpper>() = gram.transpose();
    // (2)
    projection.iterative = m > denseLimit;
    const detail::TopEigenpairs top =
        projection.iterative ? detail::topTwoEigenpairsKrylov(gram) : detail::topTwoEigenpairsDense(gram);
    // An eigenvalue within rounding of zero is no variance: its axis stays zero.
    const double noVariance = total * static_cast<double>(std::max(N, d_k)) * std::numeric_limits<double>::epsilon();
    for (Index k = 0; k < top.vectors.cols(); ++k) {
        const double lambda = top.values[static_cast<std::size_t>(k)];
        if (!(lambda > noVariance)) continue;
        Eigen::VectorXd v = dual ? Eigen::VectorXd(centred.transpose() * top.vectors.col(k)) : Eigen::VectorXd(top.vectors.col(k));
        const double norm = v.norm();
        if (!(norm > 0.0)) continue;
        v /= norm;
        fixSign(v);  // (3)
        projection.axes.col(k) = v;
        projection.explainedVarianceRatio[static_cast<std::size_t>(k)] = std::min(lambda / total, 1.0);  // (4)
        if (projection.iterative) {
            const Eigen::VectorXd u = top.vectors.col(k);
            projection.residual = std::max(projection.residual, (gram * u - lambda * u).norm() / top.values[0]);
        }
    }
}

}  // namespace

Expected<QkProjection> qkProjection(const Eigen::Ref<const MatrixF>& queries, const Eigen::Ref<const MatrixF>& keys)
{
    const Index n_q = queries.rows(), n_k = keys.rows(), d_k = queries.cols();
    if (keys.cols() != d_k)
        return Error{"Q/K map: the queries have " + std::to_string(d_k) + " columns but the keys have " +
                     std::to_string(keys.cols())};
    if (d_k < 1) return Error{"Q/K map: the queries and keys have no columns (d_k = 0)"};
    if (n_q + n_k < 1) return Error{"Q/K map: there are no queries and no keys"};
    if (!queries.allFinite() || !keys.allFinite()) return Error{"Q/K map: Q_i or K_i contains NaN or infinite values"};

    try {
        const Index N = n_q + n_k;
        Eigen::MatrixXd centred(N, d_k);  // M_c, N x d_k (column-major: the solvers' layout)
        centred.topRows(n_q) = queries.cast<double>();
        centred.bottomRows(n_k) = keys.cast<double>();
        QkProjection projection;
        projection.mean = centred.colwise().mean();  // 1 x d_k
        centred.rowwise() -= projection.mean;
        projection.axes = MatrixD::Zero(d_k, 2);
        const double total = centred.squaredNorm();  // trace(C): the total variance (times N)

        if (total > 0.0) principalAxes(centred, total, projection);
        // (4) Coordinates on the two axes (zero columns give zero coordinates).
        const Eigen::MatrixXd coordinates = centred * Eigen::MatrixXd(projection.axes);  // N x 2
        projection.queries = coordinates.topRows(n_q);
        projection.keys = coordinates.bottomRows(n_k);
        return projection;
    } catch (const std::bad_alloc&) {
        return Error{"Q/K map: not enough memory for " + std::to_string(n_q + n_k) + " points of " + std::to_string(d_k) +
                     " coordinates in double"};
    }
}

Expected<QkProjection> qkProjection(const AttentionResult& attention, Index head)
{
    if (head < 0 || head >= attention.headCount()) return Error{headRangeProblem(head, attention.headCount())};
    return qkProjection(attention.queryHead(head), attention.keyHead(head));
}

Expected<QkProjection> qkProjection(const Result& result, Index head)
{
    return qkProjection(result.attention, head);
}

}  // namespace qkv
