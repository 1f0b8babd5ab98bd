// Tests of FactoredMatrix: W_i = W_i^Q (W_i^K)^T kept as two thin factors.
//
// Property tests run over many random shapes with fixed seeds; every reference value is
// computed here independently (dense products and Eigen's dense SVDs of dense()), never
// copied from the implementation's output.

#include "core/factored/factored_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/common/decompositions.hpp"
#include "core/common/random.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

MatrixD randomMatrixD(Index rows, Index cols, SplitMix64& rng)
{
    MatrixD m(rows, cols);
    for (Index r = 0; r < rows; ++r) {
        for (Index c = 0; c < cols; ++c) {
            m(r, c) = rng.uniform(-1.0, 1.0);
        }
    }
    return m;
}

MatrixF randomMatrixF(Index rows, Index cols, SplitMix64& rng)
{
    return randomMatrixD(rows, cols, rng).cast<float>();
}

// Singular values of the dense matrix, the O(d_model^3) way the class must avoid.
VectorD denseJacobiSingularValues(const MatrixD& dense)
{
    return Eigen::JacobiSVD<Eigen::MatrixXd>(Eigen::MatrixXd(dense)).singularValues();
}

// Divisors of n, for choosing h (and so d_k = d_model / h) in property tests.
std::vector<Index> divisorsOf(Index n)
{
    std::vector<Index> out;
    for (Index h = 1; h <= n; ++h) {
        if (n % h == 0) {
            out.push_back(h);
        }
    }
    return out;
}

struct RandomShape {
    Index d_model;
    Index d_k;
};

// d_model in [1, 96], d_k a divisor-derived head width d_model / h.
RandomShape randomShape(SplitMix64& rng)
{
    const Index d_model = 1 + static_cast<Index>(rng.next() % 96);
    const std::vector<Index> heads = divisorsOf(d_model);
    const Index h = heads[rng.next() % heads.size()];
    return {d_model, d_model / h};
}

// ---------------------------------------------------------------------------------------
// Construction and forHead

TEST(FactoredMatrix, StoresFactorsAndShapes)
{
    SplitMix64 rng(1);
    const MatrixD left = randomMatrixD(12, 3, rng);
    const MatrixD right = randomMatrixD(12, 3, rng);
    const FactoredMatrix w(left, right);
    EXPECT_EQ(w.d_model(), 12);
    EXPECT_EQ(w.d_k(), 3);
    EXPECT_MATRIX_NEAR(w.left(), left, 0.0);
    EXPECT_MATRIX_NEAR(w.right(), right, 0.0);
}

TEST(FactoredMatrix, FromFactorsRejectsMismatchedShapes)
{
    const auto bad = FactoredMatrix::fromFactors(MatrixD::Zero(8, 2), MatrixD::Zero(8, 3));
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().find("8 x 2"), std::string::npos) << bad.error();
    EXPECT_NE(bad.error().find("8 x 3"), std::string::npos) << bad.error();
    const auto bad2 = FactoredMatrix::fromFactors(MatrixD::Zero(8, 2), MatrixD::Zero(7, 2));
    EXPECT_FALSE(bad2.ok());
    EXPECT_TRUE(FactoredMatrix::fromFactors(MatrixD::Zero(8, 2), MatrixD::Zero(8, 2)).ok());
}

// W^Q(r, c) = 1000 r + c and W^K(r, c) = -(1000 r + c): every entry says where it came from.
AttentionWeights labelledWeights(Index d_model)
{
    AttentionWeights weights;
    weights.queryProjection.resize(d_model, d_model);
    weights.keyProjection.resize(d_model, d_model);
    for (Index r = 0; r < d_model; ++r) {
        for (Index c = 0; c < d_model; ++c) {
            weights.queryProjection(r, c) = static_cast<float>(1000 * r + c);
            weights.keyProjection(r, c) = -static_cast<float>(1000 * r + c);
        }
    }
    weights.valueProjection = MatrixF::Zero(d_model, d_model);
    weights.outputProjection = MatrixF::Zero(d_model, d_model);
    return weights;
}

TEST(FactoredMatrix, ForHeadPicksColumnBlocksOfWqAndWk)
{
    const Index d_model = 12;
    const AttentionWeights weights = labelledWeights(d_model);
    for (const Index h : {1, 2, 3, 4, 6, 12}) {
        const Index d_k = d_model / h;
        for (Index head = 0; head < h; ++head) {
            const FactoredMatrix w = FactoredMatrix::forHead(weights, h, head);
            ASSERT_EQ(w.d_model(), d_model);
            ASSERT_EQ(w.d_k(), d_k);
            // Head `head` owns columns head*d_k .. head*d_k + d_k - 1.
            for (Index r = 0; r < d_model; ++r) {
                for (Index j = 0; j < d_k; ++j) {
                    const double column = static_cast<double>(head * d_k + j);
                    EXPECT_EQ(w.left()(r, j), 1000.0 * r + column) << "h=" << h << " head=" << head;
                    EXPECT_EQ(w.right()(r, j), -(1000.0 * r + column)) << "h=" << h << " head=" << head;
                }
            }
        }
    }
}

TEST(FactoredMatrix, ForHeadMatchesPerHeadScores)
{
    // Head i's scores from the fused matrices, (X W^Q)[:, block] (X W^K)[:, block]^T, equal
    // X W_i X^T with W_i from forHead.
    SplitMix64 rng(7);
    const Index d_model = 16, h = 4, d_k = 4, n = 5;
    AttentionWeights weights;
    weights.queryProjection = randomMatrixF(d_model, d_model, rng);
    weights.keyProjection = randomMatrixF(d_model, d_model, rng);
    weights.valueProjection = randomMatrixF(d_model, d_model, rng);
    weights.outputProjection = randomMatrixF(d_model, d_model, rng);
    const MatrixD x = randomMatrixD(n, d_model, rng);
    const MatrixD q = x * weights.queryProjection.cast<double>();
    const MatrixD k = x * weights.keyProjection.cast<double>();
    for (Index head = 0; head < h; ++head) {
        const MatrixD expected = q.middleCols(head * d_k, d_k) * k.middleCols(head * d_k, d_k).transpose();
        const FactoredMatrix w = FactoredMatrix::forHead(weights, h, head);
        EXPECT_MATRIX_NEAR(MatrixD(x * w.dense() * x.transpose()), expected, 1e-12);
    }
}

TEST(FactoredMatrix, CheckedForHeadRejectsImpossibleHeads)
{
    const AttentionWeights weights = labelledWeights(12);
    EXPECT_TRUE(FactoredMatrix::checkedForHead(weights, 4, 3).ok());

    const auto notDivisor = FactoredMatrix::checkedForHead(weights, 5, 0);
    ASSERT_FALSE(notDivisor.ok());
    EXPECT_NE(notDivisor.error().find("does not divide"), std::string::npos) << notDivisor.error();
    EXPECT_FALSE(FactoredMatrix::checkedForHead(weights, 0, 0).ok());
    EXPECT_FALSE(FactoredMatrix::checkedForHead(weights, -2, 0).ok());
    EXPECT_FALSE(FactoredMatrix::checkedForHead(weights, 4, 4).ok());
    EXPECT_FALSE(FactoredMatrix::checkedForHead(weights, 4, -1).ok());

    AttentionWeights wrongShape = weights;
    wrongShape.keyProjection = MatrixF::Zero(12, 6);
    EXPECT_FALSE(FactoredMatrix::checkedForHead(wrongShape, 2, 0).ok());
    EXPECT_FALSE(FactoredMatrix::checkedForHead(AttentionWeights{}, 1, 0).ok());
}

// ---------------------------------------------------------------------------------------
// Dense forms

TEST(FactoredMatrix, DenseIsLeftTimesRightTransposeByHand)
{
    // left = [1 2; 3 4; 5 6], right = [1 0; 0 1; 1 1]:
    // W = [1 2 3; 3 4 7; 5 6 11] (row r of left dotted with row c of right).
    MatrixD left(3, 2), right(3, 2), expected(3, 3);
    left << 1, 2, 3, 4, 5, 6;
    right << 1, 0, 0, 1, 1, 1;
    expected << 1, 2, 3, 3, 4, 7, 5, 6, 11;
    EXPECT_MATRIX_NEAR(FactoredMatrix(left, right).dense(), expected, 0.0);
}

TEST(FactoredMatrix, DenseBlockEqualsBlockOfDense)
{
    SplitMix64 rng(11);
    for (int trial = 0; trial < 30; ++trial) {
        const RandomShape s = randomShape(rng);
        const FactoredMatrix w(randomMatrixD(s.d_model, s.d_k, rng), randomMatrixD(s.d_model, s.d_k, rng));
        const MatrixD dense = w.dense();
        const Index r0 = static_cast<Index>(rng.next() % s.d_model);
        const Index c0 = static_cast<Index>(rng.next() % s.d_model);
        const Index rows = 1 + static_cast<Index>(rng.next() % (s.d_model - r0));
        const Index cols = 1 + static_cast<Index>(rng.next() % (s.d_model - c0));
        EXPECT_MATRIX_NEAR(w.denseBlock(r0, c0, rows, cols), MatrixD(dense.block(r0, c0, rows, cols)), 1e-12);
    }
}

TEST(FactoredMatrix, DenseBlockClipsRequestsPastTheEdge)
{
    SplitMix64 rng(12);
    const FactoredMatrix w(randomMatrixD(10, 2, rng), randomMatrixD(10, 2, rng));
    const MatrixD dense = w.dense();
    EXPECT_MATRIX_NEAR(w.denseBlock(8, 7, 5, 100), MatrixD(dense.block(8, 7, 2, 3)), 1e-12);
    EXPECT_MATRIX_NEAR(w.denseBlock(-3, 0, 5, 10), MatrixD(dense.block(0, 0, 2, 10)), 1e-12);
    EXPECT_EQ(w.denseBlock(20, 0, 5, 5).size(), 0);
    EXPECT_EQ(w.denseBlock(0, 0, -1, 5).size(), 0);
    const Index huge = std::numeric_limits<Index>::max();
    EXPECT_MATRIX_NEAR(w.denseBlock(9, 9, huge, huge), MatrixD(dense.block(9, 9, 1, 1)), 1e-12);
}

TEST(FactoredMatrix, DenseSampledPicksRowsAndColumns)
{
    SplitMix64 rng(13);
    const FactoredMatrix w(randomMatrixD(64, 8, rng), randomMatrixD(64, 8, rng));
    const MatrixD dense = w.dense();
    std::vector<Index> rows, cols;
    for (Index i = 0; i < 64; i += 5) rows.push_back(i);
    for (Index i = 3; i < 64; i += 7) cols.push_back(i);
    cols.push_back(99);  // out of range: dropped
    const MatrixD sampled = w.denseSampled(rows, cols);
    ASSERT_EQ(sampled.rows(), static_cast<Index>(rows.size()));
    ASSERT_EQ(sampled.cols(), static_cast<Index>(cols.size()) - 1);
    for (Index r = 0; r < sampled.rows(); ++r) {
        for (Index c = 0; c < sampled.cols(); ++c) {
            EXPECT_NEAR(sampled(r, c), dense(rows[r], cols[c]), 1e-12);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Spectrum, rank, norm

TEST(FactoredMatrix, SingularValuesMatchDenseSvdProperty)
{
    // For random factors, the d_k values from the factors equal the top d_k singular values
    // of dense() (Jacobi and BDC, both computed here on the d_model x d_model matrix), and the
    // remaining d_model - d_k dense values are zero up to rounding.
    SplitMix64 rng(2024);
    for (int trial = 0; trial < 60; ++trial) {
        const RandomShape s = randomShape(rng);
        const FactoredMatrix w(randomMatrixD(s.d_model, s.d_k, rng), randomMatrixD(s.d_model, s.d_k, rng));
        const VectorD& sigma = w.singularValues();
        const MatrixD dense = w.dense();
        const VectorD jacobi = denseJacobiSingularValues(dense);
        const VectorD bdc = Eigen::BDCSVD<Eigen::MatrixXd>(Eigen::MatrixXd(dense)).singularValues();
        ASSERT_EQ(sigma.size(), s.d_k) << "d_model=" << s.d_model << " d_k=" << s.d_k;
        for (Index i = 0; i < s.d_k; ++i) {
            EXPECT_NEAR(sigma(i), jacobi(i), 1e-9 * jacobi(i)) << "i=" << i << " d_model=" << s.d_model << " d_k=" << s.d_k;
            EXPECT_NEAR(sigma(i), bdc(i), 1e-9 * bdc(i)) << "i=" << i << " d_model=" << s.d_model << " d_k=" << s.d_k;
            if (i > 0) {
                EXPECT_LE(sigma(i), sigma(i - 1));  // decreasing
            }
        }
        for (Index i = s.d_k; i < s.d_model; ++i) {
            EXPECT_LE(jacobi(i), 1e-12 * jacobi(0));
        }
    }
}

TEST(FactoredMatrix, SpectrumIsInvariantUnderSwapAndScales)
{
    // sigma(W^T) = sigma(W) (swap factors) and sigma(c W) = |c| sigma(W).
    SplitMix64 rng(5);
    for (int trial = 0; trial < 20; ++trial) {
        const RandomShape s = randomShape(rng);
        const MatrixD left = randomMatrixD(s.d_model, s.d_k, rng);
        const MatrixD right = randomMatrixD(s.d_model, s.d_k, rng);
        const VectorD sigma = FactoredMatrix(left, right).singularValues();
        const VectorD swapped = FactoredMatrix(right, left).singularValues();
        const VectorD scaled = FactoredMatrix(-3.0 * left, right).singularValues();
        EXPECT_MATRIX_NEAR(swapped, sigma, 1e-12 * sigma(0));
        EXPECT_MATRIX_NEAR(scaled, VectorD(3.0 * sigma), 3e-12 * sigma(0));
    }
}

TEST(FactoredMatrix, RankEqualsDkForRandomWeights)
{
    SplitMix64 rng(99);
    for (int trial = 0; trial < 60; ++trial) {
        const RandomShape s = randomShape(rng);
        const FactoredMatrix w(randomMatrixD(s.d_model, s.d_k, rng), randomMatrixD(s.d_model, s.d_k, rng));
        EXPECT_EQ(w.numericalRank(), s.d_k) << "d_model=" << s.d_model << " d_k=" << s.d_k;
    }
}

TEST(FactoredMatrix, RankDropsWithDuplicatedColumn)
{
    // Two equal columns in W_i^Q: W_i^Q = A P with P merging two columns, rank d_k - 1.
    SplitMix64 rng(3);
    for (const Index d_model : {8, 64, 128}) {
        const Index d_k = d_model / 4;
        MatrixD left = randomMatrixD(d_model, d_k, rng);
        left.col(1) = left.col(0);
        const FactoredMatrix w(left, randomMatrixD(d_model, d_k, rng));
        EXPECT_EQ(w.numericalRank(), d_k - 1) << "d_model=" << d_model;
        // The dense matrix agrees (independent check with a dense SVD and the same tolerance).
        const VectorD dense = denseJacobiSingularValues(w.dense());
        const double tolerance = dense(0) * d_model * std::numeric_limits<double>::epsilon();
        EXPECT_EQ((dense.array() > tolerance).count(), d_k - 1);
    }
}

TEST(FactoredMatrix, RankOfProductWithInnerDimension)
{
    // W_i^Q = A B with A d_model x r and B r x d_k: rank(W_i) = r for random A, B, W_i^K.
    SplitMix64 rng(4);
    const Index d_model = 96, d_k = 32;
    for (const Index r : {0, 1, 2, 5, 17, 31, 32}) {
        const MatrixD left = randomMatrixD(d_model, r, rng) * randomMatrixD(r, d_k, rng);
        const FactoredMatrix w(left, randomMatrixD(d_model, d_k, rng));
        EXPECT_EQ(w.numericalRank(), r) << "r=" << r;
    }
    // Both factors low rank: rank <= min of the two (here the generic value min(r1, r2)).
    const MatrixD left = randomMatrixD(d_model, 3, rng) * randomMatrixD(3, d_k, rng);
    const MatrixD right = randomMatrixD(d_model, 7, rng) * randomMatrixD(7, d_k, rng);
    EXPECT_EQ(FactoredMatrix(left, right).numericalRank(), 3);
}

TEST(FactoredMatrix, ToleranceIsSigmaMaxTimesDModelTimesEpsilon)
{
    SplitMix64 rng(8);
    const FactoredMatrix w(randomMatrixD(40, 10, rng), randomMatrixD(40, 10, rng));
    const double sigmaMax = denseJacobiSingularValues(w.dense())(0);
    EXPECT_NEAR(w.rankTolerance(), sigmaMax * 40 * std::numeric_limits<double>::epsilon(),
                1e-9 * sigmaMax * 40 * std::numeric_limits<double>::epsilon());
}

TEST(FactoredMatrix, ZeroMatrixHasRankZero)
{
    const FactoredMatrix w(MatrixD::Zero(16, 4), MatrixD::Zero(16, 4));
    ASSERT_EQ(w.singularValues().size(), 4);
    EXPECT_EQ(w.singularValues().cwiseAbs().maxCoeff(), 0.0);
    EXPECT_EQ(w.rankTolerance(), 0.0);
    EXPECT_EQ(w.numericalRank(), 0);
    EXPECT_EQ(w.frobeniusNorm(), 0.0);
    // One zero factor is enough.
    SplitMix64 rng(1);
    EXPECT_EQ(FactoredMatrix(randomMatrixD(16, 4, rng), MatrixD::Zero(16, 4)).numericalRank(), 0);
}

TEST(FactoredMatrix, OneByOne)
{
    // W = [3] [-2]^T = [-6]: sigma = 6, rank 1, ||W||_F = 6, tolerance 6 * 1 * eps.
    const FactoredMatrix w(MatrixD::Constant(1, 1, 3.0), MatrixD::Constant(1, 1, -2.0));
    ASSERT_EQ(w.singularValues().size(), 1);
    EXPECT_DOUBLE_EQ(w.singularValues()(0), 6.0);
    EXPECT_EQ(w.numericalRank(), 1);
    EXPECT_DOUBLE_EQ(w.frobeniusNorm(), 6.0);
    EXPECT_DOUBLE_EQ(w.rankTolerance(), 6.0 * std::numeric_limits<double>::epsilon());
    EXPECT_DOUBLE_EQ(w.dense()(0, 0), -6.0);
}

TEST(FactoredMatrix, RankOneByHand)
{
    // W = u v^T with u = (3, 4), v = (1, 0, 0) padded: sigma_1 = |u| |v| = 5 * 1.
    MatrixD left(3, 1), right(3, 1);
    left << 3, 4, 0;
    right << 1, 0, 0;
    const FactoredMatrix w(left, right);
    EXPECT_NEAR(w.singularValues()(0), 5.0, 1e-14);
    EXPECT_EQ(w.numericalRank(), 1);
}

TEST(FactoredMatrix, DkEqualsDModel)
{
    // h = 1: the factors are square and W_i can have full rank d_model.
    SplitMix64 rng(6);
    for (const Index d_model : {1, 2, 7, 32, 80}) {
        const FactoredMatrix w(randomMatrixD(d_model, d_model, rng), randomMatrixD(d_model, d_model, rng));
        const VectorD dense = denseJacobiSingularValues(w.dense());
        ASSERT_EQ(w.singularValues().size(), d_model);
        // The smallest singular value of a product of random squares can be small; compare
        // relative to sigma_max here.
        EXPECT_MATRIX_NEAR(w.singularValues(), dense, 1e-9 * dense(0));
        EXPECT_EQ(w.numericalRank(), d_model);
    }
}

TEST(FactoredMatrix, FrobeniusNormEqualsDenseNormProperty)
{
    SplitMix64 rng(77);
    for (int trial = 0; trial < 40; ++trial) {
        const RandomShape s = randomShape(rng);
        const FactoredMatrix w(randomMatrixD(s.d_model, s.d_k, rng), randomMatrixD(s.d_model, s.d_k, rng));
        const double expected = w.dense().norm();
        EXPECT_NEAR(w.frobeniusNorm(), expected, 1e-12 * expected);
    }
}

TEST(FactoredMatrix, NonFiniteFactorsGiveNaNNotAHang)
{
    MatrixD left = MatrixD::Ones(8, 2);
    left(3, 1) = std::numeric_limits<double>::quiet_NaN();
    const FactoredMatrix w(left, MatrixD::Ones(8, 2));
    ASSERT_EQ(w.singularValues().size(), 2);
    EXPECT_TRUE(std::isnan(w.singularValues()(0)));
    EXPECT_EQ(w.numericalRank(), 0);
}

TEST(FactoredMatrix, EmptyFactors)
{
    const FactoredMatrix w(MatrixD(0, 0), MatrixD(0, 0));
    EXPECT_EQ(w.singularValues().size(), 0);
    EXPECT_EQ(w.numericalRank(), 0);
    EXPECT_EQ(w.frobeniusNorm(), 0.0);
    EXPECT_EQ(w.rankTolerance(), 0.0);
}

TEST(FactoredMatrix, CopiesShareTheSpectrumAndThreadsAgree)
{
    SplitMix64 rng(10);
    const FactoredMatrix w(randomMatrixD(128, 16, rng), randomMatrixD(128, 16, rng));
    const FactoredMatrix copy = w;  // spectrum not computed yet
    std::vector<VectorD> seen(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] { seen[t] = (t % 2 ? copy : w).singularValues(); });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    const VectorD expected = denseJacobiSingularValues(w.dense()).head(16);
    for (const VectorD& values : seen) {
        EXPECT_MATRIX_NEAR(values, expected, 1e-9 * expected(0));
    }
    EXPECT_EQ(&w.singularValues(), &copy.singularValues());  // one shared cache
}

// ---------------------------------------------------------------------------------------
// Equivalence of the two ways of computing scores, equation (1)

TEST(FactoredMatrix, EquivalenceReportProperty)
{
    SplitMix64 rng(31337);
    for (int trial = 0; trial < 40; ++trial) {
        const RandomShape s = randomShape(rng);
        const Index n_q = 1 + static_cast<Index>(rng.next() % 12);
        const Index n_k = 1 + static_cast<Index>(rng.next() % 12);
        const MatrixF wq = randomMatrixF(s.d_model, s.d_k, rng);
        const MatrixF wk = randomMatrixF(s.d_model, s.d_k, rng);
        const MatrixF xq = randomMatrixF(n_q, s.d_model, rng);
        const MatrixF xkv = randomMatrixF(n_k, s.d_model, rng);
        const FactoredMatrix w(wq.cast<double>(), wk.cast<double>());
        const EquivalenceReport report = equivalenceReport(w, xq, xkv);

        // Independent reference: the full-W_i way, in double, computed here.
        const MatrixD viaDense = xq.cast<double>() * (wq.cast<double>() * wk.cast<double>().transpose()) *
                                 xkv.cast<double>().transpose();
        const double scale = viaDense.cwiseAbs().maxCoeff();
        EXPECT_NEAR(report.maxAbsScore, scale, 1e-12 * scale);
        EXPECT_LE(report.relativeError, 1e-5);
        EXPECT_NEAR(report.relativeError, report.maxAbsDifference / report.maxAbsScore, 1e-15);

        // And the way a model computes it, in float: (X_q W_i^Q)(X_kv W_i^K)^T within 1e-5.
        const MatrixF viaFactorsFloat = (xq * wq) * (xkv * wk).transpose();
        EXPECT_LE((viaFactorsFloat.cast<double>() - viaDense).cwiseAbs().maxCoeff(), 1e-5 * scale)
            << "d_model=" << s.d_model << " d_k=" << s.d_k;
    }
}

TEST(FactoredMatrix, EquivalenceReportByHand)
{
    // W_i^Q = [1; 0], W_i^K = [0; 1] -> W_i = [0 1; 0 0]. X_q = [2 3], X_kv = [5 7; 1 -4]:
    // scores = X_q W_i X_kv^T = [2*7, 2*(-4)] = [14, -8]; max |score| = 14, difference 0.
    MatrixD left(2, 1), right(2, 1);
    left << 1, 0;
    right << 0, 1;
    MatrixF xq(1, 2), xkv(2, 2);
    xq << 2, 3;
    xkv << 5, 7, 1, -4;
    const EquivalenceReport report = equivalenceReport(FactoredMatrix(left, right), xq, xkv);
    EXPECT_DOUBLE_EQ(report.maxAbsScore, 14.0);
    EXPECT_DOUBLE_EQ(report.maxAbsDifference, 0.0);
    EXPECT_DOUBLE_EQ(report.relativeError, 0.0);
}

TEST(FactoredMatrix, EquivalenceReportOnBadShapesIsNaN)
{
    const FactoredMatrix w(MatrixD::Ones(4, 2), MatrixD::Ones(4, 2));
    const EquivalenceReport report = equivalenceReport(w, MatrixF::Ones(3, 5), MatrixF::Ones(2, 4));
    EXPECT_TRUE(std::isnan(report.relativeError));
    const EquivalenceReport empty = equivalenceReport(w, MatrixF(0, 4), MatrixF::Ones(2, 4));
    EXPECT_EQ(empty.relativeError, 0.0);
    const EquivalenceReport zero = equivalenceReport(w, MatrixF::Zero(3, 4), MatrixF::Ones(2, 4));
    EXPECT_EQ(zero.maxAbsScore, 0.0);
    EXPECT_EQ(zero.relativeError, 0.0);
}

}  // namespace
}  // namespace qkv

namespace qkv {
namespace {

TEST(ScoresBothWays, BothMatricesAreTheScoresAndTheReportComparesThem)
{
    const Index d_model = 12, d_k = 3, n_q = 4, n_k = 5;
    const MatrixD left = MatrixD::Random(d_model, d_k), right = MatrixD::Random(d_model, d_k);
    const FactoredMatrix factored(left, right);
    const MatrixF x_q = MatrixF::Random(n_q, d_model), x_kv = MatrixF::Random(n_k, d_model);
    const ScoresBothWays both = scoresBothWays(factored, x_q, x_kv);

    // Written out independently: Q_i K_i^T with Q_i = X_q W_i^Q, K_i = X_kv W_i^K.
    const MatrixD q = x_q.cast<double>() * left, k = x_kv.cast<double>() * right;
    EXPECT_MATRIX_NEAR(both.factored, q * k.transpose(), 1e-12);
    EXPECT_MATRIX_NEAR(both.full, q * k.transpose(), 1e-12);
    EXPECT_DOUBLE_EQ(both.report.maxAbsDifference, (both.full - both.factored).cwiseAbs().maxCoeff());
    EXPECT_DOUBLE_EQ(both.report.maxAbsScore, both.factored.cwiseAbs().maxCoeff());
    const EquivalenceReport alone = equivalenceReport(factored, x_q, x_kv);
    EXPECT_EQ(alone.maxAbsDifference, both.report.maxAbsDifference);
    EXPECT_EQ(alone.relativeError, both.report.relativeError);
}

TEST(ScoresBothWays, MismatchedInputsGiveEmptyMatricesAndNaNs)
{
    const FactoredMatrix factored(MatrixD::Random(6, 2), MatrixD::Random(6, 2));
    const ScoresBothWays both = scoresBothWays(factored, MatrixF::Random(3, 5), MatrixF::Random(3, 6));
    EXPECT_EQ(both.factored.size(), 0);
    EXPECT_EQ(both.full.size(), 0);
    EXPECT_TRUE(std::isnan(both.report.relativeError));
}

}  // namespace
}  // namespace qkv
