#include "core/analysis/exact_region.hpp"

#include <algorithm>
#include <utility>

#include "core/analysis/masked_blocks.hpp"
#include "core/attention/streamed_layer.hpp"

namespace qkv {

RegionBounds regionAround(Index query, Index key, Index side, Index queryCount, Index keyCount)
{
    auto around = [side](Index centre, Index count) {
        const Index length = std::clamp<Index>(side, 1, std::max<Index>(count, 1));
        const Index first = std::clamp<Index>(centre - length / 2, 0, std::max<Index>(count - length, 0));
        return std::pair{first, first + length};
    };
    const auto [firstRow, endRow] = around(query, queryCount);
    const auto [firstColumn, endColumn] = around(key, keyCount);
    return {firstRow, endRow, firstColumn, endColumn};
}

Index zoomedSide(Index side, bool zoomIn)
{
    // A side already past a limit (a small dragged rectangle) is not pushed back across it.
    return zoomIn ? std::max(side / 2, std::min(side, kMinRegionSide)) : std::min(side * 2, std::max(side, kMaxRegionSide));
}

Expected<ExactRegion> computeExactRegion(const Result& result, int head, const RegionBounds& bounds, Index pixelRows,
                                         Index pixelColumns)
{
    Expected<MatrixF> values =
        headAttentionRegion(result.attention, head, bounds.firstRow, bounds.endRow, bounds.firstColumn, bounds.endColumn);
    if (!values) return Error{values.error()};
    ExactRegion region;
    region.head = head;
    region.bounds = bounds;
    region.values = std::move(*values);
    region.rowEdges = blockEdges(bounds.rows(), blockCount(bounds.rows(), pixelRows));
    region.columnEdges = blockEdges(bounds.columns(), blockCount(bounds.columns(), pixelColumns));
    region.drawn = blockMaxima(region.values, region.rowEdges, region.columnEdges);
    const AttentionMask& mask = result.attention.mask;
    if (mask.causal || !mask.keyPadding.empty())
        markBlocks(region.drawn,
                   maskedMapBlocks(mask, result.attention.keyCount(), bounds.firstRow, bounds.firstColumn, region.rowEdges,
                                   region.columnEdges));
    region.largest = region.values.maxCoeff();
    return region;
}

}  // namespace qkv
