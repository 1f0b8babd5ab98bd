// AVX-512 (F) register tile (packed_kernels.hpp). Compiled with -mavx512f, called only when the CPU
// has it.
#include "core/common/packed_kernels.hpp"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace qkv::packed {

#if defined(__AVX512F__)

namespace {

// Lanes of a 16-float vector that hold one of the tile's `cols - offset` columns.
__mmask16 columnMask(int cols, int offset)
{
    const int count = cols - offset;
    if (count >= 16) return static_cast<__mmask16>(0xFFFF);
    if (count <= 0) return 0;
    return static_cast<__mmask16>((1u << count) - 1u);
}

template <int Rows>
void tile(const TileArguments& t)
{
    __m512 acc[Rows][2];
    const __mmask16 mask0 = columnMask(t.cols, 0), mask1 = columnMask(t.cols, 16);
#pragma GCC unroll 12
    for (int i = 0; i < Rows; ++i) {
        float* c = t.c + i * t.ldc;
        if (!t.load) {
            acc[i][0] = _mm512_setzero_ps();
            acc[i][1] = _mm512_setzero_ps();
        } else {
            acc[i][0] = _mm512_maskz_loadu_ps(mask0, c);
            acc[i][1] = _mm512_maskz_loadu_ps(mask1, c + 16);
        }
    }
    const float* b = t.panel;
    const float* a = t.a;
    for (std::ptrdiff_t p = 0; p < t.kc; ++p, b += t.panelStride, ++a) {
        const __m512 b0 = _mm512_loadu_ps(b);
        const __m512 b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 12
        for (int i = 0; i < Rows; ++i) {
            const __m512 ai = _mm512_set1_ps(a[i * t.lda]);
            acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
            acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
        }
    }
#pragma GCC unroll 12
    for (int i = 0; i < Rows; ++i) {
        float* c = t.c + i * t.ldc;
        _mm512_mask_storeu_ps(c, mask0, acc[i][0]);
        _mm512_mask_storeu_ps(c + 16, mask1, acc[i][1]);
    }
}

}  // namespace

void tileAvx512(const TileArguments& arguments)
{
    switch (arguments.rows) {
    case 12: tile<12>(arguments); break;
    case 11: tile<11>(arguments); break;
    case 10: tile<10>(arguments); break;
    case 9: tile<9>(arguments); break;
    case 8: tile<8>(arguments); break;
    case 7: tile<7>(arguments); break;
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
void tileAvx512(const TileArguments&) {}
#endif

bool avx512TileBuilt()
{
#if defined(__AVX512F__)
    return true;
#else
    return false;
#endif
}

}  // namespace qkv::packed
