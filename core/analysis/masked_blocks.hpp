#pragma once
// The blocks of an attention map (n_q x n_k, or a region of it) that the mask hides whole: no
// query of the block sees any key of it (causal, a sliding window, key padding). Such a block is
// "not attended", not "small": the views hatch it. The rule over blocks is
// core/ops/block_pooling.hpp's maskedBlocks; this reads it off an AttentionMask.

#include <vector>

#include "core/common/matrix.hpp"
#include "core/ops/attention_mask.hpp"
#include "core/ops/block_pooling.hpp"

namespace qkv {

// The blocks (rowEdges x columnEdges, local to the region whose first cell is (firstRow,
// firstColumn) of the n_q x keyCount map; the region is rowEdges.back() x columnEdges.back())
// none of whose cells `mask` lets its query see.  (rowEdges.size() - 1) x (columnEdges.size() - 1)
BlockFlags maskedMapBlocks(const AttentionMask& mask, Index keyCount, Index firstRow, Index firstColumn,
                           const std::vector<Index>& rowEdges, const std::vector<Index>& columnEdges);

}  // namespace qkv
