// transposeToFloat: stored float32, bfloat16 and binary16 rows written as their float32
// transpose, against values decoded here from each format's definition; the vector path and the
// portable one give the same bits on every shape (partial 8 x 8 blocks, row orders, strides) and on
// every one of the 65,536 16-bit patterns.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/io/widening_transpose.hpp"

namespace qkv {
namespace {

// binary16 from its fields (IEEE 754: bias 15, 10 fraction bits; subnormals scale by 2^-24).
float binary16Value(std::uint16_t bits)
{
    const int exponent = (bits >> 10) & 0x1f, fraction = bits & 0x3ff;
    const double sign = (bits & 0x8000) != 0 ? -1.0 : 1.0;
    if (exponent == 31) return fraction == 0 ? static_cast<float>(sign * INFINITY) : NAN;
    if (exponent == 0) return static_cast<float>(sign * std::ldexp(fraction, -24));
    return static_cast<float>(sign * std::ldexp(1024 + fraction, exponent - 25));
}

float referenceValue(StoredFloat format, const std::byte* at)
{
    if (format == StoredFloat::Float32) {
        float value;
        std::memcpy(&value, at, 4);
        return value;
    }
    std::uint16_t bits;
    std::memcpy(&bits, at, 2);
    if (format == StoredFloat::BFloat16) return std::bit_cast<float>(std::uint32_t{bits} << 16);  // a float32's top half
    return binary16Value(bits);
}

// Same bits, or both NaN (a NaN's payload may differ by path).
void expectSameFloats(const std::vector<float>& expected, const std::vector<float>& got, const char* what)
{
    ASSERT_EQ(expected.size(), got.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        if (std::isnan(expected[i]) && std::isnan(got[i])) continue;
        ASSERT_EQ(std::bit_cast<std::uint32_t>(expected[i]), std::bit_cast<std::uint32_t>(got[i]))
            << what << ": at " << i << " expected " << expected[i] << ", got " << got[i];
    }
}

struct Case {
    std::ptrdiff_t rows, cols;
    bool ordered;
};

using Path = void (*)(const StoredRows&, std::ptrdiff_t, std::ptrdiff_t, float*, std::ptrdiff_t);

// Each path that this build and CPU can run, by name.
std::vector<std::pair<const char*, Path>> paths()
{
    std::vector<std::pair<const char*, Path>> all{{"chosen", transposeToFloat},
                                                   {"portable", widening_detail::transposeToFloatPortable}};
    if (widening_detail::avx2Built() && widening_detail::cpuHasAvx2())
        all.emplace_back("avx2", widening_detail::transposeToFloatAvx2);
    return all;
}

TEST(WideningTranspose, EveryShapeAndOrderMatchesTheFormatsDefinitions)
{
    std::mt19937 random(7);
    for (StoredFloat format : {StoredFloat::Float32, StoredFloat::BFloat16, StoredFloat::Float16}) {
        const auto size = static_cast<std::ptrdiff_t>(storedFloatBytes(format));
        for (const Case& c : {Case{1, 1, false}, Case{7, 9, false}, Case{8, 8, false}, Case{16, 64, false},
                              Case{17, 70, true}, Case{40, 130, true}, Case{24, 8, true}, Case{9, 200, false}}) {
            // Rows with 5 spare values at their end; random bytes (16-bit formats: every kind of value).
            const std::ptrdiff_t rowBytes = (c.cols + 5) * size;
            std::vector<std::byte> data(static_cast<std::size_t>(c.rows * rowBytes));
            for (std::byte& b : data) b = static_cast<std::byte>(random() & 0xff);
            if (format == StoredFloat::Float32)  // finite float32 values of every magnitude
                for (std::size_t i = 0; i + 4 <= data.size(); i += 4) {
                    const float v = std::ldexp(static_cast<float>(random()) / 4294967296.0f - 0.5f,
                                               static_cast<int>(random() % 200) - 100);
                    std::memcpy(data.data() + i, &v, 4);
                }
            std::vector<std::ptrdiff_t> order(static_cast<std::size_t>(c.rows));
            std::iota(order.begin(), order.end(), 0);
            if (c.ordered) std::shuffle(order.begin(), order.end(), random);
            const StoredRows in{format, data.data(), rowBytes, c.ordered ? order.data() : nullptr};
            const std::ptrdiff_t ldo = c.rows + 3;  // 3 spare columns in out, never written
            std::vector<float> expected(static_cast<std::size_t>(c.cols * ldo), 42.0f);
            for (std::ptrdiff_t r = 0; r < c.rows; ++r)
                for (std::ptrdiff_t col = 0; col < c.cols; ++col)
                    expected[static_cast<std::size_t>(col * ldo + r)] =
                        referenceValue(format, data.data() + order[static_cast<std::size_t>(r)] * rowBytes + col * size);
            for (const auto& [name, path] : paths()) {
                std::vector<float> out(expected.size(), 42.0f);
                path(in, c.rows, c.cols, out.data(), ldo);
                SCOPED_TRACE(testing::Message() << name << " format " << static_cast<int>(format) << " " << c.rows
                                                << " x " << c.cols << (c.ordered ? " ordered" : ""));
                expectSameFloats(expected, out, name);
            }
        }
    }
}

TEST(WideningTranspose, EverySixteenBitPatternWidensExactlyTransposedAndInOrder)
{
    // A 256 x 256 matrix holding each pattern once: subnormals, zeros of both signs, infinities, NaNs.
    std::vector<std::uint16_t> patterns(65536);
    std::iota(patterns.begin(), patterns.end(), std::uint16_t{0});
    const auto* data = reinterpret_cast<const std::byte*>(patterns.data());
    for (StoredFloat format : {StoredFloat::BFloat16, StoredFloat::Float16}) {
        std::vector<float> expected(65536);
        for (std::ptrdiff_t r = 0; r < 256; ++r)
            for (std::ptrdiff_t c = 0; c < 256; ++c)
                expected[static_cast<std::size_t>(c * 256 + r)] = referenceValue(format, data + (r * 256 + c) * 2);
        for (const auto& [name, path] : paths()) {
            std::vector<float> out(65536, 42.0f);
            path(StoredRows{format, data, 512}, 256, 256, out.data(), 256);
            SCOPED_TRACE(name);
            expectSameFloats(expected, out, name);
        }
        // In order: pattern i at position i.
        std::vector<float> inOrder(65536, 42.0f), expectedInOrder(65536);
        widenToFloat(format, data, 65536, inOrder.data());
        for (std::size_t i = 0; i < 65536; ++i) expectedInOrder[i] = referenceValue(format, data + 2 * i);
        expectSameFloats(expectedInOrder, inOrder, "in order");
    }
}

TEST(WideningTranspose, LargeOutputsStreamedPastTheCacheKeepEveryValue)
{
    // Over a million floats: the vector path streams its stores, from the first cache line of out
    // (out 64-byte aligned, or 32: 8 rows before the first line), and stores normally when out is
    // only 16-byte aligned or its rows are not 16 floats apart.
    const std::ptrdiff_t rows = 1064, cols = 1030;  // 1064 = 66 x 16 + 8 rows; 1064 x 1024 > 2^20 floats
    std::mt19937 random(11);
    std::vector<std::uint16_t> values(static_cast<std::size_t>(rows * cols));
    for (std::uint16_t& v : values) v = static_cast<std::uint16_t>(0x3c00 + random() % 0x800);  // finite, 1 to 4
    const auto* data = reinterpret_cast<const std::byte*>(values.data());
    for (StoredFloat format : {StoredFloat::BFloat16, StoredFloat::Float16})
        for (std::ptrdiff_t ldo : {std::ptrdiff_t{1072}, std::ptrdiff_t{1068}})
            for (std::ptrdiff_t offset : {0, 8, 4}) {  // floats past a 64-byte boundary
                const std::size_t size = static_cast<std::size_t>(cols * ldo + 16);
                float* base = static_cast<float*>(std::aligned_alloc(64, (size * sizeof(float) + 63) / 64 * 64));
                ASSERT_NE(base, nullptr);
                std::vector<float> expected(size, 42.0f);
                for (std::ptrdiff_t r = 0; r < rows; ++r)
                    for (std::ptrdiff_t c = 0; c < cols; ++c)
                        expected[static_cast<std::size_t>(offset + c * ldo + r)] =
                            referenceValue(format, data + (r * cols + c) * 2);
                for (const auto& [name, path] : paths()) {
                    std::fill(base, base + size, 42.0f);
                    path(StoredRows{format, data, cols * 2}, rows, cols, base + offset, ldo);
                    SCOPED_TRACE(testing::Message() << name << " ldo " << ldo << " offset " << offset);
                    expectSameFloats(expected, std::vector<float>(base, base + size), name);
                }
                std::free(base);
            }
}

}  // namespace
}  // namespace qkv
