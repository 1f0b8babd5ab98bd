#pragma once
// Each head's map of a long layer (Result::streamed()) as the stream kept it, in blocks of
// positions (core/attention/streamed_attention.hpp's PooledAttention), ready to draw: a 32,768-token
// layer as 512 x 512 blocks instead of 2^30 cells per head. A block shows its mean weight, or its
// largest one, which keeps a single sharp key visible that the mean would average away. Blocks
// every cell of which the mask hides are NaN (core/ops/block_pooling.hpp's maskedBlocks), as
// masked cells are in a held map. ui/heads/pooled_panels.hpp names and labels them.

#include <memory>
#include <vector>

#include "core/common/matrix.hpp"
#include "core/result/result.hpp"

namespace qkv {

struct PooledHeadMaps {
    std::vector<std::shared_ptr<const MatrixF>> panels;  // per head (r x c), then the heads' mean when asked
    std::vector<Index> rowEdges;     // r + 1: block b holds query positions [rowEdges[b], rowEdges[b+1])
    std::vector<Index> columnEdges;  // c + 1, key positions alike
};

// `maxima`: each block's largest weight, else its mean. `withAverage`: a last panel, the mean of
// the heads' panels (for means the block mean of the heads' mean map, exactly).
// Precondition: result.streamed().
PooledHeadMaps pooledHeadMaps(const Result& result, bool maxima, bool withAverage);

}  // namespace qkv
