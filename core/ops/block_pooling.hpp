#pragma once
// Blocks of a map: a map (an n_q x n_k attention map, a d_model x d_model weight matrix, one row
// of weights) kept or drawn with fewer cells than it has, each cell a block of its positions. One
// rule for where the blocks lie, what a block shows (its mean or its largest entry) and which
// blocks the mask hides, for every path that pools a map: a streamed layer's pooled maps, the
// Model tab's thumbnails, the rollout's pool in the export, the factored matrices, the heads
// figure's long-layer panels, the exact region and the row strip of a long layer.
//
// Symbols: a map M is R x C; pooled, it is r x c blocks (1 <= r <= R, 1 <= c <= C).
// Edges: block b of `blocks` over `size` positions covers [floor(b size / blocks),
// floor((b + 1) size / blocks)): contiguous, every position exactly once, sizes differing by at
// most one (R = 5, r = 2: rows {0, 1} and {2, 3, 4}). An edge list holds the blocks' first
// positions, then `size` (blocks + 1 entries).
//   mean(p, s) = (sum of M over block (p, s)) / (its cells)   (summed in double, kept in M's type)
//   max(p, s)  = the largest entry of M over block (p, s)
//
// NaN: a block ignores none of its cells. A NaN cell makes its block's mean and maximum NaN (an
// infinite one is a value: the mean and maximum follow it). Why: what a block shows is a
// statement about every cell it covers (the captions say "the mean of 5 x 5 positions", "the
// largest of ..."); skipping a cell without a value would show the mean or maximum of fewer
// cells than the caption names, and nobody could see that it happened. A block without a value
// is drawn as a cell without a value is, so the gap stays visible where it is.
// Masked cells are not NaN: an attention weight is 0 where the mask hides the key (paper
// equation (1) after the -inf scores), and it counts as 0 in its block's mean and maximum, as
// the streamed pass adds it. A block whose every cell the mask hides is "not attended", not
// "small": maskedBlocks names those blocks, and the views hatch them (NaN over the block).

#include <algorithm>
#include <vector>

#include <Eigen/Core>

#include "core/common/matrix.hpp"

namespace qkv {

// The first position of block `block` of `blocks` over `size` positions: floor(block size / blocks).
inline Index blockStart(Index block, Index blocks, Index size) { return block * size / blocks; }

// `blocks` asked for `size` positions, made possible: at least one, at most one per position
// (one block over an empty side).
inline Index blockCount(Index size, Index blocks) { return std::clamp<Index>(blocks, 1, std::max<Index>(size, 1)); }

// The edges of `blocks` blocks over `size` positions (blocks + 1 entries, blockStart's).
// Precondition: blocks >= 1 (blockCount makes any request one).
std::vector<Index> blockEdges(Index size, Index blocks);

// The positions of block b of `edges`.
inline Index blockLength(const std::vector<Index>& edges, Index b)
{
    return edges[static_cast<std::size_t>(b) + 1] - edges[static_cast<std::size_t>(b)];
}

// The block of `edges` holding `position`; -1 outside them.
Index blockOfPosition(const std::vector<Index>& edges, Index position);

// The means of M's blocks: rows in rowEdges x columns in columnEdges, each edge list over M's
// side.                                              (rowEdges.size() - 1) x (columnEdges.size() - 1)
MatrixF blockMeans(const Eigen::Ref<const MatrixF>& map, const std::vector<Index>& rowEdges,
                   const std::vector<Index>& columnEdges);
MatrixD blockMeans(const Eigen::Ref<const MatrixD>& map, const std::vector<Index>& rowEdges,
                   const std::vector<Index>& columnEdges);

// The means of M's rows in blocks, each column alone: block b of `rowEdges` (positions of M's
// rows) averaged into one row. A factor of W_i = W_i^Q (W_i^K)^T pooled so (the block mean of
// the product is the product of its factors' row means).       (rowEdges.size() - 1) x C
MatrixF blockRowMeans(const Eigen::Ref<const MatrixF>& map, const std::vector<Index>& rowEdges);
MatrixD blockRowMeans(const Eigen::Ref<const MatrixD>& map, const std::vector<Index>& rowEdges);

// The largest entry of each block (edges as blockMeans').
//                                                    (rowEdges.size() - 1) x (columnEdges.size() - 1)
MatrixF blockMaxima(const Eigen::Ref<const MatrixF>& map, const std::vector<Index>& rowEdges,
                    const std::vector<Index>& columnEdges);
MatrixD blockMaxima(const Eigen::Ref<const MatrixD>& map, const std::vector<Index>& rowEdges,
                    const std::vector<Index>& columnEdges);

// The keys one query row sees, [begin, end), before key padding (AttentionMask::visibleBegin and
// visibleEnd, in the map's own columns).
struct KeyRange {
    Index begin = 0, end = 0;
};

// One flag per block.
using BlockFlags = Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The blocks (rowEdges x columnEdges over a map of visible.size() rows) none of whose cells is
// visible: cell (q, j) is visible when begin <= j < end of visible[q] and not padded[j]
// (`padded`: one flag per column of the map, or empty for no padding).
//                                                    (rowEdges.size() - 1) x (columnEdges.size() - 1)
BlockFlags maskedBlocks(const std::vector<KeyRange>& visible, const std::vector<bool>& padded,
                        const std::vector<Index>& rowEdges, const std::vector<Index>& columnEdges);

// `pooled` with NaN over the flagged blocks (how a masked block is drawn: hatched).
void markBlocks(MatrixF& pooled, const BlockFlags& flagged);

}  // namespace qkv
