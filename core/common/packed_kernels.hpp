#pragma once
// The register tiles of the project's own float product (packed_products.hpp), one per vector
// extension, each compiled in a file of its own with that extension's flags
// (core/common/CMakeLists.txt) and called only on a CPU that has it.
//
// Every tile computes each output element as one chain of fused multiply-adds along the depth,
// c <- fma(a[i][p], b[p][j], c) for p = 0, 1, ..., k - 1, from c = 0 (or the output's value when
// it accumulates). Rounding once per step in that order is the whole arithmetic: the bits of an
// element depend on its row of a and its column of b only, not on the tile's size, the depth
// blocks, the vector width or the thread. So the AVX2 and AVX-512 tiles give the same bits, and
// both equal a scalar std::fma loop (tests/core/common/packed_products_test.cpp).
//
// These files include no template library (not even <algorithm>): an inline function compiled here
// with AVX-512 flags could otherwise be the copy the linker keeps for the whole program.

#include <cstddef>

namespace qkv::packed {

// One tile: rows x cols (at most the kernel's tileRows x tileColumns) of c, over a depth block of
// kc. a: rows of the left-hand side, lda apart, from the block's first column. panel: kc rows of
// tileColumns floats, panelStride apart: the block's columns packed (tileColumns apart, zero past
// the product's last column) or, for a product of a single row tile, read in place from w
// (ldw apart). load: continue the chains from c's values (a later depth block, or an
// accumulating product); else start them from zero.
struct TileArguments {
    const float* a;
    std::ptrdiff_t lda;
    const float* panel;
    std::ptrdiff_t panelStride;  // floats from one depth row of the panel to the next
    std::ptrdiff_t kc;
    float* c;
    std::ptrdiff_t ldc;
    int rows;
    int cols;
    bool load;
};

using TileFunction = void (*)(const TileArguments&);

// Packs depth rows [p0, p0 + kc) x columns [j0, j0 + nc) of w^T, where w is stored n x k (ldw its
// row stride), into panels of nr columns (nr a multiple of 8): panel q holds columns j0 + q nr ...
// as kc rows of nr floats, zero past column j0 + nc. Only copies: the bits of a product do not
// depend on it.
using PackTransposedFunction = void (*)(const float* w, std::ptrdiff_t ldw, std::ptrdiff_t p0, std::ptrdiff_t kc,
                                        std::ptrdiff_t j0, std::ptrdiff_t nc, int nr, float* packed);

struct TileKernel {
    TileFunction tile;
    int tileRows;     // MR: rows of a broadcast at each step of the depth
    int tileColumns;  // NR: columns held in vector registers
    PackTransposedFunction packTransposed;
};

// w^T packed 8 x 8 floats at a time through AVX registers (a transpose in registers instead of
// one scalar move per float: the packing was a sixth of a tied readout's time).
void packTransposedAvx2(const float* w, std::ptrdiff_t ldw, std::ptrdiff_t p0, std::ptrdiff_t kc, std::ptrdiff_t j0,
                        std::ptrdiff_t nc, int nr, float* packed);

// Whether each tile's file was compiled for its extension (else its tile is an empty stand-in and
// product_kernels.cpp never offers it).
bool avx2TileBuilt();
bool avx512TileBuilt();

// 6 x 16: twelve 8-float accumulators, two panel loads and six broadcasts per step of the depth.
void tileAvx2(const TileArguments& arguments);
inline constexpr TileKernel kAvx2Tile{tileAvx2, 6, 16, packTransposedAvx2};
// 12 x 32: twenty-four 16-float accumulators of the 32 registers (an AVX-512 CPU has AVX2: the
// same packing).
void tileAvx512(const TileArguments& arguments);
inline constexpr TileKernel kAvx512Tile{tileAvx512, 12, 32, packTransposedAvx2};

}  // namespace qkv::packed
