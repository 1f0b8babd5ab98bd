#pragma once
// Stored float32, bfloat16 or binary16 values as float32: in order, or stored rows written as the
// float32 transpose: how a checkpoint's out x in weight (nn.Linear's layout) becomes the in x out
// matrix the app multiplies by (x W). Every conversion here is exact (a 16-bit float widens to
// float32 without rounding), so the transpose equals decoding each value and transposing, bit for
// bit, whichever path runs.
//
// An 8B model's block is converted each time a run reaches it (a quarter of the run's time when
// done a value at a time, measured on Llama-3.1-8B's shape): on a CPU with AVX2 and F16C, 8 x 8
// values are widened and transposed in registers (widening_transpose_avx2.cpp).

#include <cstddef>
#include <cstdint>

namespace qkv {

enum class StoredFloat : unsigned char { Float32, BFloat16, Float16 };

// Bytes of one stored value.
std::size_t storedFloatBytes(StoredFloat format);

// `count` stored values at `in`, in order, into out (a loop the compiler vectorises).
void widenToFloat(StoredFloat format, const std::byte* in, std::size_t count, float* out);

// rows x cols stored values: row r begins at data + row(r) * rowBytes, where row(r) is order[r]
// when an order is given (the file's rows in another order: GGUF's interleaved heads), else r.
struct StoredRows {
    StoredFloat format;
    const std::byte* data;
    std::ptrdiff_t rowBytes;
    const std::ptrdiff_t* order = nullptr;
};

// out[c * ldo + r] = the value at row r, column c of `in`, for r < rows and c < cols (out is
// cols x rows with row stride ldo >= rows). A NaN stays a NaN (its payload may differ by path).
void transposeToFloat(const StoredRows& in, std::ptrdiff_t rows, std::ptrdiff_t cols, float* out, std::ptrdiff_t ldo);

namespace widening_detail {
// The vector path (built when its file has AVX2 and F16C) and the portable one, both exposed so
// the tests compare them on a CPU that has both.
bool avx2Built();
void transposeToFloatAvx2(const StoredRows& in, std::ptrdiff_t rows, std::ptrdiff_t cols, float* out,
                          std::ptrdiff_t ldo);
void transposeToFloatPortable(const StoredRows& in, std::ptrdiff_t rows, std::ptrdiff_t cols, float* out,
                              std::ptrdiff_t ldo);
bool cpuHasAvx2();
}  // namespace widening_detail

}  // namespace qkv
