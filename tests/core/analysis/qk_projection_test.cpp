// The Q/K map against Eigen's SVD of the centred stack (computed here), its invariants over
// many random shapes, the degenerate cases, and the block Lanczos path against the dense one.

#include "core/analysis/qk_projection.hpp"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "analysis_test_support.hpp"
#include "core/common/decompositions.hpp"
#include "core/config/examples.hpp"
#include "core/pipeline/compute.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

using testing::randomMatrixF;

struct Reference {
    Eigen::MatrixXd centred;  // N x d_k
    Eigen::VectorXd squaredSingularValues;
    Eigen::MatrixXd rightVectors;  // d_k x r
    double total = 0.0;
};

Reference referenceSvd(const MatrixF& queries, const MatrixF& keys)
{
    Reference ref;
    ref.centred.resize(queries.rows() + keys.rows(), queries.cols());
    ref.centred << queries.cast<double>(), keys.cast<double>();
    ref.centred.rowwise() -= ref.centred.colwise().mean();
    ref.total = ref.centred.squaredNorm();
    const Eigen::BDCSVD<Eigen::MatrixXd> svd(ref.centred, Eigen::ComputeThinV);
    ref.squaredSingularValues = svd.singularValues().array().square();
    ref.rightVectors = svd.matrixV();
    return ref;
}

void expectInvariants(const QkProjection& p, Index n_q, Index n_k, Index d_k)
{
    ASSERT_EQ(p.queries.rows(), n_q);
    ASSERT_EQ(p.keys.rows(), n_k);
    ASSERT_EQ(p.queries.cols(), 2);
    ASSERT_EQ(p.axes.rows(), d_k);
    EXPECT_TRUE(p.queries.allFinite() && p.keys.allFinite() && p.axes.allFinite());
    const double r1 = p.explainedVarianceRatio[0], r2 = p.explainedVarianceRatio[1];
    EXPECT_GE(r1, r2);
    EXPECT_GE(r2, 0.0);
    EXPECT_LE(r1 + r2, 1.0 + 1e-12);
    for (Index k = 0; k < 2; ++k) {
        const double norm = p.axes.col(k).norm();
        if (norm == 0.0) {
            EXPECT_EQ(p.explainedVarianceRatio[static_cast<std::size_t>(k)], 0.0);
            EXPECT_EQ(p.queries.col(k).cwiseAbs().sum() + p.keys.col(k).cwiseAbs().sum(), 0.0);
            continue;
        }
        EXPECT_NEAR(norm, 1.0, 1e-12);
        // The sign rule: the largest-magnitude loading is positive.
        Index largest = 0;
        p.axes.col(k).cwiseAbs().maxCoeff(&largest);
        EXPECT_GT(p.axes(largest, k), 0.0);
        // Coordinates are centred, and their spread is the ratio of the total variance.
        const double sum = p.queries.col(k).sum() + p.keys.col(k).sum();
        const double spread = p.queries.col(k).squaredNorm() + p.keys.col(k).squaredNorm();
        EXPECT_NEAR(sum, 0.0, 1e-9 * (1.0 + std::sqrt(spread)));
        const double total = (p.queries.squaredNorm() + p.keys.squaredNorm()) /
                             std::max(r1 + r2, 1e-300);  // the variance the two axes carry, over r1 + r2
        EXPECT_NEAR(spread / total, p.explainedVarianceRatio[static_cast<std::size_t>(k)], 1e-9);
    }
    if (p.axes.col(0).norm() > 0.0 && p.axes.col(1).norm() > 0.0) {
        EXPECT_NEAR(p.axes.col(0).dot(p.axes.col(1)), 0.0, 1e-9);
    }
}

TEST(QkProjection, MatchesTheSvdOfTheCentredStackOverManyRandomShapes)
{
    SplitMix64 rng(1234);
    int compared = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const Index d_k = 1 + static_cast<Index>(rng.next() % 12);
        const Index n_q = static_cast<Index>(rng.next() % 15);
        const Index n_k = (n_q == 0 ? 1 : 0) + static_cast<Index>(rng.next() % 15);
        // Anisotropic points, so the axes are well separated most of the time.
        MatrixF stretch = MatrixF::Zero(d_k, d_k);
        for (Index j = 0; j < d_k; ++j) stretch(j, j) = static_cast<float>(std::pow(0.6, static_cast<double>(j)));
        const MatrixF queries = randomMatrixF(n_q, d_k, rng) * stretch;
        const MatrixF keys = randomMatrixF(n_k, d_k, rng) * stretch + MatrixF::Constant(n_k, d_k, 0.5f);
        const auto p = qkProjection(queries, keys);
        ASSERT_TRUE(p.ok()) << p.error();
        expectInvariants(*p, n_q, n_k, d_k);
        EXPECT_FALSE(p->iterative);

        const Reference ref = referenceSvd(queries, keys);
        const Eigen::Index r = ref.squaredSingularValues.size();
        for (Index k = 0; k < std::min<Index>(2, r); ++k) {
            if (ref.squaredSingularValues(k) <= ref.total * 1e-12) continue;  // no variance: tested below
            EXPECT_NEAR(p->explainedVarianceRatio[static_cast<std::size_t>(k)], ref.squaredSingularValues(k) / ref.total, 1e-9);
            // Coordinates up to the sign, where the axis is well defined (a clear gap to the next).
            const double next = k + 1 < r ? ref.squaredSingularValues(k + 1) : 0.0;
            const double previous = k > 0 ? ref.squaredSingularValues(k - 1) : INFINITY;
            if (ref.squaredSingularValues(k) - next < 1e-3 * ref.total || previous - ref.squaredSingularValues(k) < 1e-3 * ref.total) continue;
            const Eigen::VectorXd coordinates = ref.centred * ref.rightVectors.col(k);
            Eigen::VectorXd ours(n_q + n_k);
            ours << p->queries.col(k), p->keys.col(k);
            EXPECT_MATRIX_NEAR(ours.cwiseAbs(), coordinates.cwiseAbs(), 1e-9);
            EXPECT_NEAR(std::abs(ours.dot(coordinates)), coordinates.squaredNorm(), 1e-9 * (1.0 + coordinates.squaredNorm()));
            ++compared;
        }
    }
    EXPECT_GT(compared, 300);
}

TEST(QkProjection, StackOrderDoesNotMatterAndNegatedPointsNegateCoordinates)
{
    SplitMix64 rng(77);
    const MatrixF queries = randomMatrixF(7, 5, rng), keys = randomMatrixF(4, 5, rng);
    const auto p = qkProjection(queries, keys);
    const auto swapped = qkProjection(keys, queries);
    const auto negated = qkProjection(-queries, -keys);
    ASSERT_TRUE(p.ok() && swapped.ok() && negated.ok());
    EXPECT_MATRIX_NEAR(swapped->queries, p->keys, 1e-12);
    EXPECT_MATRIX_NEAR(swapped->keys, p->queries, 1e-12);
    // The sign is a function of the axis, not of the solver: -M_c has the same axes.
    EXPECT_MATRIX_NEAR(negated->queries, -p->queries, 1e-12);
    EXPECT_MATRIX_NEAR(negated->axes, p->axes, 1e-12);
}

TEST(QkProjection, AllPointsEqualGiveZerosNotNaN)
{
    const MatrixF same = MatrixF::Constant(3, 4, 0.7f);
    const auto p = qkProjection(same, MatrixF::Constant(5, 4, 0.7f));
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(p->queries, MatrixD::Zero(3, 2));
    EXPECT_EQ(p->keys, MatrixD::Zero(5, 2));
    EXPECT_EQ(p->explainedVarianceRatio[0], 0.0);
    EXPECT_EQ(p->explainedVarianceRatio[1], 0.0);
    expectInvariants(*p, 3, 5, 4);
    const auto single = qkProjection(MatrixF::Constant(1, 3, 2.0f), MatrixF(0, 3));  // N = 1
    ASSERT_TRUE(single.ok());
    EXPECT_EQ(single->queries, MatrixD::Zero(1, 2));
}

TEST(QkProjection, OneCoordinateGivesOneAxis)
{
    MatrixF queries(3, 1), keys(2, 1);
    queries << 1.0f, -2.0f, 4.0f;
    keys << 0.5f, 1.5f;
    const auto p = qkProjection(queries, keys);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->explainedVarianceRatio[0], 1.0);
    EXPECT_EQ(p->explainedVarianceRatio[1], 0.0);
    EXPECT_EQ(p->axes(0, 0), 1.0);  // sign rule: the only loading is positive
    const double mean = (1.0 - 2.0 + 4.0 + 0.5 + 1.5) / 5.0;
    EXPECT_NEAR(p->queries(1, 0), -2.0 - mean, 1e-15);
    EXPECT_NEAR(p->keys(0, 0), 0.5 - mean, 1e-15);
    EXPECT_EQ(p->queries.col(1).cwiseAbs().sum() + p->keys.col(1).cwiseAbs().sum(), 0.0);
}

TEST(QkProjection, TwoPointsLieOnOneAxisHalfTheirDistanceFromTheMean)
{
    SplitMix64 rng(3);
    for (const Index d_k : {1, 2, 8, 64}) {
        const MatrixF q = randomMatrixF(1, d_k, rng), k = randomMatrixF(1, d_k, rng);
        const auto p = qkProjection(q, k);
        ASSERT_TRUE(p.ok());
        const double half = (q.cast<double>() - k.cast<double>()).norm() / 2.0;
        EXPECT_NEAR(std::abs(p->queries(0, 0)), half, 1e-12);
        EXPECT_NEAR(p->queries(0, 0), -p->keys(0, 0), 1e-12);
        EXPECT_NEAR(p->explainedVarianceRatio[0], 1.0, 1e-12);
        EXPECT_EQ(p->explainedVarianceRatio[1], 0.0);  // rounding-level variance is no variance
        EXPECT_EQ(p->queries(0, 1), 0.0);
    }
}

TEST(QkProjection, BadInputIsAMessage)
{
    EXPECT_FALSE(qkProjection(MatrixF::Zero(2, 3), MatrixF::Zero(2, 4)).ok());
    EXPECT_FALSE(qkProjection(MatrixF(2, 0), MatrixF(2, 0)).ok());
    EXPECT_FALSE(qkProjection(MatrixF(0, 3), MatrixF(0, 3)).ok());
    MatrixF nan = MatrixF::Zero(2, 2);
    nan(0, 1) = std::nanf("");
    EXPECT_FALSE(qkProjection(nan, MatrixF::Zero(1, 2)).ok());
    const auto r = compute(builtInExample());
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(qkProjection(**r, -1).ok());
    EXPECT_FALSE(qkProjection(**r, (*r)->attention.headCount()).ok());
}

TEST(QkProjection, ResultUsesRotatedQueriesAndTheGroupsKeyBlock)
{
    Config config = builtInExample();
    config.positional = PositionalEncoding::Rotary;
    config.headCount = 4;
    config.keyValueHeadCount = 2;
    config.mode = AttentionMode::DecoderCausal;
    const auto r = compute(config);
    ASSERT_TRUE(r.ok()) << r.error();
    const Index d_k = config.d_k();
    const Index head = 3;  // reads key/value head 1
    const MatrixF queries = (*r)->attention.query.middleCols(head * d_k, d_k);
    const MatrixF keys = (*r)->attention.key.middleCols(1 * d_k, d_k);
    const auto expected = qkProjection(queries, keys);
    const auto actual = qkProjection(**r, head);
    ASSERT_TRUE(expected.ok() && actual.ok());
    EXPECT_EQ(actual->queries, expected->queries);
    EXPECT_EQ(actual->keys, expected->keys);
    const auto beforeRotation = qkProjection((*r)->attention.queryBeforeRotation.middleCols(head * d_k, d_k),
                                             (*r)->attention.keyBeforeRotation.middleCols(d_k, d_k));
    ASSERT_TRUE(beforeRotation.ok());
    EXPECT_GT((beforeRotation->queries - actual->queries).cwiseAbs().maxCoeff(), 1e-3);
}

// Symmetric PSD test matrices: B B^T with chosen column scales.
Eigen::MatrixXd psd(Index m, Index rank, double decay, SplitMix64& rng)
{
    Eigen::MatrixXd b(m, rank);
    for (Index j = 0; j < rank; ++j)
        for (Index i = 0; i < m; ++i) b(i, j) = rng.uniform(-1.0, 1.0) * std::pow(decay, static_cast<double>(j));
    return b * b.transpose();
}

void expectSamePairs(const detail::TopEigenpairs& krylov, const detail::TopEigenpairs& dense, bool vectorsDefined)
{
    const double scale = std::max(dense.values[0], 1e-300);
    for (std::size_t k = 0; k < 2; ++k) EXPECT_NEAR(krylov.values[k], dense.values[k], 1e-10 * scale) << "value " << k;
    if (!vectorsDefined) return;
    for (Index k = 0; k < dense.vectors.cols(); ++k)
        EXPECT_NEAR(std::abs(krylov.vectors.col(k).dot(dense.vectors.col(k))), 1.0, 1e-8) << "vector " << k;
}

TEST(TopEigenpairs, BlockLanczosAgreesWithTheDenseSolver)
{
    SplitMix64 rng(42);
    for (int trial = 0; trial < 20; ++trial) {
        const Index m = 3 + static_cast<Index>(rng.next() % 120);
        const Index rank = 1 + static_cast<Index>(rng.next() % static_cast<std::uint64_t>(m));
        const Eigen::MatrixXd gram = psd(m, rank, 0.8, rng);
        expectSamePairs(detail::topTwoEigenpairsKrylov(gram), detail::topTwoEigenpairsDense(gram), rank >= 3);
    }
}

TEST(TopEigenpairs, RepeatedTopEigenvalueRankOneZeroAndTinySizes)
{
    Eigen::VectorXd diagonal = Eigen::VectorXd::LinSpaced(50, 0.0, 1.0);
    diagonal(10) = diagonal(20) = 5.0;  // multiplicity 2 at the top
    const Eigen::MatrixXd repeated = diagonal.asDiagonal();
    const auto top = detail::topTwoEigenpairsKrylov(repeated);
    EXPECT_NEAR(top.values[0], 5.0, 1e-10);
    EXPECT_NEAR(top.values[1], 5.0, 1e-10);
    EXPECT_NEAR(top.vectors(10, 0) * top.vectors(10, 0) + top.vectors(20, 0) * top.vectors(20, 0), 1.0, 1e-10);

    SplitMix64 rng(9);
    const Eigen::MatrixXd rankOne = psd(40, 1, 1.0, rng);
    expectSamePairs(detail::topTwoEigenpairsKrylov(rankOne), detail::topTwoEigenpairsDense(rankOne), false);
    const auto zero = detail::topTwoEigenpairsKrylov(Eigen::MatrixXd::Zero(30, 30));
    EXPECT_EQ(zero.values[0], 0.0);
    EXPECT_TRUE(zero.vectors.allFinite());
    for (const Index m : {1, 2}) {
        const Eigen::MatrixXd small = psd(m, m, 1.0, rng);
        expectSamePairs(detail::topTwoEigenpairsKrylov(small), detail::topTwoEigenpairsDense(small), m == 2);
    }
}

TEST(QkProjection, WideHeadsTakeTheIterativePathAndAgreeWithTheSvd)
{
    // d_k = 400 and 600 points: m = 400 > 384. Points with a few strong directions plus noise.
    SplitMix64 rng(2024);
    const Index d_k = 400, n_q = 300, n_k = 300;
    const MatrixF directions = randomMatrixF(6, d_k, rng);
    const auto points = [&](Index n) {
        MatrixF weights = randomMatrixF(n, 6, rng);
        for (Index j = 0; j < 6; ++j) weights.col(j) *= static_cast<float>(std::pow(0.5, static_cast<double>(j)));
        return MatrixF(weights * directions + 0.01f * randomMatrixF(n, d_k, rng));
    };
    const MatrixF queries = points(n_q), keys = points(n_k);
    const auto p = qkProjection(queries, keys);
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_TRUE(p->iterative);
    EXPECT_LE(p->residual, 1e-9);
    expectInvariants(*p, n_q, n_k, d_k);
    const Reference ref = referenceSvd(queries, keys);
    for (Index k = 0; k < 2; ++k) {
        EXPECT_NEAR(p->explainedVarianceRatio[static_cast<std::size_t>(k)], ref.squaredSingularValues(k) / ref.total, 1e-9);
        const Eigen::VectorXd coordinates = ref.centred * ref.rightVectors.col(k);
        Eigen::VectorXd ours(n_q + n_k);
        ours << p->queries.col(k), p->keys.col(k);
        EXPECT_MATRIX_NEAR(ours.cwiseAbs(), coordinates.cwiseAbs(), 1e-7);
    }
}

TEST(QkProjection, FlatSpectraStopAtTheBasisLimitWithSensibleAxes)
{
    // Pure noise: the top eigenvalues crowd together; the iteration stops and says how far it got.
    SplitMix64 rng(11);
    const Index d_k = 450;
    const MatrixF queries = randomMatrixF(300, d_k, rng), keys = randomMatrixF(300, d_k, rng);
    const auto p = qkProjection(queries, keys);
    ASSERT_TRUE(p.ok());
    EXPECT_TRUE(p->iterative);
    expectInvariants(*p, 300, 300, d_k);
    const Reference ref = referenceSvd(queries, keys);
    const double r1 = ref.squaredSingularValues(0) / ref.total;
    // Ritz values never exceed the true ones, and stay close to them.
    EXPECT_LE(p->explainedVarianceRatio[0], r1 + 1e-12);
    EXPECT_GE(p->explainedVarianceRatio[0], 0.98 * r1);
}

}  // namespace
}  // namespace qkv
