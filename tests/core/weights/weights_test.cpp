#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "core/weights/attention_weights.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

TEST(Weights, SameSeedSameBitsDifferentSeedDifferentBits)
{
    const AttentionWeights a = initialiseWeights(32, 5, WeightInit::XavierUniform, true);
    const AttentionWeights b = initialiseWeights(32, 5, WeightInit::XavierUniform, true);
    const AttentionWeights c = initialiseWeights(32, 6, WeightInit::XavierUniform, true);
    EXPECT_EQ(a.queryProjection, b.queryProjection);
    EXPECT_EQ(a.outputProjection, b.outputProjection);
    EXPECT_NE(a.queryProjection, c.queryProjection);
    // Each matrix has its own stream.
    EXPECT_NE(a.queryProjection, a.keyProjection);
}

TEST(Weights, XavierUniformStaysInItsBoundWithTheRightVariance)
{
    const Index d = 256;
    const AttentionWeights w = initialiseWeights(d, 1, WeightInit::XavierUniform, false);
    const double bound = std::sqrt(6.0 / (2.0 * d));
    EXPECT_LE(w.queryProjection.cwiseAbs().maxCoeff(), bound);
    const double variance = w.queryProjection.squaredNorm() / static_cast<double>(d * d);
    EXPECT_NEAR(variance, bound * bound / 3.0, 0.05 * bound * bound / 3.0);  // U(-a,a): a^2/3
    EXPECT_FALSE(w.hasBias());
}

TEST(Weights, NormalHasVarianceOneOverDModel)
{
    const Index d = 256;
    const AttentionWeights w = initialiseWeights(d, 1, WeightInit::Normal, false);
    const double variance = w.keyProjection.squaredNorm() / static_cast<double>(d * d);
    EXPECT_NEAR(variance * d, 1.0, 0.05);
}

TEST(Weights, BiasesStartAtZero)
{
    const AttentionWeights w = initialiseWeights(8, 1, WeightInit::XavierUniform, true);
    ASSERT_TRUE(w.hasBias());
    EXPECT_EQ(w.queryBias->size(), 8);
    EXPECT_EQ(w.outputBias->cwiseAbs().maxCoeff(), 0.0f);
}

TEST(Weights, HeadColumnsAreTheFusedBlocks)
{
    const AttentionWeights w = initialiseWeights(12, 3, WeightInit::Normal, false);
    const MatrixF block = headColumns(w.queryProjection, 2, 4);
    ASSERT_EQ(block.rows(), 12);
    ASSERT_EQ(block.cols(), 4);
    for (Index r = 0; r < 12; ++r)
        for (Index c = 0; c < 4; ++c) EXPECT_EQ(block(r, c), w.queryProjection(r, 8 + c));
}

TEST(Weights, ScalesMultiplyMatricesAndBiases)
{
    AttentionWeights w = initialiseWeights(4, 3, WeightInit::Normal, true);
    w.queryBias->setOnes();
    const AttentionWeights s = scaledWeights(w, {2.0f, 1.0f, 0.5f, 0.0f});
    EXPECT_MATRIX_NEAR(s.queryProjection, 2.0f * w.queryProjection, 0.0);
    EXPECT_MATRIX_NEAR(*s.queryBias, RowVectorF::Constant(4, 2.0f), 0.0);
    EXPECT_MATRIX_NEAR(s.keyProjection, w.keyProjection, 0.0);
    EXPECT_MATRIX_NEAR(s.valueProjection, 0.5f * w.valueProjection, 0.0);
    EXPECT_MATRIX_NEAR(s.outputProjection, MatrixF::Zero(4, 4), 0.0);
}

TEST(Weights, AllFiniteDetectsNaNAndInfinityAnywhere)
{
    AttentionWeights w = initialiseWeights(4, 3, WeightInit::Normal, true);
    EXPECT_TRUE(allFinite(w));
    AttentionWeights nan = w;
    nan.valueProjection(1, 2) = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(allFinite(nan));
    AttentionWeights inf = w;
    (*inf.outputBias)(3) = std::numeric_limits<float>::infinity();
    EXPECT_FALSE(allFinite(inf));
}

}  // namespace
}  // namespace qkv
