#pragma once
// The Q/K map of one head: the rows of Q_i and K_i projected together onto the first two
// principal components of the stacked [Q_i; K_i], so that queries and the keys they score
// highly can be seen side by side. docs/formats.md (`heads[i].qk_projection`) is the
// user-facing definition.
//
// Symbols: n_q queries, n_k keys, N = n_q + n_k points, d_k coordinates each.
//   M = [Q_i; K_i] (N x d_k, double), mu = mean of its rows, M_c = M - mu
//   C = M_c^T M_c (d_k x d_k); its top eigenpairs (lambda_1 >= lambda_2, v_1, v_2) are the
//   principal axes; coordinates M_c [v_1 v_2]; explained variance ratio lambda_k / trace(C),
//   trace(C) = ||M_c||_F^2.
// Q_i and K_i are what the scores use: after rotation when the layer uses rotary positions,
// and the key block of the head's key/value group under grouped-query attention.
//
// Deterministic sign: each loading vector v_k is flipped so that its largest-magnitude entry
// (the lowest index among equal magnitudes) is positive, so the picture does not flip between
// runs.
// Degenerate cases: an axis whose eigenvalue is at most trace(C) * max(N, d_k) * epsilon
// (no variance beyond rounding) gets a zero loading vector, zero coordinates and ratio 0. So
// d_k = 1 gives one axis (second coordinate 0, ratio 0), all points equal give all zeros, and
// N = 2 gives a single axis through the two points.
//
// Method: the eigenproblem of the smaller Gram matrix, m = min(N, d_k): C (d_k x d_k) or
// M_c M_c^T (N x N), formed by a symmetric rank update in O(N d_k m), rather than an SVD of the
// N x d_k matrix (~4x the flops at N = 8192, d_k = 128). Squaring the condition number costs
// accuracy only in the small eigenvalues, which are discarded: the top two pairs and the ratios
// agree with an SVD to ~1e-12 (the tests compare at 1e-9). m <= 384: a dense symmetric
// eigen-decomposition, O(m^3). Above (only d_k > 384, i.e. h = 1 or 2 at d_model >= 768, with
// as many tokens): block Lanczos (a growing block Krylov basis with full reorthogonalisation
// and Rayleigh-Ritz) for the top two pairs, O(m^2) per step, because the dense solver takes ~2 s
// at m = 1024 and minutes at 4096. It stops when both pairs' residuals are below
// 1e-10 lambda_1, or at a 256-vector basis (a flat spectrum, where the two axes are barely
// defined anyway); `residual` reports where it stopped.
// Measured (one thread, this 2-core VM while shared): n_q = n_k = 4096 with d_k = 128, 20-35 ms;
// d_k = 64, 8-10 ms; 2048 + 2048 points at d_k = 1024, 0.56 s; 4096 + 4096 at d_k = 4096, 12 s
// (mostly forming the Gram matrix). Memory: M_c and the Gram matrix in double, one head at a time.

#include <array>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

struct Result;
struct AttentionResult;

struct QkProjection {
    MatrixD queries;      // n_q x 2: (q - mu) . v_1, (q - mu) . v_2
    MatrixD keys;         // n_k x 2
    std::array<double, 2> explainedVarianceRatio{0.0, 0.0};  // r_1 >= r_2 >= 0, r_1 + r_2 <= 1
    MatrixD axes;         // d_k x 2: v_1, v_2 (unit, or zero for an axis without variance)
    Eigen::RowVectorXd mean;  // 1 x d_k: mu
    bool iterative = false;  // the block Lanczos path was used (m > 384)
    double residual = 0.0;   // max ||C v - lambda v|| / lambda_1 of the two axes (0: dense path)
};

// The kernel: queries (n_q x d_k) and keys (n_k x d_k) as the scores use them. Errors: different
// column counts, no columns, no rows at all, non-finite values.
Expected<QkProjection> qkProjection(const Eigen::Ref<const MatrixF>& queries, const Eigen::Ref<const MatrixF>& keys);

// Head `head` (0-based) of a computed layer: Q_i = queryHead(head), K_i = keyHead(head).
Expected<QkProjection> qkProjection(const AttentionResult& attention, Index head);
// What the views call.
Expected<QkProjection> qkProjection(const Result& result, Index head);

namespace detail {
// The top two eigenpairs of a symmetric positive semi-definite matrix (m x m), values
// decreasing, vectors as columns (m x 2; one column when m = 1). Exposed for tests, which
// compare the block Lanczos path with the dense one.
struct TopEigenpairs {
    std::array<double, 2> values{0.0, 0.0};
    Eigen::MatrixXd vectors;  // m x min(m, 2)
};
TopEigenpairs topTwoEigenpairsDense(const Eigen::MatrixXd& gram);
TopEigenpairs topTwoEigenpairsKrylov(const Eigen::MatrixXd& gram);
}  // namespace detail

}  // namespace qkv
