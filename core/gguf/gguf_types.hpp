#pragma once
// The tensor types a GGUF file may name (ggml's numbering, which the file stores as a uint32) and
// the layout of each one this reader decodes: how many values a block holds and how many bytes
// it takes. A row of a tensor (ggml's ne[0] values) is a whole number of blocks.
//
// Block layouts (ggml's src/ggml-common.h; "half" is an IEEE binary16, little-endian):
//   F32   1 value, 4 bytes        F16 1 value, 2 bytes        BF16 1 value, 2 bytes
//   Q4_0  32 values, 18 bytes: d (half), 16 bytes of 4-bit quants
//   Q4_1  32 values, 20 bytes: d, m (halves), 16 bytes of 4-bit quants
//   Q5_0  32 values, 22 bytes: d, 4 bytes of fifth bits, 16 bytes of 4-bit quants
//   Q5_1  32 values, 24 bytes: d, m, 4 bytes of fifth bits, 16 bytes of 4-bit quants
//   Q8_0  32 values, 34 bytes: d, 32 signed 8-bit quants
//   Q2_K  256 values, 84 bytes: 16 scale/min nibble pairs, 64 bytes of 2-bit quants, d, dmin
//   Q3_K  256 values, 110 bytes: 32 bytes of high bits, 64 bytes of 2-bit quants, 12 bytes of
//         6-bit scales, d
//   Q4_K  256 values, 144 bytes: d, dmin, 12 bytes of 6-bit scales and mins, 128 bytes of quants
//   Q5_K  256 values, 176 bytes: d, dmin, 12 bytes of scales and mins, 32 bytes of high bits,
//         128 bytes of 4-bit quants
//   Q6_K  256 values, 210 bytes: 128 bytes of low 4 bits, 64 bytes of high 2 bits, 16 signed
//         8-bit scales, d

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace qkv {

enum class GgmlType : std::uint32_t {
    F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
    Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15, BF16 = 30,
};

struct GgmlTypeLayout {
    std::size_t blockValues;  // values per block
    std::size_t blockBytes;   // bytes per block
};

// The layout of a type this reader decodes; nullopt for any other number (a type ggml knows but
// this reader does not decode, or one nobody knows).
std::optional<GgmlTypeLayout> ggmlTypeLayout(std::uint32_t type);

// "Q4_K", or "type 23 (IQ4_XS)" for a known type not decoded, or "unknown type 99".
std::string ggmlTypeName(std::uint32_t type);

}  // namespace qkv
