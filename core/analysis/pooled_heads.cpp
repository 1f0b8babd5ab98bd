#include "core/analysis/pooled_heads.hpp"

#include <utility>

#include "core/analysis/masked_blocks.hpp"
#include "core/ops/block_pooling.hpp"

namespace qkv {

PooledHeadMaps pooledHeadMaps(const Result& result, bool maxima, bool withAverage)
{
    PooledHeadMaps out;
    const PooledAttention& first = result.streamedHeads.front().pooled;
    out.rowEdges = first.rowEdges;
    out.columnEdges = first.columnEdges;
    // NaN over the blocks no visible cell falls in (one matrix for every head: they share the mask).
    const auto r = static_cast<Index>(out.rowEdges.size()) - 1, c = static_cast<Index>(out.columnEdges.size()) - 1;
    MatrixF hidden = MatrixF::Zero(r, c);  // r x c
    const AttentionMask& mask = result.attention.mask;
    if (mask.causal || !mask.keyPadding.empty())
        markBlocks(hidden, maskedMapBlocks(mask, result.attention.keyCount(), 0, 0, out.rowEdges, out.columnEdges));
    MatrixF sum = MatrixF::Zero(r, c);
    for (const StreamedAttention& head : result.streamedHeads) {
        MatrixF shown = (maxima ? head.pooled.max : head.pooled.mean) + hidden;  // NaN + x = NaN
        if (withAverage) sum += shown;
        out.panels.push_back(std::make_shared<const MatrixF>(std::move(shown)));
    }
    if (withAverage)
        out.panels.push_back(std::make_shared<const MatrixF>(sum / static_cast<float>(result.streamedHeads.size())));
    return out;
}

}  // namespace qkv
