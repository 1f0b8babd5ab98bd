#include "ui/factored/matrix_pooling.hpp"

#include <algorithm>
#include <cmath>

namespace qkv::ui {

std::vector<Index> binEdges(Index start, Index count, Index bins)
{
    count = std::max<Index>(count, 0);
    bins = std::clamp<Index>(bins, 1, std::max<Index>(count, 1));
    std::vector<Index> edges(static_cast<std::size_t>(bins) + 1);
    for (Index b = 0; b <= bins; ++b) {
        edges[static_cast<std::size_t>(b)] = start + (b * count) / bins;
    }
    return edges;
}

namespace {

template <class Matrix>
Matrix poolRowsImpl(const Matrix& m, Index start, Index count, Index bins)
{
    start = std::clamp<Index>(start, 0, m.rows());
    count = std::clamp<Index>(count, 0, m.rows() - start);
    if (count == 0) {
        return Matrix(0, m.cols());
    }
    const std::vector<Index> edges = binEdges(start, count, bins);
    const Index n = static_cast<Index>(edges.size()) - 1;
    if (n == count) {
        return m.middleRows(start, count);  // one row per bin: exact
    }
    Matrix pooled(n, m.cols());  // n x cols
    for (Index b = 0; b < n; ++b) {
        const Index first = edges[static_cast<std::size_t>(b)];
        const Index length = edges[static_cast<std::size_t>(b) + 1] - first;
        pooled.row(b) = m.middleRows(first, length).colwise().sum() /
                        static_cast<typename Matrix::Scalar>(length);
    }
    return pooled;
}

template <class Matrix>
Matrix poolMatrixImpl(const Matrix& m, const MatrixWindow& window, Index rowBins, Index colBins)
{
    // Rows first on the window's columns, then the columns of the transposed result.
    const Index col0 = std::clamp<Index>(window.col0, 0, m.cols());
    const Index cols = std::clamp<Index>(window.cols, 0, m.cols() - col0);
    const Matrix band = m.middleCols(col0, cols);                              // all rows x cols
    const Matrix rowsPooled = poolRowsImpl<Matrix>(band, window.row0, window.rows, rowBins);
    const Matrix transposed = rowsPooled.transpose();                          // cols x rowBins
    const Matrix both = poolRowsImpl<Matrix>(transposed, 0, cols, colBins);    // colBins x rowBins
    return both.transpose();
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

}  // namespace qkv::ui
