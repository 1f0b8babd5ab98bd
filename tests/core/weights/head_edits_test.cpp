// The weights editor's edits: each changes what it says and nothing else.
#include <limits>

#include <gtest/gtest.h>

#include "core/attention/multi_head_attention.hpp"
#include "core/weights/head_edits.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

constexpr HeadMatrix kMatrices[] = {HeadMatrix::Query, HeadMatrix::Key, HeadMatrix::Value, HeadMatrix::Output};

struct Layer {
    AttentionWeights weights = initialiseWeights(32, 7, WeightInit::Normal, true);
    HeadGrouping g = weights.grouping(4);  // d_k = 8
};

void expectOtherHeadsUnchanged(const AttentionWeights& a, const AttentionWeights& b, const HeadGrouping& g, Index edited)
{
    for (Index head = 0; head < g.headCount; ++head) {
        if (head == edited) continue;
        for (const HeadMatrix m : kMatrices) EXPECT_EQ(headBlock(a, g, head, m), headBlock(b, g, head, m)) << head;
    }
}

TEST(HeadEdits, SetEntryChangesOneNumber)
{
    const Layer layer;
    for (const HeadMatrix m : kMatrices) {
        const auto edited = setHeadEntry(layer.weights, layer.g, 2, m, 3, 5, 9.5f);
        ASSERT_TRUE(edited.ok()) << edited.error();
        MatrixF expected = headBlock(layer.weights, layer.g, 2, m);
        expected(3, 5) = 9.5f;
        EXPECT_EQ(headBlock(*edited, layer.g, 2, m), expected);
        expectOtherHeadsUnchanged(layer.weights, *edited, layer.g, 2);
    }
    const auto outside = setHeadEntry(layer.weights, layer.g, 0, HeadMatrix::Query, 32, 0, 1.0f);
    ASSERT_FALSE(outside.ok());
    EXPECT_NE(outside.error().find("32 x 8"), std::string::npos) << outside.error();
    EXPECT_FALSE(setHeadEntry(layer.weights, layer.g, 0, HeadMatrix::Key, 0, 0, std::numeric_limits<float>::quiet_NaN()).ok());
}

TEST(HeadEdits, ScaleMultipliesTheBlockAndItsBias)
{
    const Layer layer;
    const auto scaled = scaleHeadBlock(layer.weights, layer.g, 1, HeadMatrix::Query, -2.0f);
    ASSERT_TRUE(scaled.ok());
    EXPECT_EQ(headBlock(*scaled, layer.g, 1, HeadMatrix::Query), -2.0f * headBlock(layer.weights, layer.g, 1, HeadMatrix::Query));
    expectOtherHeadsUnchanged(layer.weights, *scaled, layer.g, 1);
    const auto zero = scaleHeadBlock(layer.weights, layer.g, 1, HeadMatrix::Value, 0.0f);
    ASSERT_TRUE(zero.ok());
    EXPECT_TRUE(headBlock(*zero, layer.g, 1, HeadMatrix::Value).isZero(0.0));
    const auto huge = scaleHeadBlock(layer.weights, layer.g, 1, HeadMatrix::Value, 1e38f);
    ASSERT_TRUE(huge.ok());  // entries ~0.2 become ~2e37: still floats
    const auto overflow = scaleHeadBlock(*huge, layer.g, 1, HeadMatrix::Value, 1e38f);
    ASSERT_FALSE(overflow.ok());
    EXPECT_NE(overflow.error().find("overflows"), std::string::npos) << overflow.error();
}

TEST(HeadEdits, SwappingQueryAndKeyTransposesTheScores)
{
    Layer layer;
    layer.weights.queryBias.reset();  // biases would add row and column terms
    layer.weights.keyBias.reset();
    layer.weights.valueBias.reset();
    layer.weights.outputBias.reset();
    const MatrixF x = MatrixF::Random(6, 32);
    const AttentionResult before = multiHeadAttentionForward(x, x, layer.weights, 4, {});
    const AttentionWeights swapped = swapQueryAndKey(layer.weights, layer.g, 3);
    const AttentionResult after = multiHeadAttentionForward(x, x, swapped, 4, {});
    EXPECT_MATRIX_NEAR(after.heads[3].scores, before.heads[3].scores.transpose(), 1e-5);
    EXPECT_EQ(after.heads[0].scores, before.heads[0].scores);
}

TEST(HeadEdits, RerandomiseDrawsANewHeadOnly)
{
    const Layer layer;
    const AttentionWeights a = rerandomiseHead(layer.weights, layer.g, 0, 42, WeightInit::Normal);
    const AttentionWeights b = rerandomiseHead(layer.weights, layer.g, 0, 42, WeightInit::Normal);
    const AttentionWeights c = rerandomiseHead(layer.weights, layer.g, 0, 43, WeightInit::Normal);
    EXPECT_EQ(a.queryProjection, b.queryProjection);  // same seed, same bits
    EXPECT_NE(headBlock(a, layer.g, 0, HeadMatrix::Query), headBlock(c, layer.g, 0, HeadMatrix::Query));
    EXPECT_NE(headBlock(a, layer.g, 0, HeadMatrix::Query), headBlock(layer.weights, layer.g, 0, HeadMatrix::Query));
    expectOtherHeadsUnchanged(layer.weights, a, layer.g, 0);
    // The scale of a generated layer: N(0, 1/d_model) entries.
    const MatrixF block = headBlock(a, layer.g, 0, HeadMatrix::Value);
    const double variance = block.cast<double>().array().square().mean();
    EXPECT_NEAR(variance, 1.0 / 32.0, 0.35 / 32.0);
}

TEST(HeadEdits, CopyMakesTwoHeadsAttendAlike)
{
    const Layer layer;
    const AttentionWeights copied = copyHead(layer.weights, layer.g, 1, 2);
    const MatrixF x = MatrixF::Random(5, 32);
    const AttentionResult r = multiHeadAttentionForward(x, x, copied, 4, {});
    EXPECT_EQ(r.heads[2].attention, r.heads[1].attention);
    EXPECT_EQ(r.headOutput(2), r.headOutput(1));
    EXPECT_EQ(headBlock(copied, layer.g, 2, HeadMatrix::Output), headBlock(layer.weights, layer.g, 1, HeadMatrix::Output));
}

TEST(HeadEdits, KeyBlocksAreSharedUnderGroupedQueryAttention)
{
    // h = 4, g = 2: heads 1 and 2 read key/value head 1. Editing head 1's W_i^K is editing both.
    const AttentionWeights weights = initialiseWeights(32, 16, 3, WeightInit::Normal, false);
    const HeadGrouping g = weights.grouping(4);
    ASSERT_EQ(g.keyValueHeadCount, 2);
    const auto edited = setHeadEntry(weights, g, 0, HeadMatrix::Key, 0, 0, 5.0f);
    ASSERT_TRUE(edited.ok());
    EXPECT_EQ(headBlock(*edited, g, 1, HeadMatrix::Key)(0, 0), 5.0f);
    EXPECT_EQ(headBlock(*edited, g, 2, HeadMatrix::Key), headBlock(weights, g, 2, HeadMatrix::Key));
}

}  // namespace
}  // namespace qkv
