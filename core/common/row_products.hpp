#pragma once
// Products whose every output row depends on its own input row only: the same bits whether a
// token's row is multiplied with the whole sentence, with a few new tokens typed after it, or on
// another thread. Typing at the end of a causal prompt reuses the earlier rows of every layer
// (core/pretrained/model_run.hpp), which is exact only because of this.
//
// Why it needs care: Eigen's GEMM takes the rows of a row-major left-hand side four at a time (its
// register tile), the last R mod 4 one at a time, and a product of one row as a matrix-vector
// product. The three paths sum the depth in different orders, so a row's last bits depended on how
// many rows were multiplied with it. Here every row goes through the four-row path: whole groups
// in place, the last one to three rows beside copies of themselves. Checked against every split of
// the rows (tests/core/common/row_products_test.cpp).

#include "core/common/blas_products.hpp"
#include "core/common/matrix.hpp"
#include "core/common/onednn_products.hpp"
#include "core/common/product_kernels.hpp"

namespace qkv {

// Rows of Eigen's GEMM register tile (the right-hand side's nr when the product runs as
// w^T x^T); a group of this many rows takes one path.
inline constexpr Index kProductRowGroup = 4;
// Weights narrower than this each way stay with Eigen (a library call costs more than it saves).
inline constexpr Index kBlasMinimumWidth = 64;

// out = x * w (or out += x * w with accumulate), x: R x m, w: m x n (any float expression: a
// transposed view is not copied), out: R x n (sized by the caller). One thread; every row through
// the kernel's grouped path.
namespace detail {

// The rows of x beside copies of its last row, `padded` rows in all, multiplied by
// `multiply(paddedRows, product)` (padded x m into padded x n, added to product); out gets the
// first x.rows() rows. Each route's kernel sums a row of a small call in another order: the copies
// carry it to the kernel's grouped path. Accumulating starts from the rows' own sums, as the
// in-place kernels add each depth block to them (adding the whole product afterwards would round
// in another order).
template <typename Multiply>
void multiplyPaddedRows(const Eigen::Ref<const MatrixF>& x, Index padded, Index n, Eigen::Ref<MatrixF> out,
                        bool accumulate, Multiply multiply)
{
    const Index rows = x.rows();
    MatrixF group(padded, x.cols());  // padded x m
    group.topRows(rows) = x;
    for (Index i = rows; i < padded; ++i) group.row(i) = x.row(rows - 1);
    MatrixF product = MatrixF::Zero(padded, n);  // padded x n
    if (accumulate) product.topRows(rows) = out;
    multiply(group, product);
    out = product.topRows(rows);
}

// Eigen's route: groups of four rows, the last rows padded by copies into one.
template <typename Weight>
void multiplyRowsWithEigen(const Eigen::Ref<const MatrixF>& x, const Weight& w, Eigen::Ref<MatrixF> out, bool accumulate)
{
    const Index rows = x.rows();
    const Index grouped = rows - rows % kProductRowGroup;
    if (grouped > 0) {
        if (accumulate) out.topRows(grouped).noalias() += x.topRows(grouped) * w;
        else out.topRows(grouped).noalias() = x.topRows(grouped) * w;
    }
    const Index rest = rows - grouped;
    if (rest == 0) return;
    multiplyPaddedRows(x.bottomRows(rest), kProductRowGroup, w.cols(), out.bottomRows(rest), accumulate,
                       [&w](const MatrixF& group, MatrixF& product) { product.noalias() += group * w; });
}

// OpenBLAS's route (blas_products.hpp): a call of few rows is padded by copies of the last row
// past the kernel's small-matrix path.
void multiplyRowsWithBlas(const Eigen::Ref<const MatrixF>& x, const float* w, Index n, Index ldw, bool transposed,
                          Eigen::Ref<MatrixF> out, bool accumulate);

// oneDNN's route (onednn_products.hpp): a lone row is padded by a copy of itself past the
// matrix-vector kernel.
void multiplyRowsWithOneDnn(const Eigen::Ref<const MatrixF>& x, const float* w, Index n, Index ldw,
                            Eigen::Ref<MatrixF> out, bool accumulate);

// The project's packed kernel (packed_products.hpp): every row alike, nothing padded.
void multiplyRowsWithPacked(ProductKernel kernel, const Eigen::Ref<const MatrixF>& x, const float* w, Index n,
                            Index ldw, bool transposed, Eigen::Ref<MatrixF> out, bool accumulate);

}  // namespace detail

// out = x * w (or out += x * w with accumulate), x: R x m, w: m x n (any float expression: a
// transposed view is not copied), out: R x n (sized by the caller). One thread; every row's bits
// depend on its own row only. Large products of stored weights (w, or w^T of a weight stored
// n x m) go through the kernel product_kernels.hpp chose for this CPU, which keeps rows; small
// ones and expressions through Eigen. Which route a product takes depends on the weight's shape
// and layout and the CPU, never on R.
template <typename Weight>
void multiplyRowsStable(const Eigen::Ref<const MatrixF>& x, const Weight& w, Eigen::Ref<MatrixF> out,
                        bool accumulate = false)
{
    if constexpr ((Weight::Flags & Eigen::DirectAccessBit) != 0) {
        if (w.innerStride() == 1 && w.rows() >= kBlasMinimumWidth && w.cols() >= kBlasMinimumWidth) {
            const bool transposed = !(Weight::Flags & Eigen::RowMajorBit);
            switch (const ProductKernel kernel = productKernel(transposed)) {
            case ProductKernel::OneDnn:
                detail::multiplyRowsWithOneDnn(x, w.data(), w.cols(), w.outerStride(), out, accumulate);
                return;
            case ProductKernel::OpenBlas:
                detail::multiplyRowsWithBlas(x, w.data(), w.cols(), w.outerStride(), transposed, out, accumulate);
                return;
            case ProductKernel::PackedAvx2:
            case ProductKernel::PackedAvx512:
                detail::multiplyRowsWithPacked(kernel, x, w.data(), w.cols(), w.outerStride(), transposed, out,
                                               accumulate);
                return;
            case ProductKernel::Eigen: break;
            }
        }
    }
    detail::multiplyRowsWithEigen(x, w, out, accumulate);
}

}  // namespace qkv
