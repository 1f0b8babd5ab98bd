// The vector path of widening_transpose.hpp. Compiled with -mavx2 -mf16c
// (core/io/CMakeLists.txt), called only on a CPU with both. Includes no template library (see
// packed_kernels.hpp: an inline function compiled here could otherwise be the program's copy).
#include "core/io/widening_transpose.hpp"

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>

#include "core/common/avx2_transpose.hpp"
#endif

namespace qkv::widening_detail {

#if defined(__AVX2__) && defined(__F16C__)

namespace {

// Eight stored values at `at` as floats, exactly: bfloat16 is a float32's top half, binary16
// widens in F16C's converter (subnormals included).
template <StoredFloat Format>
__m256 widened8(const std::byte* at)
{
    if constexpr (Format == StoredFloat::Float32) {
        return _mm256_loadu_ps(reinterpret_cast<const float*>(at));
    } else {
        const __m128i halves = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
        if constexpr (Format == StoredFloat::BFloat16)
            return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(halves), 16));
        else
            return _mm256_cvtph_ps(halves);
    }
}

// Rows [r0, r0 + 8) x columns [c0, c0 + 8) of `in`, written as out's rows c0.. at columns r0...
template <StoredFloat Format, bool Stream>
void block8(const StoredRows& in, std::ptrdiff_t r0, std::ptrdiff_t c0, float* out, std::ptrdiff_t ldo)
{
    constexpr std::ptrdiff_t size = Format == StoredFloat::Float32 ? 4 : 2;
    __m256 r[8];
    for (int i = 0; i < 8; ++i) {
        const std::ptrdiff_t row = in.order ? in.order[r0 + i] : r0 + i;
        r[i] = widened8<Format>(in.data + row * in.rowBytes + c0 * size);
    }
    avx2::transpose8x8(r);
    for (int d = 0; d < 8; ++d) {
        if constexpr (Stream) _mm256_stream_ps(out + (c0 + d) * ldo + r0, r[d]);
        else _mm256_storeu_ps(out + (c0 + d) * ldo + r0, r[d]);
    }
}

// The 8-aligned part: strips of 64 columns, walked down 16 rows at a time, so each of the strip's
// 64 output rows is written a whole cache line (16 floats) per step and in order. Streamed, the
// 16-row steps start `lead` rows in, where out's lines begin (a line streamed in two parts is
// written to memory twice, read-modify-write: twice as slow, measured where the allocation is
// 32-byte aligned); the rows before and after are stored normally.
template <StoredFloat Format, bool Stream>
void aligned(const StoredRows& in, std::ptrdiff_t rows, std::ptrdiff_t cols, float* out, std::ptrdiff_t ldo,
             std::ptrdiff_t lead)
{
    constexpr std::ptrdiff_t strip = 64;
    for (std::ptrdiff_t cb = 0; cb < cols; cb += strip) {
        const std::ptrdiff_t ce = cb + strip < cols ? cb + strip : cols;
        std::ptrdiff_t r0 = 0;
        for (; r0 < lead && r0 < rows; r0 += 8)
            for (std::ptrdiff_t c0 = cb; c0 < ce; c0 += 8) block8<Format, false>(in, r0, c0, out, ldo);
        for (; r0 + 16 <= rows; r0 += 16)
            for (std::ptrdiff_t c0 = cb; c0 < ce; c0 += 8) {
                block8<Format, Stream>(in, r0, c0, out, ldo);
                block8<Format, Stream>(in, r0 + 8, c0, out, ldo);
            }
        for (; r0 < rows; r0 += 8)
            for (std::ptrdiff_t c0 = cb; c0 < ce; c0 += 8) block8<Format, false>(in, r0, c0, out, ldo);
    }
}

// Outputs at least this large (1M floats, 4 MiB: beyond a core's share of the cache) are written
// around the cache (streaming stores): a weight converted as a run reaches its block is read back
// only after the whole block is converted, and a normal store would first read each line it writes.
constexpr std::ptrdiff_t kStreamedFloats = std::ptrdiff_t{1} << 20;

}  // namespace

bool avx2Built()
{
    return true;
}

void transposeToFloatAvx2(const StoredRows& in, std::ptrdiff_t rows, std::ptrdiff_t cols, float* out,
                          std::ptrdiff_t ldo)
{
    const std::ptrdiff_t rows8 = rows / 8 * 8, cols8 = cols / 8 * 8;
    // Streamed when every output row begins at the same place in a line (ldo a multiple of 16) and
    // that place is a multiple of 8 floats (a streamed store must be 32-byte aligned).
    const auto address = reinterpret_cast<std::uintptr_t>(out);
    const bool stream = address % 32 == 0 && ldo % 16 == 0 && rows8 * cols8 >= kStreamedFloats;
    const std::ptrdiff_t lead = stream ? static_cast<std::ptrdiff_t>((64 - address % 64) % 64 / sizeof(float)) : 0;
    const auto run = [&]<bool Stream>() {
        switch (in.format) {
        case StoredFloat::Float32: aligned<StoredFloat::Float32, Stream>(in, rows8, cols8, out, ldo, lead); break;
        case StoredFloat::BFloat16: aligned<StoredFloat::BFloat16, Stream>(in, rows8, cols8, out, ldo, lead); break;
        case StoredFloat::Float16: aligned<StoredFloat::Float16, Stream>(in, rows8, cols8, out, ldo, lead); break;
        }
    };
    if (stream) {
        run.template operator()<true>();
        _mm_sfence();  // the streamed stores visible before any later store (another thread reads them)
    } else {
        run.template operator()<false>();
    }
    // The last rows mod 8 and columns mod 8, a value at a time.
    const auto size = static_cast<std::ptrdiff_t>(storedFloatBytes(in.format));
    if (cols8 < cols) {
        const StoredRows right{in.format, in.data + cols8 * size, in.rowBytes, in.order};
        transposeToFloatPortable(right, rows, cols - cols8, out + cols8 * ldo, ldo);
    }
    if (rows8 < rows && cols8 > 0) {
        const StoredRows bottom = in.order ? StoredRows{in.format, in.data, in.rowBytes, in.order + rows8}
                                           : StoredRows{in.format, in.data + rows8 * in.rowBytes, in.rowBytes};
        transposeToFloatPortable(bottom, rows - rows8, cols8, out + rows8, ldo);
    }
}

#else
// Built without AVX2 and F16C: never called (widening_transpose.cpp checks avx2Built()).
bool avx2Built()
{
    return false;
}
void transposeToFloatAvx2(const StoredRows&, std::ptrdiff_t, std::ptrdiff_t, float*, std::ptrdiff_t) {}
#endif

}  // namespace qkv::widening_detail
