// A long layer's row strip as numbers (core/analysis/row_strip.hpp), on hand-built rows: each
// pixel keeps its keys' largest weight, the pixels' keys, the top keys and their order.

#include "core/analysis/row_strip.hpp"

#include <gtest/gtest.h>

namespace qkv {
namespace {

TEST(LongRowStrip, PerPixelMaximumKeepsASharpKey)
{
    const std::vector<float> row = {0.1f, 0.9f, 0.2f, 0.3f, 0.05f, 0.4f, 0.0f};
    const PixelMaxima three = maxPerPixel(row, 3);  // keys [0, 2), [2, 4), [4, 7)
    EXPECT_EQ(three.edges, (std::vector<Index>{0, 2, 4, 7}));
    EXPECT_EQ(three.maxima, (std::vector<float>{0.9f, 0.3f, 0.4f}));
    const PixelMaxima wide = maxPerPixel(row, 100);  // more pixels than keys: the row itself
    EXPECT_EQ(wide.maxima, row);
    EXPECT_EQ(maxPerPixel(row, 1).maxima, (std::vector<float>{0.9f}));
    EXPECT_EQ(keysOfPixel(7, 3, 2), (std::pair<Index, Index>{4, 7}));
    EXPECT_EQ(keysOfPixel(7, 3, 0), (std::pair<Index, Index>{0, 2}));
    EXPECT_EQ(keysOfPixel(7, 100, 6), (std::pair<Index, Index>{6, 7}));  // a pixel per key
    EXPECT_EQ(largestKey(row, 2, 7), 5);
}

TEST(LongRowStrip, TopKeysAreTheLargestWithTheLowerPositionFirstAmongEquals)
{
    const std::vector<float> row = {0.2f, 0.5f, 0.1f, 0.5f, 0.3f};
    const std::vector<KeyWeight> top = topKeys(row, 3);
    ASSERT_EQ(top.size(), 3u);
    EXPECT_EQ(top[0].key, 1);
    EXPECT_EQ(top[1].key, 3);
    EXPECT_EQ(top[2].key, 4);
    EXPECT_EQ(top[2].weight, 0.3f);
    EXPECT_EQ(topKeys(row, 10).size(), row.size());
}

TEST(LongRowStrip, MaskedKeysAreRunsInOrder)
{
    EXPECT_EQ(hiddenKeyRuns({true, false, false, true, false}),
              (std::vector<std::pair<Index, Index>>{{1, 3}, {4, 5}}));
    EXPECT_TRUE(hiddenKeyRuns({true, true}).empty());
    EXPECT_EQ(hiddenKeyRuns({false, false}), (std::vector<std::pair<Index, Index>>{{0, 2}}));
}

}  // namespace
}  // namespace qkv
