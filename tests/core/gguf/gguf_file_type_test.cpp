// A GGUF file's quantization as people name it (core/gguf/gguf_file_type.hpp): llama.cpp's
// general.file_type when the file says it, else the type of most of its tensor bytes.

#include <string>

#include <gtest/gtest.h>

#include "core/gguf/gguf_file_type.hpp"
#include "core/gguf/gguf_types.hpp"
#include "tests/support/test_paths.hpp"

namespace qkv {
namespace {

GgufTensorInfo tensor(GgmlType type, std::uint64_t bytes)
{
    GgufTensorInfo info;
    info.type = static_cast<std::uint32_t>(type);
    info.byteCount = bytes;
    return info;
}

GgufValue integer(std::int64_t value)
{
    GgufValue v;
    v.type = GgufValueType::UInt32;
    v.unsignedValue = static_cast<std::uint64_t>(value);
    return v;
}

TEST(GgufFileType, LlamaCppNumbersTheMixes)
{
    // include/llama.h: LLAMA_FTYPE_MOSTLY_Q8_0 = 7, Q4_K_M = 15, Q5_K_M = 17, BF16 = 32.
    EXPECT_EQ(llamaFileTypeName(7), "Q8_0");
    EXPECT_EQ(llamaFileTypeName(15), "Q4_K_M");
    EXPECT_EQ(llamaFileTypeName(17), "Q5_K_M");
    EXPECT_EQ(llamaFileTypeName(32), "BF16");
    EXPECT_EQ(llamaFileTypeName(4), "");  // removed from llama.cpp
    EXPECT_EQ(llamaFileTypeName(-1), "");
    EXPECT_EQ(llamaFileTypeName(1000), "");
}

TEST(GgufFileType, TheFilesOwnNameWinsElseMostBytes)
{
    GgufFile file;
    EXPECT_EQ(ggufQuantizationName(file), "");
    // A Q4_K_M mix: Q6_K for the readout, F32 norms, most bytes Q4_K.
    file.tensors = {tensor(GgmlType::Q6_K, 1000), tensor(GgmlType::Q4_K, 700), tensor(GgmlType::Q4_K, 700),
                    tensor(GgmlType::F32, 16)};
    EXPECT_EQ(ggufQuantizationName(file), "mostly Q4_K");
    file.metadata["general.file_type"] = integer(15);
    EXPECT_EQ(ggufQuantizationName(file), "Q4_K_M");
    file.metadata["general.file_type"] = integer(999);  // not a number llama.cpp gives
    EXPECT_EQ(ggufQuantizationName(file), "mostly Q4_K");
}

TEST(GgufFileType, FixtureFilesByTheirTensors)
{
    const std::string models = std::string(testDataDir()) + "/gguf/models/";
    Expected<GgufFile> q8 = readGgufFile(models + "llama_q8_0/model.gguf");
    ASSERT_TRUE(q8) << q8.error();
    EXPECT_EQ(ggufQuantizationName(*q8), "mostly Q8_0");
    Expected<GgufFile> f16 = readGgufFile(models + "llama_f16/model.gguf");
    ASSERT_TRUE(f16) << f16.error();
    EXPECT_EQ(ggufQuantizationName(*f16), "mostly F16");
}

}  // namespace
}  // namespace qkv
