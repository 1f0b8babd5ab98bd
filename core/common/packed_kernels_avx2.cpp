// AVX2 + FMA register tile (packed_kernels.hpp). Compiled with -mavx2 -mfma, called only when the
// CPU has both.
#include "core/common/packed_kernels.hpp"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include "core/common/avx2_transpose.hpp"
#endif

namespace qkv::packed {

#if defined(__AVX2__) && defined(__FMA__)

namespace {

// Lanes of an 8-float vector that hold one of the tile's `cols - offset` columns.
__m256i columnMask(int cols, int offset)
{
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(cols - offset), lane);
}

template <int Rows>
void tile(const TileArguments& t)
{
    __m256 acc[Rows][2];
    const bool full = t.cols == 16;
    const __m256i mask0 = columnMask(t.cols, 0), mask1 = columnMask(t.cols, 8);
#pragma GCC unroll 12
    for (int i = 0; i < Rows; ++i) {
        float* c = t.c + i * t.ldc;
        if (!t.load) {
            acc[i][0] = _mm256_setzero_ps();
            acc[i][1] = _mm256_setzero_ps();
        } else if (full) {
            acc[i][0] = _mm256_loadu_ps(c);
            acc[i][1] = _mm256_loadu_ps(c + 8);
        } else {
            acc[i][0] = _mm256_maskload_ps(c, mask0);
            acc[i][1] = _mm256_maskload_ps(c + 8, mask1);
        }
    }
    const float* b = t.panel;
    const float* a = t.a;
    for (std::ptrdiff_t p = 0; p < t.kc; ++p, b += t.panelStride, ++a) {
        const __m256 b0 = _mm256_loadu_ps(b);
        const __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 12
        for (int i = 0; i < Rows; ++i) {
            const __m256 ai = _mm256_broadcast_ss(a + i * t.lda);
            acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
            acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
        }
    }
#pragma GCC unroll 12
    for (int i = 0; i < Rows; ++i) {
        float* c = t.c + i * t.ldc;
        if (full) {
            _mm256_storeu_ps(c, acc[i][0]);
            _mm256_storeu_ps(c + 8, acc[i][1]);
        } else {
            _mm256_maskstore_ps(c, mask0, acc[i][0]);
            _mm256_maskstore_ps(c + 8, mask1, acc[i][1]);
        }
    }
}

// Eight columns [j, j + 8) of the panel (at `panel`, nr floats a depth row), depth rows [p0, p0 + kc)
// of w^T: 8 x 8 blocks through registers, the depth's last kc mod 8 rows one float at a time.
void packEightColumns(const float* w, std::ptrdiff_t ldw, std::ptrdiff_t p0, std::ptrdiff_t kc, std::ptrdiff_t j,
                      int nr, float* panel)
{
    std::ptrdiff_t p = 0;
    for (; p + 8 <= kc; p += 8) {
        __m256 r[8];
        for (int c = 0; c < 8; ++c) r[c] = _mm256_loadu_ps(w + (j + c) * ldw + p0 + p);
        avx2::transpose8x8(r);
        for (int d = 0; d < 8; ++d) _mm256_storeu_ps(panel + (p + d) * nr, r[d]);
    }
    for (; p < kc; ++p)
        for (int c = 0; c < 8; ++c) panel[p * nr + c] = w[(j + c) * ldw + p0 + p];
}

}  // namespace

void packTransposedAvx2(const float* w, std::ptrdiff_t ldw, std::ptrdiff_t p0, std::ptrdiff_t kc, std::ptrdiff_t j0,
                        std::ptrdiff_t nc, int nr, float* packed)
{
    for (std::ptrdiff_t q = 0; q < nc; q += nr, packed += kc * nr) {
        const std::ptrdiff_t cols = nc - q < nr ? nc - q : nr;
        std::ptrdiff_t c = 0;
        for (; c + 8 <= cols; c += 8) packEightColumns(w, ldw, p0, kc, j0 + q + c, nr, packed + c);
        for (; c < nr; ++c)  // the last columns one float at a time, zero past the product's
            for (std::ptrdiff_t p = 0; p < kc; ++p) packed[p * nr + c] = c < cols ? w[(j0 + q + c) * ldw + p0 + p] : 0.0f;
    }
}

void tileAvx2(const TileArguments& arguments)
{
    switch (arguments.rows) {
    case 6: tile<6>(arguments); break;
    case 5: tile<5>(arguments); break;
    case 4: tile<4>(arguments); break;
    case 3: tile<3>(arguments); break;
    case 2: tile<2>(arguments); break;
    case 1: tile<1>(arguments); break;
    default: break;
    }
}

#else
// Built for a CPU without the extension: never called (product_kernels.cpp checks the CPU).
void tileAvx2(const TileArguments&) {}
void packTransposedAvx2(const float*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t,
                        int, float*)
{
}
#endif

bool avx2TileBuilt()
{
#if defined(__AVX2__) && defined(__FMA__)
    return true;
#else
    return false;
#endif
}

}  // namespace qkv::packed
