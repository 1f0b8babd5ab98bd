#pragma once
// The model's large float products through OpenBLAS (Debian's libopenblas0) where its kernel
// keeps a row's bits whatever rows are multiplied with it: when forced (QKV_PRODUCT_KERNEL), or on
// a CPU without AVX2 (product_kernels.hpp says which kernel runs where; the packed kernel runs x
// W^T ahead of it from 128 rows on). On this AMD EPYC
// OpenBLAS's AVX-512 kernel (Cooperlake) runs the model's products at ~226 GFLOP/s on one core,
// Eigen's at 153-183 (docs/benchmarks.md, "Float products").
//
// Why only some kernels: a causal prompt typed on reuses its earlier rows (row_products.hpp), so a
// row must have the same bits in a product of one row or of a thousand. OpenBLAS's SkylakeX and
// Cooperlake kernels keep that once a call is above their small-matrix kernel (whose sums run in
// another order; row_products.hpp pads such calls); its Haswell kernel (AVX2 machines, or any
// machine with OPENBLAS_CORETYPE=Haswell) does not, and there Eigen stays.

#include <string>

#include "core/common/matrix.hpp"

namespace qkv {

// True when OpenBLAS is linked and its kernel (chosen when the library loaded) keeps rows' bits.
bool blasKeepsRows();
// "OpenBLAS (pthread build, one thread per call), Cooperlake kernel", or why it is not used
// ("OpenBLAS's Haswell kernel would change rows' bits", "built without OpenBLAS"): for
// productKernelName() (product_kernels.hpp).
std::string openBlasDescription();

// Row-major operands; `transposed`: w is stored n x k (ldw its row stride) and the product reads
// its transpose. out (rows x n, ldo) = x (rows x k, ldx) w, or out += x w with accumulate. One
// thread (the caller's). Only when blasKeepsRows().
void blasProduct(const float* x, Index rows, Index k, Index ldx, const float* w, Index n, Index ldw, bool transposed,
                 float* out, Index ldo, bool accumulate);

// Multiply-adds at or below which OpenBLAS's SkylakeX and Cooperlake kernels take their
// small-matrix path (interface/gemm.c, GEMM_SMALL_MATRIX_PERMIT: M N K <= 100^3).
inline constexpr double kBlasSmallProduct = 1.0e6;

}  // namespace qkv
