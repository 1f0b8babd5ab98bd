#pragma once
// The model's large float products x W through oneDNN's sgemm (Debian's libdnnl2) where it keeps a
// row's bits. On this AMD EPYC its AVX-512 kernel runs the model's x W shapes at 195-242 GFLOP/s
// on one core with the weights read from memory, OpenBLAS's Cooperlake kernel at 175-221
// (bench/blas/onednn_product_kernels.cpp; docs/benchmarks.md, "Float products").
//
// When its bits depend on a row alone (read from oneDNN 2.6's gemm driver, then measured over
// every split of the rows): with one thread, a call of 2 to 100 rows always takes the driver's
// no-copy kernel, whose depth blocks depend on the depth only. Past 100 rows the driver chooses
// between it and a copying kernel by the row count among others (seen: weights whose row stride
// is a multiple of 1024 floats), and one row goes to a matrix-vector kernel; both sum in another
// order. So a call here takes at most kOneDnnRows rows and a lone row is padded by a copy of
// itself.
//
// Only x W runs here. x W^T (a tied readout) takes a small-row kernel below 16 rows: a typed
// token's row would be multiplied 16 times over, and in calls of at most 96 rows it is slower
// than the packed kernel, which runs it (product_kernels.hpp). Only the AVX-512 kernels keep rows:
// on AVX2 (a CPU without AVX-512, or ONEDNN_MAX_CPU_ISA=AVX2) nearly every split differs, and the
// products go to the packed kernel.

#include <string>

#include "core/common/matrix.hpp"

namespace qkv {

// The most rows one call of oneDNN's sgemm takes here (see above: its no-copy kernel up to 100).
inline constexpr Index kOneDnnRows = 96;

// True when oneDNN is linked and runs its AVX-512 kernels.
bool oneDnnKeepsRows();
// "oneDNN 2.6.3, AVX-512 kernels": for benchmarks' kernel line (blas_products.hpp).
std::string oneDnnName();

// out (rows x n, ldo) = x (rows x k, ldx) w (k x n, row-major, ldw), or out += x w with
// accumulate; rows >= 2 (a lone row takes another kernel: row_products.hpp pads it). On the
// caller's thread, in calls of 2 to kOneDnnRows rows. Only when oneDnnKeepsRows().
void oneDnnProduct(const float* x, Index rows, Index k, Index ldx, const float* w, Index n, Index ldw, float* out,
                   Index ldo, bool accumulate);

}  // namespace qkv
