// The arithmetic behind the heads' task scores, on attention patterns built by hand; and the
// effective rank of a spectrum.
#include <gtest/gtest.h>

#include "core/training/head_score_sums.hpp"
#include "core/training/task_scores.hpp"

namespace qkv {
namespace {

// Causal attention that puts weight `w` on key t - offset (when it exists) and spreads the rest
// uniformly over the other visible keys.
MatrixF causalPattern(Index n, Index offset, float w)
{
    MatrixF attention = MatrixF::Zero(n, n);
    for (Index t = 0; t < n; ++t) {
        const Index target = t - offset;
        if (target < 0 || target > t) {
            attention.row(t).head(t + 1).setConstant(1.0f / static_cast<float>(t + 1));
            continue;
        }
        const float rest = t == 0 ? 0.0f : (1.0f - w) / static_cast<float>(t);
        attention.row(t).head(t + 1).setConstant(rest);
        attention(t, target) = t == 0 ? 1.0f : w;
    }
    return attention;
}

TEST(HeadScoreSums, AlignmentCountsArgmaxOnTheGoldKey)
{
    MatrixF attention(4, 3);
    attention << 0.1f, 0.2f, 0.7f,  // gold 2: hit
        0.6f, 0.3f, 0.1f,           // gold 1: miss
        0.2f, 0.5f, 0.3f,           // gold 1: hit
        0.4f, 0.3f, 0.3f;           // gold -1 (<eos>): not counted
    HeadScoreSums sums;
    addAlignment(attention, {2, 1, 1, -1}, sums);
    EXPECT_EQ(sums.alignmentPositions, 3.0);
    EXPECT_DOUBLE_EQ(sums.alignment(), 2.0 / 3.0);
    // Pooled over examples: one more example, one position, a hit.
    MatrixF second(1, 2);
    second << 0.1f, 0.9f;
    addAlignment(second, {1}, sums);
    EXPECT_DOUBLE_EQ(sums.alignment(), 3.0 / 4.0);
}

TEST(HeadScoreSums, AUniformRowIsNoAlignment)
{
    const MatrixF uniform = MatrixF::Constant(3, 3, 1.0f / 3.0f);
    HeadScoreSums sums;
    addAlignment(uniform, {2, 1, 2}, sums);
    EXPECT_DOUBLE_EQ(sums.alignment(), 0.0);
    EXPECT_EQ(HeadScoreSums().alignment(), -1.0) << "nothing counted: not measured";
}

TEST(HeadScoreSums, APerfectInductionHeadScoresOne)
{
    const Index L = 5, n = 2 * L + 1;
    // An induction head looks L - 1 positions back: from t in the second copy to t - L + 1.
    const MatrixF induction = causalPattern(n, L - 1, 1.0f);
    HeadScoreSums sums;
    addInduction(induction, L, sums);
    EXPECT_EQ(sums.inductionPositions, static_cast<double>(L)) << "t = L+1 .. 2L";
    EXPECT_DOUBLE_EQ(sums.induction(), 1.0);
    addPreviousToken(induction, sums);
    EXPECT_LT(sums.previousToken(), 0.2);

    // A previous-token head is no induction head, and the other way round.
    const MatrixF previous = causalPattern(n, 1, 0.9f);
    HeadScoreSums other;
    addInduction(previous, L, other);
    addPreviousToken(previous, other);
    EXPECT_NEAR(other.previousToken(), 0.9, 1e-6);
    EXPECT_LT(other.induction(), 0.1);
}

TEST(HeadScoreSums, WeightsAreAveragedOverPositions)
{
    const Index L = 4, n = 2 * L + 1;
    HeadScoreSums sums;
    addInduction(causalPattern(n, L - 1, 0.6f), L, sums);
    addInduction(causalPattern(n, L - 1, 0.2f), L, sums);
    EXPECT_NEAR(sums.induction(), 0.4, 1e-6);
    EXPECT_EQ(sums.inductionPositions, 2.0 * static_cast<double>(L));
}

TEST(HeadScoreSums, ShortOrOddInputsCountNothingOutOfRange)
{
    HeadScoreSums sums;
    addInduction(MatrixF::Constant(3, 3, 0.3f), 4, sums);  // shorter than one period
    addInduction(MatrixF::Constant(9, 9, 0.1f), 0, sums);
    addPreviousToken(MatrixF(1, 1), sums);
    addAlignment(MatrixF::Constant(2, 2, 0.5f), {5, -3}, sums);
    EXPECT_EQ(sums.induction(), -1.0);
    EXPECT_EQ(sums.previousToken(), -1.0);
    EXPECT_EQ(sums.alignment(), -1.0);
}

TEST(EffectiveRank, CountsTheValuesThatCarryTheEnergy)
{
    EXPECT_EQ(effectiveRank({3.0, 0.0, 0.0}), 1);
    EXPECT_EQ(effectiveRank({1.0, 1.0, 1.0, 1.0}), 4);
    // 0.99 of 100 + 1 + 0.01: the first value alone carries 100/101.01 = 0.990 of the energy.
    EXPECT_EQ(effectiveRank({10.0, 1.0, 0.1}), 1);
    EXPECT_EQ(effectiveRank({10.0, 1.0, 0.1}, 0.999), 2);
    EXPECT_EQ(effectiveRank({10.0, 1.0, 0.1}, 1.0), 3);
    EXPECT_EQ(effectiveRank({1.0, 10.0}), 1) << "order does not matter";
    EXPECT_EQ(effectiveRank({}), 0);
    EXPECT_EQ(effectiveRank({0.0, 0.0}), 0);
    EXPECT_EQ(effectiveRank({1.0, std::nan("")}), 0);
}

}  // namespace
}  // namespace qkv
