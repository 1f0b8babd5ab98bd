// Blocks of a map (core/ops/block_pooling.hpp): edges that cover a side exactly, the NaN policy
// of block maxima and means, and the masked blocks on hand-built masks.

#include "core/ops/block_pooling.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>

#include <gtest/gtest.h>

namespace qkv {
namespace {

TEST(BlockEdges, CoverEverySideExactlyOnceInBlocksDifferingByAtMostOne)
{
    for (Index size : {1, 2, 5, 7, 128, 513, 4096})
        for (Index asked : {Index{-3}, Index{0}, Index{1}, Index{2}, Index{3}, Index{7}, Index{64}, Index{600}, Index{5000}}) {
            const Index blocks = blockCount(size, asked);
            ASSERT_GE(blocks, 1);
            ASSERT_LE(blocks, size);
            const std::vector<Index> edges = blockEdges(size, blocks);
            ASSERT_EQ(edges.size(), static_cast<std::size_t>(blocks) + 1);
            EXPECT_EQ(edges.front(), 0);
            EXPECT_EQ(edges.back(), size);
            for (Index b = 0; b < blocks; ++b) {
                EXPECT_GE(blockLength(edges, b), size / blocks) << size << " " << blocks << " " << b;
                EXPECT_LE(blockLength(edges, b), size / blocks + 1) << size << " " << blocks << " " << b;
                EXPECT_EQ(edges[static_cast<std::size_t>(b)], blockStart(b, blocks, size));
            }
            for (Index position = 0; position < size; position += std::max<Index>(1, size / 50)) {
                const Index b = blockOfPosition(edges, position);
                ASSERT_GE(b, 0);
                EXPECT_GE(position, edges[static_cast<std::size_t>(b)]);
                EXPECT_LT(position, edges[static_cast<std::size_t>(b) + 1]);
            }
            EXPECT_EQ(blockOfPosition(edges, -1), -1);
            EXPECT_EQ(blockOfPosition(edges, size), -1);
        }
    EXPECT_EQ(blockEdges(5, 2), (std::vector<Index>{0, 2, 5}));  // R = 5, r = 2: {0, 1} and {2, 3, 4}
    EXPECT_EQ(blockCount(0, 5), 1);                               // one block over an empty side
    EXPECT_EQ(blockEdges(0, 1), (std::vector<Index>{0, 0}));
}

TEST(BlockMaxima, AnInfiniteCellIsAValueAndANaNCellIsNot)
{
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    MatrixF map(2, 4);  // 2 x 4, blocks of 2 x 2
    map << 0.5f, inf, 0.1f, nan,  //
        -inf, 0.2f, 0.3f, 0.4f;
    const MatrixF maxima = blockMaxima(map, {0, 2}, {0, 2, 4});
    EXPECT_EQ(maxima(0, 0), inf);
    EXPECT_TRUE(std::isnan(maxima(0, 1)));  // not 0.4: the NaN is not skipped
    const MatrixF means = blockMeans(map, {0, 2}, {0, 2, 4});
    EXPECT_TRUE(std::isnan(means(0, 0)));  // inf + -inf: no mean
    EXPECT_TRUE(std::isnan(means(0, 1)));
    // A NaN anywhere in a block, first or last, leaves it NaN.
    MatrixF first = MatrixF::Constant(3, 3, 0.25f);
    first(0, 0) = nan;
    EXPECT_TRUE(std::isnan(blockMaxima(first, {0, 3}, {0, 3})(0, 0)));
    first(0, 0) = 0.25f;
    first(2, 2) = nan;
    EXPECT_TRUE(std::isnan(blockMaxima(first, {0, 3}, {0, 3})(0, 0)));
}

// Every cell of every block checked against visible ranges and padding, block by block.
BlockFlags bruteMaskedBlocks(const std::vector<KeyRange>& visible, const std::vector<bool>& padded,
                             const std::vector<Index>& rows, const std::vector<Index>& columns)
{
    BlockFlags masked = BlockFlags::Constant(static_cast<Index>(rows.size()) - 1, static_cast<Index>(columns.size()) - 1, true);
    for (Index p = 0; p < masked.rows(); ++p)
        for (Index s = 0; s < masked.cols(); ++s)
            for (Index q = rows[static_cast<std::size_t>(p)]; q < rows[static_cast<std::size_t>(p) + 1]; ++q)
                for (Index j = columns[static_cast<std::size_t>(s)]; j < columns[static_cast<std::size_t>(s) + 1]; ++j) {
                    const KeyRange& keys = visible[static_cast<std::size_t>(q)];
                    const bool hidden = j < keys.begin || j >= keys.end || (!padded.empty() && padded[static_cast<std::size_t>(j)]);
                    if (!hidden) masked(p, s) = false;
                }
    return masked;
}

TEST(MaskedBlocks, ABlockIsMaskedExactlyWhenNoneOfItsCellsIsVisible)
{
    // By hand: 4 queries, 6 keys, causal; keys 4 and 5 padded.
    std::vector<KeyRange> causal;
    for (Index q = 0; q < 4; ++q) causal.push_back({0, q + 1});
    const BlockFlags masked = maskedBlocks(causal, {}, {0, 2, 4}, {0, 2, 4, 6});
    EXPECT_FALSE(masked(0, 0));
    EXPECT_TRUE(masked(0, 1));  // rows 0-1 see keys 0-1 only
    EXPECT_TRUE(masked(0, 2));
    EXPECT_FALSE(masked(1, 1));
    EXPECT_TRUE(masked(1, 2));
    std::vector<KeyRange> all(4, KeyRange{0, 6});
    const std::vector<bool> padded{false, false, false, false, true, true};
    const BlockFlags paddedBlocks = maskedBlocks(all, padded, {0, 2, 4}, {0, 2, 4, 6});
    EXPECT_FALSE(paddedBlocks(1, 1));
    EXPECT_TRUE(paddedBlocks(0, 2));  // every key of the block padded
    EXPECT_TRUE(paddedBlocks(1, 2));

    // Sliding windows, padding and uneven blocks, against every cell.
    std::srand(3);
    for (int trial = 0; trial < 40; ++trial) {
        const Index rows = 1 + std::rand() % 30, columns = 1 + std::rand() % 30, window = std::rand() % 6;
        std::vector<KeyRange> visible;
        for (Index q = 0; q < rows; ++q) {
            const Index end = std::min(q + 1 + trial % 3, columns);
            visible.push_back({window > 0 ? std::max<Index>(0, end - window) : 0, end});
        }
        std::vector<bool> pad;
        if (trial % 2)
            for (Index j = 0; j < columns; ++j) pad.push_back(std::rand() % 3 == 0);
        const std::vector<Index> rowEdges = blockEdges(rows, blockCount(rows, 1 + std::rand() % 8));
        const std::vector<Index> columnEdges = blockEdges(columns, blockCount(columns, 1 + std::rand() % 8));
        EXPECT_TRUE((maskedBlocks(visible, pad, rowEdges, columnEdges) ==
                     bruteMaskedBlocks(visible, pad, rowEdges, columnEdges)).all())
            << "trial " << trial;
    }
}

TEST(MaskedBlocks, MarkedBlocksAreNaNAndTheOthersKeepTheirBits)
{
    MatrixF pooled(2, 2);  // 2 x 2
    pooled << 0.125f, 0.0f, 0.5f, 0.75f;
    BlockFlags flags(2, 2);
    flags << false, true, false, false;
    markBlocks(pooled, flags);
    EXPECT_EQ(pooled(0, 0), 0.125f);
    EXPECT_TRUE(std::isnan(pooled(0, 1)));
    EXPECT_EQ(pooled(1, 0), 0.5f);
    EXPECT_EQ(pooled(1, 1), 0.75f);
}

}  // namespace
}  // namespace qkv
