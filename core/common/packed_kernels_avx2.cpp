// AVX2 + FMA register tile (packed_kernels.hpp). Compiled with -mavx2 -mfma, called only when the
// CPU has both.
#include "core/common/packed_kernels.hpp"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
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
    for (std::ptrdiff_t p = 0; p < t.kc; ++p, b += 16, ++a) {
        const __m256 b0 = _mm256_load_ps(b);
        const __m256 b1 = _mm256_load_ps(b + 8);
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

}  // namespace

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
#endif

}  // namespace qkv::packed
