#pragma once
// A map shrunk to fewer cells by block means: what a thumbnail of an n_q x n_k attention map
// shows when it has fewer pixels than the map has cells (the Model tab's "Pooled" cells).
// An area filter, so a key that holds all the weight of a row stays visible as a block of its
// weight shared among the block's cells, never skipped the way sampling skips it.
//
// Symbols: the map M is R x C (rows, columns); the pooled map P is r x c with r <= R, c <= C.
// Blocks: output row p covers input rows [floor(p R / r), floor((p + 1) R / r)), so blocks
// differ in size by at most one row (R = 5, r = 2: rows {0, 1} and {2, 3, 4}); columns alike.
//   P(p, s) = mean of M over its block        (sums in double, stored as float)
// A non-finite cell makes its block's mean non-finite (no value shown there, as for the cell).

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

// M pooled to r x c. Errors: r or c not positive, or larger than M's rows or columns.
Expected<MatrixF> blockMeans(const MatrixF& map, Index rows, Index columns);

// A held double map's block means and maxima over the same blocks (r x c each, r = blocks of
// rows, c = of columns): the rollout pooled for the long-prompt export, beside its heads' pools.
// Precondition: r and c between 1 and the map's sides.
struct BlockMeansAndMaxima {
    MatrixD mean, max;
};
BlockMeansAndMaxima blockMeansAndMaxima(const MatrixD& map, Index rows, Index columns);

// The first input index of block `block` of `blocks` over `size` inputs: floor(block size / blocks).
inline Index blockStart(Index block, Index blocks, Index size) { return block * size / blocks; }

}  // namespace qkv
