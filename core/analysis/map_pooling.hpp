#pragma once
// A map shrunk to fewer cells by block means: what a thumbnail of an n_q x n_k attention map
// shows when it has fewer pixels than the map has cells (the Model tab's "Pooled" cells).
// An area filter, so a key that holds all the weight of a row stays visible as a block of its
// weight shared among the block's cells, never skipped the way sampling skips it.
//
// Symbols: the map M is R x C (rows, columns); the pooled map P is r x c with r <= R, c <= C.
// Blocks, their means and maxima, and what a cell without a value does to its block:
// core/ops/block_pooling.hpp (output row p covers input rows [floor(p R / r), floor((p + 1) R / r));
// a NaN cell leaves its block without a value, as the cell has none).

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/ops/block_pooling.hpp"

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

}  // namespace qkv
