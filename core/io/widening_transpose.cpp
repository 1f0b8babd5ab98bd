#include "core/io/widening_transpose.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "core/io/safetensors.hpp"

namespace qkv {

std::size_t storedFloatBytes(StoredFloat format)
{
    return format == StoredFloat::Float32 ? 4 : 2;
}

namespace widening_detail {

bool cpuHasAvx2()
{
#if defined(__x86_64__) || defined(__i386__)
    static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
    return has;
#else
    return false;
#endif
}

namespace {

template <StoredFloat Format>
float widened(const std::byte* at)
{
    if constexpr (Format == StoredFloat::Float32) {
        float value;
        std::memcpy(&value, at, 4);
        return value;
    } else {
        std::uint16_t bits;
        std::memcpy(&bits, at, 2);
        if constexpr (Format == StoredFloat::BFloat16) return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
        else return decodeFloat16(bits);
    }
}

// 64 x 64 tiles, each decoded row by row into a buffer that stays in L1 (reads in order), then
// written column by column (contiguous writes): a tile read straight from the rows would touch 64
// lines a power of two apart, one set of the cache.
template <StoredFloat Format>
void portable(const StoredRows& in, std::ptrdiff_t rows, std::ptrdiff_t cols, float* out, std::ptrdiff_t ldo)
{
    constexpr std::ptrdiff_t tile = 64;
    constexpr std::ptrdiff_t size = Format == StoredFloat::Float32 ? 4 : 2;
    alignas(64) float decoded[tile * tile];
    for (std::ptrdiff_t c0 = 0; c0 < cols; c0 += tile) {
        const std::ptrdiff_t cw = std::min(tile, cols - c0);
        for (std::ptrdiff_t r0 = 0; r0 < rows; r0 += tile) {
            const std::ptrdiff_t rw = std::min(tile, rows - r0);
            for (std::ptrdiff_t r = 0; r < rw; ++r) {
                const std::ptrdiff_t row = in.order ? in.order[r0 + r] : r0 + r;
                const std::byte* values = in.data + row * in.rowBytes + c0 * size;
                for (std::ptrdiff_t c = 0; c < cw; ++c) decoded[r * tile + c] = widened<Format>(values + c * size);
            }
            for (std::ptrdiff_t c = 0; c < cw; ++c) {
                float* column = out + (c0 + c) * ldo + r0;
                for (std::ptrdiff_t r = 0; r < rw; ++r) column[r] = decoded[r * tile + c];
            }
        }
    }
}

template <StoredFloat Format>
void inOrder(const std::byte* in, std::size_t count, float* out)
{
    constexpr std::size_t size = Format == StoredFloat::Float32 ? 4 : 2;
    for (std::size_t i = 0; i < count; ++i) out[i] = widened<Format>(in + i * size);
}

}  // namespace

void transposeToFloatPortable(const StoredRows& in, std::ptrdiff_t rows, std::ptrdiff_t cols, float* out,
                              std::ptrdiff_t ldo)
{
    switch (in.format) {
    case StoredFloat::Float32: portable<StoredFloat::Float32>(in, rows, cols, out, ldo); return;
    case StoredFloat::BFloat16: portable<StoredFloat::BFloat16>(in, rows, cols, out, ldo); return;
    case StoredFloat::Float16: portable<StoredFloat::Float16>(in, rows, cols, out, ldo); return;
    }
}

}  // namespace widening_detail

void widenToFloat(StoredFloat format, const std::byte* in, std::size_t count, float* out)
{
    using namespace widening_detail;
    switch (format) {
    case StoredFloat::Float32: inOrder<StoredFloat::Float32>(in, count, out); return;
    case StoredFloat::BFloat16: inOrder<StoredFloat::BFloat16>(in, count, out); return;
    case StoredFloat::Float16: inOrder<StoredFloat::Float16>(in, count, out); return;
    }
}

void transposeToFloat(const StoredRows& in, std::ptrdiff_t rows, std::ptrdiff_t cols, float* out, std::ptrdiff_t ldo)
{
    using namespace widening_detail;
    if (rows <= 0 || cols <= 0) return;
    if (avx2Built() && cpuHasAvx2()) transposeToFloatAvx2(in, rows, cols, out, ldo);
    else transposeToFloatPortable(in, rows, cols, out, ldo);
}

}  // namespace qkv
