#pragma once
// The project's own float product: out = x w (or out += x w), every output element one chain of
// fused multiply-adds along the depth in index order (packed_kernels.hpp). That order is the whole
// promise: a row's bits depend on that row of x and on w only, whatever rows are multiplied with
// it, however the depth is blocked, on any thread, and the same on AVX2 and AVX-512 (both equal a
// scalar std::fma loop). No call is padded, no small product takes another path.
//
// How it is fast (the structure of Goto's and BLIS's GEMM): the weights are copied a block at a
// time (kKernelDepthBlock rows of the depth x kKernelColumnBlock columns, which stays in the
// core's L2 cache) into panels as wide as the register tile, each panel read contiguously by the
// tile while it sweeps a block of x's rows; a tile keeps its MR x NR outputs in registers for the
// whole depth block (packed_kernels.hpp). Stored w (row-major) and w^T (a weight stored n x k, a
// tied readout's token table) differ only in how a block is copied.

#include <cstddef>

#include "core/common/matrix.hpp"
#include "core/common/packed_kernels.hpp"

namespace qkv {

// Depth rows of one packed block (a panel of kc x NR floats: 24 KiB for the AVX2 tile, read from
// L1 while a sweep passes), its columns (kc x nc floats, up to 6 MiB: a block is kc whole rows of
// a weight up to 4096 wide, read as one stream; its panels come from L3) and the rows of x one
// sweep reads (mc x kc floats: 72 KiB, in L2). Measured on the model's shapes (docs/benchmarks.md,
// "Which kernel runs where"); they change the speed, never the bits.
inline constexpr Index kKernelDepthBlock = 384;
inline constexpr Index kKernelColumnBlock = 4096;
inline constexpr Index kKernelRowBlock = 48;

// out (rows x n, row stride ldo) = x (rows x k, ldx) w, or out += x w with accumulate. w: k x n
// with row stride ldw, or, with `transposed`, stored n x k (ldw its row stride) and read as its
// transpose. On the caller's thread, with the tile `kernel` (which the CPU must have).
void packedProduct(const packed::TileKernel& kernel, const float* x, Index rows, Index k, Index ldx, const float* w,
                   Index n, Index ldw, bool transposed, float* out, Index ldo, bool accumulate);

}  // namespace qkv
