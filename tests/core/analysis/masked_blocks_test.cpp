// The blocks of an attention map the mask hides whole (core/analysis/masked_blocks.hpp), for
// causal masks, sliding windows and key padding, over the whole map and over regions of it,
// against AttentionMask::masked asked of every cell.

#include "core/analysis/masked_blocks.hpp"

#include <cstdlib>

#include <gtest/gtest.h>

namespace qkv {
namespace {

TEST(MaskedMapBlocks, ABlockIsMaskedWhenTheMaskHidesEveryCellOfIt)
{
    std::srand(17);
    for (int trial = 0; trial < 60; ++trial) {
        const Index n_q = 1 + std::rand() % 40, n_k = 1 + std::rand() % 40;
        AttentionMask mask;
        mask.causal = trial % 3 != 0;
        mask.window = mask.causal && trial % 2 ? 1 + std::rand() % 6 : 0;
        if (trial % 4 >= 2) {
            mask.keyPadding.assign(static_cast<std::size_t>(n_k), false);
            for (Index j = std::rand() % 3; j < n_k; j += 1 + std::rand() % 4) mask.keyPadding[static_cast<std::size_t>(j)] = true;
        }
        // A region of the map (the whole map every fourth trial).
        const Index firstRow = trial % 4 == 0 ? 0 : std::rand() % n_q, firstColumn = trial % 4 == 0 ? 0 : std::rand() % n_k;
        const Index rows = trial % 4 == 0 ? n_q : 1 + std::rand() % (n_q - firstRow);
        const Index columns = trial % 4 == 0 ? n_k : 1 + std::rand() % (n_k - firstColumn);
        const std::vector<Index> rowEdges = blockEdges(rows, blockCount(rows, 1 + std::rand() % 9));
        const std::vector<Index> columnEdges = blockEdges(columns, blockCount(columns, 1 + std::rand() % 9));
        const BlockFlags masked = maskedMapBlocks(mask, n_k, firstRow, firstColumn, rowEdges, columnEdges);
        ASSERT_EQ(masked.rows(), static_cast<Index>(rowEdges.size()) - 1);
        ASSERT_EQ(masked.cols(), static_cast<Index>(columnEdges.size()) - 1);
        for (Index p = 0; p < masked.rows(); ++p)
            for (Index s = 0; s < masked.cols(); ++s) {
                bool every = true;
                for (Index r = rowEdges[static_cast<std::size_t>(p)]; r < rowEdges[static_cast<std::size_t>(p) + 1]; ++r)
                    for (Index c = columnEdges[static_cast<std::size_t>(s)]; c < columnEdges[static_cast<std::size_t>(s) + 1]; ++c)
                        every = every && mask.masked(firstRow + r, firstColumn + c);
                EXPECT_EQ(masked(p, s), every) << "trial " << trial << " block " << p << "," << s;
            }
    }
}

}  // namespace
}  // namespace qkv
