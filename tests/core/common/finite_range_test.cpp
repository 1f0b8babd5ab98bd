// The finite range of a block of floats skips NaN and +-infinity wherever they sit (in the
// vectorised lanes or the tail), and agrees with a plain loop on random data.

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/common/finite_range.hpp"

namespace qkv {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(FiniteRange, SkipsNaNAndInfinitiesInTheLanesAndTheTail)
{
    std::vector<float> values(37, 0.5f);  // two lanes of 16 and a tail of 5
    values[3] = -kInf;
    values[20] = std::numeric_limits<float>::quiet_NaN();
    values[35] = kInf;
    values[10] = -2.0f;
    values[36] = 3.0f;  // in the tail
    const FiniteRange r = finiteRange(values);
    EXPECT_TRUE(r.any());
    EXPECT_EQ(r.smallest, -2.0f);
    EXPECT_EQ(r.largest, 3.0f);
    EXPECT_EQ(r.largestMagnitude, 3.0f);
}

TEST(FiniteRange, NothingFiniteIsNoRange)
{
    EXPECT_FALSE(finiteRange({}).any());
    const std::vector<float> masked(40, -kInf);
    EXPECT_FALSE(finiteRange(masked).any());
    EXPECT_EQ(finiteRange(masked).largestMagnitude, 0.0f);
}

TEST(FiniteRange, AgreesWithAPlainLoopOnRandomBlocks)
{
    std::mt19937 generator(7);
    std::normal_distribution<float> normal(0.0f, 4.0f);
    std::uniform_int_distribution<int> kind(0, 20);
    for (std::size_t n : {1u, 15u, 16u, 17u, 1000u, 4099u}) {
        std::vector<float> values(n);
        for (float& v : values) {
            const int k = kind(generator);
            v = k == 0 ? -kInf : k == 1 ? std::numeric_limits<float>::quiet_NaN() : normal(generator);
        }
        float smallest = kInf, largest = -kInf, magnitude = 0;
        for (float v : values)
            if (std::isfinite(v)) {
                smallest = std::min(smallest, v);
                largest = std::max(largest, v);
                magnitude = std::max(magnitude, std::abs(v));
            }
        FiniteRange halves = finiteRange(std::span<const float>(values).first(n / 2));
        halves.include(finiteRange(std::span<const float>(values).subspan(n / 2)));
        for (const FiniteRange& r : {finiteRange(values), halves}) {
            EXPECT_EQ(r.smallest, smallest) << n;
            EXPECT_EQ(r.largest, largest) << n;
            EXPECT_EQ(r.largestMagnitude, magnitude) << n;
        }
    }
}

TEST(AllFinite, FindsTheFirstValueThatIsNotFiniteOnOneThreadAndOnSeveral)
{
    // 3 M floats: above the size at which the check is split between the threads.
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{17}, std::size_t{3'000'000}}) {
        std::vector<float> values(n, 1.5f);
        EXPECT_TRUE(allFinite(values)) << n;
        EXPECT_EQ(firstNonFinite(values), n) << n;
        if (n == 0) continue;
        for (float bad : {std::numeric_limits<float>::quiet_NaN(), kInf, -kInf})
            for (std::size_t at : {n - 1, n / 2, std::size_t{0}}) {
                std::vector<float> changed = values;
                changed[at] = bad;
                changed[n - 1] = n - 1 == at ? bad : -kInf;  // a later one too: the first is named
                EXPECT_FALSE(allFinite(changed)) << n << " " << at;
                EXPECT_EQ(firstNonFinite(changed), at) << n << " " << at;
            }
        values[n / 2] = std::numeric_limits<float>::max();  // the largest finite, and a subnormal
        values[0] = std::numeric_limits<float>::denorm_min();
        EXPECT_TRUE(allFinite(values)) << n;
    }
}

}  // namespace
}  // namespace qkv
