#include "core/common/row_products.hpp"

#include <algorithm>
#include <cmath>

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
    MatrixF padded(enough, k);  // enough x k
    padded.topRows(rows) = x;
    for (Index i = rows; i < enough; ++i) padded.row(i) = x.row(rows - 1);
    MatrixF product = MatrixF::Zero(enough, n);  // enough x n
    if (accumulate) product.topRows(rows) = out;
    blasProduct(padded.data(), enough, k, k, w, n, ldw, transposed, product.data(), n, accumulate);
    out = product.topRows(rows);
}

}  // namespace qkv::detail
