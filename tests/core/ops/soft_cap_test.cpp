// The soft cap c tanh(s / c) on its own: bounded by c, odd, the identity near 0.

#include <cmath>

#include <gtest/gtest.h>

#include "core/common/matrix.hpp"
#include "core/ops/soft_cap.hpp"

namespace qkv {
namespace {

TEST(SoftCap, BoundedOddAndNearlyTheIdentityForSmallScores)
{
    const float c = 50.0f;
    RowVectorF s(7);
    s << -1e30f, -300.0f, -0.01f, 0.0f, 0.01f, 300.0f, 1e30f;
    RowVectorF capped = s;
    softCapInPlace(capped.array(), c);
    for (Index i = 0; i < s.size(); ++i) {
        EXPECT_LE(std::abs(capped(i)), c) << s(i);
        EXPECT_EQ(capped(i), -capped(s.size() - 1 - i)) << "odd at " << s(i);
        EXPECT_NEAR(capped(i), c * std::tanh(s(i) / c), 1e-5 * c);
    }
    EXPECT_NEAR(capped(4), 0.01f, 1e-8f);
    EXPECT_EQ(capped(6), c);
}

// The scalar form a view shows agrees with the capped rows the softmax reads; c = 0 is no cap.
TEST(SoftCap, ScalarFormAgreesWithTheRowsAndZeroMeansNone)
{
    RowVectorF s(4);
    s << -80.0f, -1.5f, 2.0f, 300.0f;
    RowVectorF capped = s;
    softCapInPlace(capped.array(), 30.0f);
    for (Index i = 0; i < s.size(); ++i) {
        EXPECT_NEAR(softCapped(s(i), 30.0), capped(i), 1e-5) << s(i);
        EXPECT_EQ(softCapped(s(i), 0.0), s(i));
    }
}

}  // namespace
}  // namespace qkv
