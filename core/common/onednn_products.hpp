#pragma once
// The model's large float products x W through oneDNN's sgemm (Debian's libdnnl2) where it keeps a
// row's bits. On this AMD EPYC its AVX-512 kernel runs the model's x W shapes at 210-245 GFLOP/s
// on one core with the weights read from memory, OpenBLAS's Cooperlake kernel at 185-230
// (bench/blas/float_product_kernels.cpp, docs/benchmarks.md "Float products").
//
// When its bits depend on a row alone (read from oneDNN 2.6's gemm driver, then measured over
// every split of the rows): with one thread, a call of 2 to 100 rows always takes the driver's
// no-copy kernel, whose depth blocks depend on the depth only. Past 100 rows the driver may switch
// to its copying kernel (a weight row stride that is a multiple of 1024 floats; or past ~600 rows
// of a wide weight), and one row goes to a matrix-vector kernel: both sum in another order. So a
// call here takes at most kOneDnnRows rows, a lone row is padded by a copy of itself, and only
// x W runs here (x W^T calls take a small-row kernel below 16 rows and copy or not by the
// strides and widths; padded to 16 rows they were slower than OpenBLAS: they stay there). Only
// the AVX-512 kernels keep this: on AVX2 (a CPU without AVX-512, or ONEDNN_MAX_CPU_ISA=AVX2)
// nearly every split differs, and the products stay where they were.

#include <string>

#include "core/common/matrix.hpp"

namespace qkv {

// The most rows one call of oneDNN's sgemm takes here (see above: its no-copy kernel up to 100).
inline constexpr Index kOneDnnRows = 96;

// True when oneDNN is linked and runs its AVX-512 kernels.
bool oneDnnKeepsRows();
// "oneDNN 2.6.3, avx512_core kernels": for benchmarks and the kernel line.
std::string oneDnnName();

// out (rows x n, ldo) = x (rows x k, ldx) w (k x n, row-major, ldw), or out += x w with
// accumulate. On the caller's thread, in calls of 2 to kOneDnnRows rows. Only when
// oneDnnKeepsRows().
void oneDnnProduct(const float* x, Index rows, Index k, Index ldx, const float* w, Index n, Index ldw, float* out,
                   Index ldo, bool accumulate);

}  // namespace qkv
