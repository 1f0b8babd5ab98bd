#pragma once
// Quantized blocks to float32, with the formulas of ggml's reference code (dequantize_row_* in
// ggml's src/ggml-quants.c), operation for operation, so that every value equals what ggml's
// reference gives bit for bit. The block layouts are in gguf_types.hpp. Halves (d, m, dmin) are
// binary16 converted exactly (ggmlHalfToFloat).
//
// Per block of 32 (q: the stored quant, an integer):
//   Q4_0, Q5_0, Q8_0   x = (q - offset) * d          (offset 8, 16, 0: q of Q8_0 is signed)
//   Q4_1, Q5_1         x = q * d + m
// Per super-block of 256, in sub-blocks that carry their own scale (and min) quantized against d:
//   Q2_K   x = (d * s) * q - (dmin * m)     s, m: 4-bit, per 16 values; q: 2 bits
//   Q3_K   x = (d * (s - 32)) * (q - 4h')   s: 6-bit, per 16; q: 2 bits; h' = 1 unless the high bit is set
//   Q4_K   x = (d * s) * q - (dmin * m)     s, m: 6-bit, per 32; q: 4 bits
//   Q5_K   x = (d * s) * q - (dmin * m)     as Q4_K, q: 4 bits + a fifth
//   Q6_K   x = (d * s) * (q - 32)           s: signed 8-bit, per 16; q: 4 + 2 bits
// This file is compiled with -ffp-contract=off: a fused multiply-add would round once where
// ggml's reference rounds twice.

#include <cstddef>
#include <cstdint>

namespace qkv {

// IEEE binary16 to float, exactly (as decodeFloat16, by bit moves rather than ldexp: ~10x faster on
// F16 tensors); a NaN keeps its payload.
float ggmlHalfToFloat(std::uint16_t bits);

// Decodes `valueCount` values of ggml type `type` (one ggmlTypeLayout decodes; valueCount a
// whole number of its blocks) from `blocks` into `out`. Returns false for any other type.
bool dequantizeGgml(std::uint32_t type, const unsigned char* blocks, std::size_t valueCount, float* out);

}  // namespace qkv
