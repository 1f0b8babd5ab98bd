#include "core/common/row_products.hpp"

#include <algorithm>
#include <cmath>

#include "core/common/packed_products.hpp"

namespace qkv::detail {

void multiplyRowsWithBlas(const Eigen::Ref<const MatrixF>& x, const float* w, Index n, Index ldw, bool transposed,
                          Eigen::Ref<MatrixF> out, bool accumulate)
{
    const Index rows = x.rows(), k = x.cols();
    if (rows == 0) return;
    // Rows for a call above the small-matrix path: the padded rows repeat the last one.
    const auto enough = static_cast<Index>(std::floor(kBlasSmallProduct / (static_cast<double>(k) * static_cast<double>(n)))) + 1;
    if (rows >= enough) {
        blasProduct(x.data(), rows, k, x.outerStride(), w, n, ldw, transposed, out.data(), out.outerStride(), accumulate);
        return;
    }
    multiplyPaddedRows(x, enough, n, out, accumulate, [&](const MatrixF& padded, MatrixF& product) {
        blasProduct(padded.data(), enough, k, k, w, n, ldw, transposed, product.data(), n, accumulate);
    });
}

void multiplyRowsWithOneDnn(const Eigen::Ref<const MatrixF>& x, const float* w, Index n, Index ldw,
                            Eigen::Ref<MatrixF> out, bool accumulate)
{
    const Index rows = x.rows(), k = x.cols();
    if (rows == 0) return;
    if (rows >= 2) {
        oneDnnProduct(x.data(), rows, k, x.outerStride(), w, n, ldw, out.data(), out.outerStride(), accumulate);
        return;
    }
    multiplyPaddedRows(x, 2, n, out, accumulate, [&](const MatrixF& padded, MatrixF& product) {
        oneDnnProduct(padded.data(), 2, k, k, w, n, ldw, product.data(), n, accumulate);
    });
}

void multiplyRowsWithPacked(ProductKernel kernel, const Eigen::Ref<const MatrixF>& x, const float* w, Index n,
                            Index ldw, bool transposed, Eigen::Ref<MatrixF> out, bool accumulate)
{
    const packed::TileKernel& tile = kernel == ProductKernel::PackedAvx512 ? packed::kAvx512Tile : packed::kAvx2Tile;
    packedProduct(tile, x.data(), x.rows(), x.cols(), x.outerStride(), w, n, ldw, transposed, out.data(),
                  out.outerStride(), accumulate);
}

}  // namespace qkv::detail
