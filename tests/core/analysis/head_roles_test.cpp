// Previous-token and induction scores on hand-made attention, where the answer can be counted.
#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/head_roles.hpp"

namespace qkv {
namespace {

// Causal rows: each row puts `weight` on key `pick(t)` and the rest on key 0 (or all on 0).
template <class Pick>
MatrixF rows(Index n, double weight, Pick pick)
{
    MatrixF a = MatrixF::Zero(n, n);
    for (Index t = 0; t < n; ++t) {
        const Index k = pick(t);
        if (k <= 0 || k > t) {
            a(t, 0) = 1.0f;
            continue;
        }
        a(t, k) = static_cast<float>(weight);
        a(t, 0) = static_cast<float>(1.0 - weight);
    }
    return a;
}

TEST(HeadRoles, PreviousTokenIsTheMeanWeightOnTheTokenBefore)
{
    const MatrixF a = rows(5, 0.8, [](Index t) { return t - 1; });
    // t = 1 puts its weight on key 0 (the previous token too): 1.0; t = 2..4: 0.8.
    EXPECT_NEAR(previousTokenScore(a), (1.0 + 3 * 0.8) / 4, 1e-6);
    EXPECT_TRUE(std::isnan(previousTokenScore(MatrixF::Ones(1, 1))));
    EXPECT_EQ(headRole(previousTokenScore(a), std::nan("")), HeadRole::PreviousToken);
}

TEST(HeadRoles, InductionLooksAfterTheCurrentTokensLastEarlierPosition)
{
    // x y z x y z: positions 3, 4, 5 repeat 0, 1, 2; the token after each earlier one is 1, 2, 3.
    const std::vector<std::int32_t> ids{7, 8, 9, 7, 8, 9};
    const MatrixF a = rows(6, 0.9, [](Index t) { return t >= 3 ? t - 2 : 0; });
    EXPECT_NEAR(inductionScore(a, ids), 0.9, 1e-6);
    EXPECT_EQ(headRole(0.1, inductionScore(a, ids)), HeadRole::Induction);
    // Nothing repeats, or a token repeats at once (its "next" is itself): no score.
    EXPECT_TRUE(std::isnan(inductionScore(a, {1, 2, 3, 4, 5, 6})));
    EXPECT_TRUE(std::isnan(inductionScore(MatrixF::Identity(3, 3), {4, 4, 5})));
    // Sizes that disagree.
    EXPECT_TRUE(std::isnan(inductionScore(a, {1, 2})));
    // Below the threshold on both: no role.
    EXPECT_EQ(headRole(0.2, 0.3), HeadRole::None);
    EXPECT_EQ(headRole(std::nan(""), std::nan("")), HeadRole::None);
}

TEST(HeadRoles, DuplicateTokenSumsTheWeightOnEveryEarlierCopy)
{
    // a b a c a: position 2 repeats 0; position 4 repeats 0 and 2. Hand-made causal rows.
    const std::vector<std::int32_t> ids{5, 6, 5, 7, 5};
    MatrixF a = MatrixF::Zero(5, 5);
    a(0, 0) = 1.0f;
    a(1, 0) = 0.5f, a(1, 1) = 0.5f;
    a(2, 0) = 0.6f, a(2, 1) = 0.3f, a(2, 2) = 0.1f;
    a(3, 0) = 0.25f, a(3, 1) = 0.25f, a(3, 2) = 0.25f, a(3, 3) = 0.25f;
    a(4, 0) = 0.2f, a(4, 1) = 0.1f, a(4, 2) = 0.5f, a(4, 3) = 0.1f, a(4, 4) = 0.1f;
    // Position 2: a_{2,0} = 0.6; position 4: a_{4,0} + a_{4,2} = 0.7; the mean of the two.
    EXPECT_NEAR(duplicateTokenScore(a, ids), (0.6 + 0.7) / 2, 1e-6);
    // First token: the mean of column 0 over the five rows.
    EXPECT_NEAR(firstTokenScore(a), (1.0 + 0.5 + 0.6 + 0.25 + 0.2) / 5, 1e-6);
    // Nothing repeats, sizes that disagree, no position: no score.
    EXPECT_TRUE(std::isnan(duplicateTokenScore(a, {1, 2, 3, 4, 5})));
    EXPECT_TRUE(std::isnan(duplicateTokenScore(a, {5, 5})));
    EXPECT_TRUE(std::isnan(firstTokenScore(MatrixF())));
}

}  // namespace
}  // namespace qkv
