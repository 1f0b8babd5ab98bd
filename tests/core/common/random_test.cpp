#include <cmath>

#include <gtest/gtest.h>

#include "core/common/random.hpp"

namespace qkv {
namespace {

TEST(SplitMix64, KnownFirstOutputsForSeedZero)
{
    // Reference values of SplitMix64 (Steele, Lea & Flood 2014) from seed 0.
    SplitMix64 stream(0);
    EXPECT_EQ(stream.next(), 0xE220A8397B1DCDAFull);
    EXPECT_EQ(stream.next(), 0x6E789E6AA1B965F4ull);
}

TEST(SplitMix64, UniformAndNormalHaveTheirMoments)
{
    SplitMix64 stream(42);
    double sum = 0, sumSquares = 0, normalSum = 0, normalSquares = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
        const double u = stream.uniform01();
        ASSERT_GE(u, 0.0);
        ASSERT_LT(u, 1.0);
        sum += u;
        sumSquares += u * u;
        const double z = stream.normal();
        normalSum += z;
        normalSquares += z * z;
    }
    EXPECT_NEAR(sum / n, 0.5, 0.005);
    EXPECT_NEAR(sumSquares / n - 0.25, 1.0 / 12.0, 0.002);
    EXPECT_NEAR(normalSum / n, 0.0, 0.01);
    EXPECT_NEAR(normalSquares / n, 1.0, 0.01);
}

TEST(HashWithSeed, DependsOnBytesAndSeed)
{
    EXPECT_EQ(hashWithSeed("cat", 1), hashWithSeed("cat", 1));
    EXPECT_NE(hashWithSeed("cat", 1), hashWithSeed("cat", 2));
    EXPECT_NE(hashWithSeed("cat", 1), hashWithSeed("cab", 1));
}

}  // namespace
}  // namespace qkv
