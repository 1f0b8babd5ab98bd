#include "core/analysis/masked_blocks.hpp"

namespace qkv {

BlockFlags maskedMapBlocks(const AttentionMask& mask, Index keyCount, Index firstRow, Index firstColumn,
                           const std::vector<Index>& rowEdges, const std::vector<Index>& columnEdges)
{
    const Index rows = rowEdges.back(), columns = columnEdges.back();
    // Each row's visible keys, moved into the region's columns.
    std::vector<KeyRange> visible(static_cast<std::size_t>(rows));
    for (Index r = 0; r < rows; ++r) {
        const Index query = firstRow + r;
        visible[static_cast<std::size_t>(r)] = {mask.visibleBegin(query) - firstColumn,
                                                mask.visibleEnd(query, keyCount) - firstColumn};
    }
    std::vector<bool> padded;
    if (!mask.keyPadding.empty())
        padded.assign(mask.keyPadding.begin() + firstColumn, mask.keyPadding.begin() + firstColumn + columns);
    return maskedBlocks(visible, padded, rowEdges, columnEdges);
}

}  // namespace qkv
