// The softmax on its own: extreme logits, fully masked rows, the model's rows, its backward
// against finite differences, and the online form's pieces.

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "core/ops/matrix_views.hpp"
#include "core/ops/softmax.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

using MatrixDR = RowMajorMatrix<double>;

TEST(Softmax, ExtremeLogitsGiveNoNaN)
{
    MatrixF scores(4, 3);
    scores << 1e30f, -1e30f, 0.0f,          // one huge logit takes everything
        1e30f, 1e30f, -1e30f,               // two equal huge logits share
        -1e30f, -1e30f, -1e30f,             // all tiny: uniform
        std::numeric_limits<float>::infinity(), 5.0f, std::numeric_limits<float>::infinity();
    std::vector<bool> fullyMasked;
    const MatrixF a = softmaxForward(scores, {}, fullyMasked);
    ASSERT_TRUE(a.allFinite()) << a;
    MatrixF expected(4, 3);
    expected << 1, 0, 0, 0.5, 0.5, 0, 1.0f / 3, 1.0f / 3, 1.0f / 3, 0.5, 0, 0.5;
    EXPECT_MATRIX_NEAR(a, expected, 1e-6);
    EXPECT_EQ(fullyMasked, std::vector<bool>(4, false));
}

TEST(Softmax, FullyMaskedRowGivesZerosAndAFlag)
{
    MatrixF scores(2, 3);
    scores << 1, 2, 3, 4, 5, 6;
    AttentionMask mask;
    mask.keyPadding = {true, true, true};
    std::vector<bool> fullyMasked;
    const MatrixF a = softmaxForward(scores, mask, fullyMasked);
    EXPECT_MATRIX_NEAR(a, MatrixF::Zero(2, 3), 0.0);
    EXPECT_EQ(fullyMasked, std::vector<bool>(2, true));
}

TEST(Softmax, ModelRowsAreDistributionsAndCausalRowsEndAtTheQuery)
{
    MatrixDR scores(3, 3);
    scores << 1e30, -1e30, 0.0,  //
        2.0, 1.0, 1e300,         //
        -5.0, 5.0, 0.5;
    softmaxRowsForward(scores.data(), 3, 3, true);
    EXPECT_EQ(scores(0, 0), 1.0);
    EXPECT_EQ(scores(0, 1), 0.0);
    EXPECT_EQ(scores(0, 2), 0.0);
    EXPECT_NEAR(scores(1, 0), 1.0 / (1.0 + std::exp(-1.0)), 1e-15);
    EXPECT_EQ(scores(1, 2), 0.0) << "the masked key's huge score must not leak";
    EXPECT_NEAR(scores.row(2).sum(), 1.0, 1e-15);
    EXPECT_TRUE(scores.allFinite());
}

// dS = A * (dA - rowsum(dA * A)) is the gradient of L = sum dA * softmax(S): central differences
// of L at each score agree (the causal rows' masked scores have no influence, and get dS = 0).
TEST(Softmax, ModelRowsBackwardMatchesFiniteDifferences)
{
    const Index n = 4;
    MatrixDR scores = MatrixDR::Random(n, n) * 2.0;
    const MatrixDR dA = MatrixDR::Random(n, n);
    const auto loss = [&](const MatrixDR& s) {
        MatrixDR a = s;
        softmaxRowsForward(a.data(), n, n, true);
        return (a.array() * dA.array()).sum();
    };
    MatrixDR attention = scores;
    softmaxRowsForward(attention.data(), n, n, true);
    MatrixDR dS(n, n);
    softmaxRowsBackward(dS.data(), dA.data(), attention.data(), n, n);
    const double h = 1e-6;
    for (Index q = 0; q < n; ++q)
        for (Index k = 0; k < n; ++k) {
            MatrixDR plus = scores, minus = scores;
            plus(q, k) += h;
            minus(q, k) -= h;
            EXPECT_NEAR(dS(q, k), (loss(plus) - loss(minus)) / (2 * h), 1e-8) << q << ", " << k;
            if (k > q) {
                EXPECT_EQ(dS(q, k), 0.0);
            }
        }
}

TEST(Softmax, WholeRowInPlaceIsADistributionOfHugeLogits)
{
    Eigen::MatrixXd p(2, 3);  // column-major: a row is strided, as in the presets' fit
    p << 1e300, -1e300, 0.0,  //
        1.0, 2.0, 3.0;
    softmaxInPlace(p.row(0));
    softmaxInPlace(p.row(1));
    EXPECT_EQ(p(0, 0), 1.0);
    EXPECT_EQ(p(0, 1), 0.0);
    const double z = std::exp(-2.0) + std::exp(-1.0) + 1.0;
    EXPECT_NEAR(p(1, 0), std::exp(-2.0) / z, 1e-15);
    EXPECT_NEAR(p(1, 2), 1.0 / z, 1e-15);
}

TEST(Softmax, RowCaseFollowsTheMaximum)
{
    constexpr float infinity = std::numeric_limits<float>::infinity();
    EXPECT_EQ(softmaxRowCase(-infinity), SoftmaxRowCase::FullyMasked);
    EXPECT_EQ(softmaxRowCase(infinity), SoftmaxRowCase::InfiniteLogits);
    EXPECT_EQ(softmaxRowCase(-1e30f), SoftmaxRowCase::Finite);
}

// Tiles of a row folded online give the whole row's maximum and normaliser, whatever the order.
TEST(Softmax, RunningMaximumAndNormaliserEqualTheWholeRows)
{
    const std::vector<float> tiles[] = {{1.0f, -3.0f}, {7.5f, 2.0f, 0.0f}, {-std::numeric_limits<float>::infinity()}, {4.0f}};
    float m = -std::numeric_limits<float>::infinity();
    double sum = 0.0;
    for (const auto& tile : tiles) {
        float tileMax = -std::numeric_limits<float>::infinity();
        for (float s : tile) tileMax = std::max(tileMax, s);
        if (!raiseRunningMaximum(tileMax, m, sum)) continue;
        for (float s : tile) sum += std::exp(static_cast<double>(s) - m);
    }
    double expected = 0.0;
    for (const auto& tile : tiles)
        for (float s : tile) expected += std::exp(static_cast<double>(s) - 7.5);
    EXPECT_EQ(m, 7.5f);
    EXPECT_NEAR(sum, expected, 1e-12);
    EXPECT_TRUE(runningRowIsFinite(m, sum));
    EXPECT_FALSE(runningRowIsFinite(std::numeric_limits<float>::infinity(), 1.0));
    EXPECT_FALSE(runningRowIsFinite(std::numeric_limits<float>::quiet_NaN(), 1.0));
    EXPECT_TRUE(runningRowIsFinite(-std::numeric_limits<float>::infinity(), 0.0)) << "no visible key: zeros, fine";

    RowVectorF weights;
    RowVectorF row(3);
    row << 7.5f, 2.0f, 0.0f;
    runningSoftmaxWeights(row, m, sum, weights);
    EXPECT_NEAR(weights(0), 1.0 / expected, 1e-6);
}

}  // namespace
}  // namespace qkv
