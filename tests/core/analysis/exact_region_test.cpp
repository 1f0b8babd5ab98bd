// An exact region of a long layer as numbers (core/analysis/exact_region.hpp) on hand-built
// values: its blocks drawn by maximum with the wholly masked block marked, and where a region
// lies and how the wheel zooms it. The region against the held map of a real layer:
// tests/ui/heads/long_layer_detail_test.cpp.

#include "core/analysis/exact_region.hpp"

#include <cmath>

#include <gtest/gtest.h>

namespace qkv {
namespace {

TEST(ExactRegionData, BlockMaximaSkipMaskedCellsAndRegionsStayInsideTheMap)
{
    // The masked cells (right of each row's visible keys) hold weight 0, as headAttentionRegion
    // gives them; a block all of whose cells are masked is marked, one with a visible cell shows
    // its largest weight.
    MatrixF values(3, 4);  // 3 x 4
    values << 0.1f, 0.7f, 0.0f, 0.0f,  //
        0.2f, 0.3f, 0.0f, 0.0f,        //
        0.9f, 0.0f, 0.4f, 0.0f;
    const std::vector<KeyRange> visible{{0, 2}, {0, 2}, {0, 3}};
    MatrixF maxima = blockMaxima(values, {0, 2, 3}, {0, 2, 4});
    markBlocks(maxima, maskedBlocks(visible, {}, {0, 2, 3}, {0, 2, 4}));
    ASSERT_EQ(maxima.rows(), 2);
    ASSERT_EQ(maxima.cols(), 2);
    EXPECT_EQ(maxima(0, 0), 0.7f);
    EXPECT_TRUE(std::isnan(maxima(0, 1)));  // every cell masked
    EXPECT_EQ(maxima(1, 0), 0.9f);
    EXPECT_EQ(maxima(1, 1), 0.4f);

    EXPECT_EQ(regionAround(5, 995, 64, 1000, 1000), (RegionBounds{0, 64, 936, 1000}));
    EXPECT_EQ(regionAround(500, 500, 64, 1000, 40), (RegionBounds{468, 532, 0, 40}));
    EXPECT_EQ(zoomedSide(256, true), 128);
    EXPECT_EQ(zoomedSide(kMinRegionSide, true), kMinRegionSide);
    EXPECT_EQ(zoomedSide(kMaxRegionSide, false), kMaxRegionSide);
    EXPECT_EQ(zoomedSide(10, true), 10);  // a small dragged region is not zoomed out by the wheel's "in"
    EXPECT_EQ(zoomedSide(10, false), 20);
}

}  // namespace
}  // namespace qkv
