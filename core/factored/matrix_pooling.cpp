#include "core/factored/matrix_pooling.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "core/ops/block_pooling.hpp"

namespace qkv {

std::vector<Index> binEdges(Index start, Index count, Index bins)
{
    count = std::max<Index>(count, 0);
    std::vector<Index> edges = blockEdges(count, blockCount(count, bins));
    for (Index& edge : edges) edge += start;
    return edges;
}

namespace {

// [start, start + count) cut to [0, size).
std::pair<Index, Index> clampedSpan(Index start, Index count, Index size)
{
    start = std::clamp<Index>(start, 0, size);
    return {start, std::clamp<Index>(count, 0, size - start)};
}

template <class Matrix>
Matrix poolRowsImpl(const Matrix& m, Index start, Index count, Index bins)
{
    std::tie(start, count) = clampedSpan(start, count, m.rows());
    if (count == 0) return Matrix(0, m.cols());
    return blockRowMeans(m, binEdges(start, count, bins));  // bins x cols
}

template <class Matrix>
Matrix poolMatrixImpl(const Matrix& m, const MatrixWindow& window, Index rowBins, Index colBins)
{
    const auto [row0, rows] = clampedSpan(window.row0, window.rows, m.rows());
    const auto [col0, cols] = clampedSpan(window.col0, window.cols, m.cols());
    if (rows == 0 || cols == 0) return Matrix(rows == 0 ? 0 : blockCount(rows, rowBins), cols == 0 ? 0 : blockCount(cols, colBins));
    return blockMeans(m.block(row0, col0, rows, cols), binEdges(0, rows, rowBins),
                      binEdges(0, cols, colBins));  // rowBins x colBins
}

template <class Matrix>
double maxAbsImpl(const Matrix& m)
{
    double worst = 0.0;
    for (Index r = 0; r < m.rows(); ++r) {
        for (Index c = 0; c < m.cols(); ++c) {
            const double v = std::abs(static_cast<double>(m(r, c)));
            if (v > worst) {  // false for NaN
                worst = v;
            }
        }
    }
    return worst;
}

}  // namespace

MatrixD poolRows(const MatrixD& m, Index start, Index count, Index bins)
{
    return poolRowsImpl<MatrixD>(m, start, count, bins);
}

MatrixD poolMatrix(const MatrixD& m, const MatrixWindow& window, Index rowBins, Index colBins)
{
    return poolMatrixImpl<MatrixD>(m, window, rowBins, colBins);
}

MatrixF poolMatrix(const MatrixF& m, const MatrixWindow& window, Index rowBins, Index colBins)
{
    return poolMatrixImpl<MatrixF>(m, window, rowBins, colBins);
}

MatrixD pooledProduct(const FactoredMatrix& factored, const MatrixWindow& window, Index rowBins,
                      Index colBins)
{
    // mean over a block of W_i = (pooled W_i^Q rows)(pooled W_i^K rows)^T (see the header).
    const MatrixD left = poolRows(factored.left(), window.row0, window.rows, rowBins);    // rowBins x d_k
    const MatrixD right = poolRows(factored.right(), window.col0, window.cols, colBins);  // colBins x d_k
    return left * right.transpose();
}

double maxAbs(const MatrixD& m) { return maxAbsImpl(m); }
double maxAbs(const MatrixF& m) { return maxAbsImpl(m); }

}  // namespace qkv
