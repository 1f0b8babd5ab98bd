#include "core/gguf/gguf_dequantize.hpp"

#include <bit>
#include <cstring>

#include "core/gguf/gguf_types.hpp"

namespace qkv {
namespace {

using Bytes = const unsigned char*;

float half(Bytes p)
{
    std::uint16_t bits;
    std::memcpy(&bits, p, 2);
    return ggmlHalfToFloat(bits);
}

// F32, F16, BF16: one value a block, decoded in one loop rather than one call a value.
void decodePlain(GgmlType type, Bytes values, std::size_t count, float* out)
{
    if (type == GgmlType::F32) {
        std::memcpy(out, values, count * 4);
        return;
    }
    for (std::size_t i = 0; i < count; ++i) {
        std::uint16_t bits;
        std::memcpy(&bits, values + 2 * i, 2);
        out[i] = type == GgmlType::F16 ? ggmlHalfToFloat(bits) : std::bit_cast<float>(std::uint32_t{bits} << 16);
    }
}

// Q4_0 (offset 8) and Q4_1 (min m): byte j holds value j in its low nibble, value j + 16 in its high.
void decodeQ4(Bytes block, float* out, bool withMin)
{
    const float d = half(block);
    const float m = withMin ? half(block + 2) : 0.0f;
    Bytes quants = block + (withMin ? 4 : 2);
    for (int j = 0; j < 16; ++j) {
        const int low = quants[j] & 0x0f, high = quants[j] >> 4;
        if (withMin) {
            out[j] = static_cast<float>(low) * d + m;
            out[j + 16] = static_cast<float>(high) * d + m;
        } else {
            out[j] = static_cast<float>(low - 8) * d;
            out[j + 16] = static_cast<float>(high - 8) * d;
        }
    }
}

// Q5_0 (offset 16) and Q5_1 (min m): as Q4, with value j's fifth bit at bit j of a 32-bit word
// (value j + 16's at bit j + 16).
void decodeQ5(Bytes block, float* out, bool withMin)
{
    const float d = half(block);
    const float m = withMin ? half(block + 2) : 0.0f;
    Bytes rest = block + (withMin ? 4 : 2);
    std::uint32_t fifth;
    std::memcpy(&fifth, rest, 4);
    Bytes quants = rest + 4;
    for (int j = 0; j < 16; ++j) {
        const int low = (quants[j] & 0x0f) | static_cast<int>(((fifth >> j) & 1u) << 4);
        const int high = (quants[j] >> 4) | static_cast<int>(((fifth >> (j + 16)) & 1u) << 4);
        if (withMin) {
            out[j] = static_cast<float>(low) * d + m;
            out[j + 16] = static_cast<float>(high) * d + m;
        } else {
            out[j] = static_cast<float>(low - 16) * d;
            out[j + 16] = static_cast<float>(high - 16) * d;
        }
    }
}

void decodeQ8_0(Bytes block, float* out)
{
    const float d = half(block);
    for (int j = 0; j < 32; ++j) out[j] = static_cast<float>(static_cast<std::int8_t>(block[2 + j])) * d;
}

// Q2_K: 16 sub-blocks of 16. Each 32 bytes of quants hold 128 values: value l of the four
// groups of 32 sits in byte l at bits 0-1, 2-3, 4-5, 6-7.
void decodeQ2_K(Bytes block, float* out)
{
    Bytes scales = block, quants = block + 16;
    const float d = half(block + 80), dmin = half(block + 82);
    int sub = 0;
    for (int half128 = 0; half128 < 2; ++half128, quants += 32) {
        for (int shift = 0; shift < 8; shift += 2) {
            for (int part = 0; part < 2; ++part, ++sub) {
                const float scale = d * static_cast<float>(scales[sub] & 0x0f);
                const float offset = dmin * static_cast<float>(scales[sub] >> 4);
                for (int l = 0; l < 16; ++l)
                    *out++ = scale * static_cast<float>((quants[part * 16 + l] >> shift) & 3) - offset;
            }
        }
    }
}

// Q3_K's 16 six-bit scales: the low 4 bits in bytes 0-7 (two per byte: scale s in byte s % 8,
// low nibble for s < 8), the high 2 bits in bytes 8-11 (scale s at byte 8 + s % 4, bits 2 (s / 4)).
void q3Scales(Bytes packed, int scales[16])
{
    for (int s = 0; s < 16; ++s) {
        const int low = s < 8 ? (packed[s] & 0x0f) : (packed[s - 8] >> 4);
        const int high = (packed[8 + s % 4] >> (2 * (s / 4))) & 3;
        scales[s] = (low | (high << 4)) - 32;
    }
}

void decodeQ3_K(Bytes block, float* out)
{
    Bytes highBits = block, quants = block + 32;
    int scales[16];
    q3Scales(block + 96, scales);
    const float d = half(block + 108);
    int sub = 0;
    unsigned mask = 1;
    for (int half128 = 0; half128 < 2; ++half128, quants += 32) {
        for (int shift = 0; shift < 8; shift += 2, mask <<= 1) {
            for (int part = 0; part < 2; ++part, ++sub) {
                const float scale = d * static_cast<float>(scales[sub]);
                for (int l = 0; l < 16; ++l) {
                    const int index = part * 16 + l;
                    const int q = ((quants[index] >> shift) & 3) - ((highBits[index] & mask) ? 0 : 4);
                    *out++ = scale * static_cast<float>(q);
                }
            }
        }
    }
}

// Q4_K and Q5_K's 8 six-bit scales and mins in 12 bytes: sub-block j < 4 has its scale in the low
// 6 bits of byte j and its min in byte j + 4; j >= 4 has the low 4 bits of both in byte j + 4
// (scale low nibble, min high) and the high 2 bits in the top bits of bytes j - 4 and j.
void scaleAndMin(Bytes packed, int j, int& scale, int& min)
{
    if (j < 4) {
        scale = packed[j] & 63;
        min = packed[j + 4] & 63;
    } else {
        scale = (packed[j + 4] & 0x0f) | ((packed[j - 4] >> 6) << 4);
        min = (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
    }
}

// Q4_K (highBits null) and Q5_K: 8 sub-blocks of 32; each 32 bytes of quants hold two sub-blocks
// (low nibbles, then high). Q5_K's fifth bit of sub-block j, value l, is bit j of highBits[l].
void decodeQ45_K(Bytes block, float* out, bool fiveBits)
{
    const float d = half(block), dmin = half(block + 2);
    Bytes packed = block + 4;
    Bytes highBits = block + 16;
    Bytes quants = block + (fiveBits ? 48 : 16);
    for (int j = 0; j < 8; ++j) {
        int scale, min;
        scaleAndMin(packed, j, scale, min);
        const float dj = d * static_cast<float>(scale);
        const float mj = dmin * static_cast<float>(min);
        Bytes q = quants + 32 * (j / 2);
        const int shift = 4 * (j % 2);
        for (int l = 0; l < 32; ++l) {
            int value = (q[l] >> shift) & 0x0f;
            if (fiveBits && (highBits[l] >> j) & 1) value += 16;
            *out++ = dj * static_cast<float>(value) - mj;
        }
    }
}

// Q6_K: two halves of 128; in each, value l + 32 k (k = 0..3, l < 32) takes its low 4 bits from
// low[l + 32 (k % 2)] (low nibble for k < 2) and its high 2 bits from bits 2k of high[l]; its
// scale is scales[l / 16 + 2 k].
void decodeQ6_K(Bytes block, float* out)
{
    Bytes low = block, high = block + 128;
    const auto* scales = reinterpret_cast<const std::int8_t*>(block + 192);
    const float d = half(block + 208);
    for (int half128 = 0; half128 < 2; ++half128, low += 64, high += 32, scales += 8, out += 128) {
        for (int k = 0; k < 4; ++k) {  // a quarter at a time: contiguous reads and writes
            Bytes lowQuarter = low + 32 * (k % 2);
            const int lowShift = 4 * (k / 2), highShift = 2 * k;
            for (int part = 0; part < 2; ++part) {  // 16 values share a scale: (d * s) * q, as ggml rounds it
                const float scale = d * static_cast<float>(scales[part + 2 * k]);
                for (int l = 16 * part; l < 16 * part + 16; ++l) {
                    const int q = (((lowQuarter[l] >> lowShift) & 0x0f) | (((high[l] >> highShift) & 3) << 4)) - 32;
                    out[l + 32 * k] = scale * static_cast<float>(q);
                }
            }
        }
    }
}

}  // namespace

float ggmlHalfToFloat(std::uint16_t bits)
{
    // binary16: sign, 5 exponent bits (bias 15), 10 mantissa bits; binary32's bias is 127.
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1fu, mantissa = bits & 0x3ffu;
    if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in binary32
        const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));  // Inf, NaN
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

bool dequantizeGgml(std::uint32_t type, const unsigned char* blocks, std::size_t valueCount, float* out)
{
    const auto layout = ggmlTypeLayout(type);
    if (!layout) return false;
    if (layout->blockValues == 1) {
        decodePlain(static_cast<GgmlType>(type), blocks, valueCount, out);
        return true;
    }
    const std::size_t blockCount = valueCount / layout->blockValues;
    for (std::size_t b = 0; b < blockCount; ++b) {
        Bytes block = blocks + b * layout->blockBytes;
        float* values = out + b * layout->blockValues;
        switch (static_cast<GgmlType>(type)) {
        case GgmlType::Q4_0: decodeQ4(block, values, false); break;
        case GgmlType::Q4_1: decodeQ4(block, values, true); break;
        case GgmlType::Q5_0: decodeQ5(block, values, false); break;
        case GgmlType::Q5_1: decodeQ5(block, values, true); break;
        case GgmlType::Q8_0: decodeQ8_0(block, values); break;
        case GgmlType::Q2_K: decodeQ2_K(block, values); break;
        case GgmlType::Q3_K: decodeQ3_K(block, values); break;
        case GgmlType::Q4_K: decodeQ45_K(block, values, false); break;
        case GgmlType::Q5_K: decodeQ45_K(block, values, true); break;
        case GgmlType::Q6_K: decodeQ6_K(block, values); break;
        default: return false;
        }
    }
    return true;
}

}  // namespace qkv
