#pragma once
// Drawing a large matrix at the resolution it is drawn: block means (core/ops/block_pooling.hpp's
// blocks and rule), computed from the thin factors where the matrix is a product.
//
// Symbols: d_model, d_k = d_model / h; a window is a block [row0, row0+rows) x [col0, col0+cols)
// of a matrix; bins are the cells actually drawn along one side (<= the window's side).
//
// The block mean of W_i = W_i^Q (W_i^K)^T is linear in each factor:
//   mean_{r in R, c in C} W_i(r, c) = (mean_{r in R} W_i^Q(r, :)) (mean_{c in C} W_i^K(c, :))^T
// so the downsampled W_i is the product of the row-pooled factors, O(bins_r bins_c d_k), and
// the dense d_model x d_model matrix is never formed. With as many bins as rows the pooling is
// the identity and the block is exact (FactoredMatrix::denseBlock).

#include <vector>

#include "core/common/matrix.hpp"
#include "core/factored/factored_matrix.hpp"

namespace qkv {

// A rectangular block of a matrix, in matrix coordinates.
struct MatrixWindow {
    Index row0 = 0;
    Index col0 = 0;
    Index rows = 0;
    Index cols = 0;

    static MatrixWindow whole(Index rows, Index cols) { return {0, 0, rows, cols}; }
    bool operator==(const MatrixWindow&) const = default;
};

// Bin b of `bins` covers [edges[b], edges[b+1]) of [start, start+count): blockEdges' blocks,
// moved to start. bins is clamped to [1, count] (blockCount).
std::vector<Index> binEdges(Index start, Index count, Index bins);

// rows of `m` in [start, start+count) averaged into `bins` rows: bins x m.cols().
MatrixD poolRows(const MatrixD& m, Index start, Index count, Index bins);

// Block means of `m` over `window`, into rowBins x colBins cells (each clamped to the window).
MatrixD poolMatrix(const MatrixD& m, const MatrixWindow& window, Index rowBins, Index colBins);
MatrixF poolMatrix(const MatrixF& m, const MatrixWindow& window, Index rowBins, Index colBins);

// Block means of W_i = W_i^Q (W_i^K)^T over `window` from the factors:
// poolRows(W_i^Q) * poolRows(W_i^K)^T, rowBins x colBins. Exact entries when the bins equal
// the window's sides.
MatrixD pooledProduct(const FactoredMatrix& factored, const MatrixWindow& window, Index rowBins,
                      Index colBins);

// max |m(i, j)|, 0 for an empty matrix; NaN entries are skipped (the colour scale's top: a NaN
// cell is drawn as having no value, it has no size to scale by).
double maxAbs(const MatrixD& m);
double maxAbs(const MatrixF& m);

}  // namespace qkv
