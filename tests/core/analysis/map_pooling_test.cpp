// Block means of a map (the Model tab's pooled thumbnails): uneven blocks worked by hand, the
// identity at full size, a whole-map mean kept with even blocks, a cell with no value, bad sizes.

#include "core/analysis/map_pooling.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace qkv {
namespace {

// M(i, j) = 10 i + j: a block's mean is 10 (mean row) + (mean column).
MatrixF rampMap(Index rows, Index columns)
{
    MatrixF map(rows, columns);
    for (Index i = 0; i < rows; ++i)
        for (Index j = 0; j < columns; ++j) map(i, j) = static_cast<float>(10 * i + j);
    return map;
}

TEST(MapPooling, UnevenBlocksAreMeansOfFloorBoundaries)
{
    // Rows 5 -> 2: {0, 1}, {2, 3, 4} (mean rows 0.5 and 3). Columns 7 -> 3: starts 0, 2, 4:
    // {0, 1}, {2, 3}, {4, 5, 6} (mean columns 0.5, 2.5, 5).
    const Expected<MatrixF> pooled = blockMeans(rampMap(5, 7), 2, 3);
    ASSERT_TRUE(pooled) << pooled.error();
    ASSERT_EQ(pooled->rows(), 2);
    ASSERT_EQ(pooled->cols(), 3);
    const float expected[2][3] = {{5.5f, 7.5f, 10.0f}, {30.5f, 32.5f, 35.0f}};
    for (int p = 0; p < 2; ++p)
        for (int s = 0; s < 3; ++s) EXPECT_FLOAT_EQ((*pooled)(p, s), expected[p][s]) << p << ", " << s;
}

TEST(MapPooling, BlockStartsCoverEveryIndexOnce)
{
    for (Index size : {1, 5, 7, 128, 513})
        for (Index blocks = 1; blocks <= size; blocks += std::max<Index>(1, size / 9)) {
            EXPECT_EQ(blockStart(0, blocks, size), 0);
            EXPECT_EQ(blockStart(blocks, blocks, size), size);
            for (Index b = 0; b < blocks; ++b) {
                const Index length = blockStart(b + 1, blocks, size) - blockStart(b, blocks, size);
                EXPECT_GE(length, size / blocks);
                EXPECT_LE(length, size / blocks + 1);
            }
        }
}

TEST(MapPooling, FullSizeIsTheMapAndEvenBlocksKeepTheMean)
{
    MatrixF map = MatrixF::Random(12, 8);
    const Expected<MatrixF> same = blockMeans(map, 12, 8);
    ASSERT_TRUE(same);
    EXPECT_EQ(*same, map);
    const Expected<MatrixF> quarter = blockMeans(map, 3, 2);  // 4 x 4 blocks
    ASSERT_TRUE(quarter);
    EXPECT_NEAR(quarter->cast<double>().mean(), map.cast<double>().mean(), 1e-6);
    EXPECT_NEAR((*quarter)(2, 1), map.block(8, 4, 4, 4).cast<double>().mean(), 1e-6);
}

TEST(MapPooling, ACellWithoutValueLeavesItsBlockWithoutValue)
{
    MatrixF map = rampMap(4, 4);
    map(3, 0) = std::numeric_limits<float>::quiet_NaN();
    const Expected<MatrixF> pooled = blockMeans(map, 2, 2);
    ASSERT_TRUE(pooled);
    EXPECT_TRUE(std::isnan((*pooled)(1, 0)));
    EXPECT_FLOAT_EQ((*pooled)(0, 0), 5.5f);
    EXPECT_FLOAT_EQ((*pooled)(1, 1), 27.5f);
}

TEST(MapPooling, RefusesSizesOutsideTheMap)
{
    const MatrixF map = rampMap(3, 4);
    EXPECT_FALSE(blockMeans(map, 0, 2));
    EXPECT_FALSE(blockMeans(map, 2, -1));
    const Expected<MatrixF> tooMany = blockMeans(map, 4, 2);
    ASSERT_FALSE(tooMany);
    EXPECT_NE(tooMany.error().find("3 x 4"), std::string::npos) << tooMany.error();
}

}  // namespace
}  // namespace qkv
