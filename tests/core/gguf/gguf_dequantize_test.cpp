// Each tensor type decoded bit for bit as the format's formulas give it: quant_types.gguf holds
// random blocks of every type, expected_<TYPE>.npy the floats NumPy computed from the published
// layouts (tests/data/gguf/make_quant_fixtures.py).

#include <bit>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include <cmath>

#include "core/gguf/gguf_dequantize.hpp"
#include "core/gguf/gguf_file.hpp"
#include "core/gguf/gguf_tensor.hpp"
#include "core/gguf/gguf_types.hpp"
#include "core/io/npy.hpp"
#include "core/io/safetensors.hpp"
#include "tests/support/test_paths.hpp"

namespace qkv {
namespace {

std::string fixture(const std::string& name) { return std::string(testDataDir()) + "/gguf/" + name; }

class DequantizeType : public ::testing::TestWithParam<const char*> {};

TEST_P(DequantizeType, EqualsTheFormulasBitForBit)
{
    const std::string type = GetParam();
    Expected<GgufFile> file = readGgufFile(fixture("quant_types.gguf"));
    ASSERT_TRUE(file) << file.error();
    const GgufTensorInfo* info = file->findTensor(type);
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(ggmlTypeName(info->type), type);
    Expected<MatrixF> values = readGgufTensor(file->path, *info);
    ASSERT_TRUE(values) << values.error();
    Expected<MatrixF> expected = readNpyMatrix(fixture("expected_" + type + ".npy"));
    ASSERT_TRUE(expected) << expected.error();
    ASSERT_EQ(values->rows(), expected->rows());
    ASSERT_EQ(values->cols(), expected->cols());
    int differing = 0;
    for (Index r = 0; r < values->rows(); ++r)
        for (Index c = 0; c < values->cols(); ++c)
            if (std::bit_cast<std::uint32_t>((*values)(r, c)) != std::bit_cast<std::uint32_t>((*expected)(r, c))) {
                if (++differing <= 5)
                    ADD_FAILURE() << type << " (" << r << ", " << c << "): " << (*values)(r, c) << " expected "
                                  << (*expected)(r, c);
            }
    EXPECT_EQ(differing, 0);
    // The fixture's values are not trivial: many distinct ones, of both signs.
    EXPECT_GT((values->array() > 0.0f).count(), 0);
    EXPECT_GT((values->array() < 0.0f).count(), 0);
}

INSTANTIATE_TEST_SUITE_P(Gguf, DequantizeType,
                         ::testing::Values("F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K",
                                           "Q3_K", "Q4_K", "Q5_K", "Q6_K"),
                         [](const auto& info) { return std::string(info.param); });

TEST(GgufTypes, LayoutsMatchTheBlockSizes)
{
    // bytes per block: halves, scales and quants as each layout lists them (gguf_types.hpp)
    EXPECT_EQ(ggmlTypeLayout(12)->blockBytes, 2u + 2u + 12u + 128u);        // Q4_K
    EXPECT_EQ(ggmlTypeLayout(13)->blockBytes, 2u + 2u + 12u + 32u + 128u);  // Q5_K
    EXPECT_EQ(ggmlTypeLayout(14)->blockBytes, 128u + 64u + 16u + 2u);       // Q6_K
    EXPECT_EQ(ggmlTypeLayout(11)->blockBytes, 32u + 64u + 12u + 2u);        // Q3_K
    EXPECT_EQ(ggmlTypeLayout(10)->blockBytes, 16u + 64u + 2u + 2u);         // Q2_K
    EXPECT_FALSE(ggmlTypeLayout(23));  // IQ4_XS: known, not decoded
    EXPECT_EQ(ggmlTypeName(23), "type 23 (IQ4_XS)");
    EXPECT_EQ(ggmlTypeName(99), "unknown type 99");
}

}  // namespace
}  // namespace qkv

namespace qkv {
namespace {

// Every binary16 pattern converts to the value the safetensors reader's exact decoding gives (NaNs:
// a NaN of the same sign).
TEST(GgufTypes, HalvesConvertExactlyForEveryPattern)
{
    for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
        const float ours = ggmlHalfToFloat(static_cast<std::uint16_t>(bits));
        const float exact = decodeFloat16(static_cast<std::uint16_t>(bits));
        if (std::isnan(exact)) {
            EXPECT_TRUE(std::isnan(ours)) << bits;
            EXPECT_EQ(std::signbit(ours), std::signbit(exact)) << bits;
        } else {
            EXPECT_EQ(std::bit_cast<std::uint32_t>(ours), std::bit_cast<std::uint32_t>(exact)) << bits;
        }
    }
}

}  // namespace
}  // namespace qkv
