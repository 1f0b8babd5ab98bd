// The GGUF reader: every metadata type, tensor infos placed in the data section, and each hostile
// file refused with a message naming what is wrong (never reading past the file nor allocating
// what it claims).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/gguf/gguf_file.hpp"
#include "core/gguf/gguf_tensor.hpp"
#include "tests/core/gguf/gguf_bytes.hpp"
#include "tests/support/test_folder.hpp"

namespace qkv {
namespace {

using gguf_test::Bytes;

// A small valid file, each field of which a hostile case may replace.
struct Spec {
    std::string magic = "GGUF";
    std::uint32_t version = 3;
    std::optional<std::uint64_t> tensorCount, metadataCount;
    std::optional<std::uint64_t> architectureLength;  // the string's claimed length
    std::optional<std::uint64_t> tokenCount;          // the array's claimed count
    std::uint32_t tokenElementType = 8;                // string
    std::uint32_t alignment = 32;
    std::uint32_t valueTypeOfCount = 5;                // int32
    std::uint32_t matrixType = 0;                      // F32
    std::vector<std::uint64_t> matrixDims{4, 2};
    std::uint64_t quantOffset = 32;
    std::uint32_t quantDimCount = 1;
    bool duplicateKey = false;
};

Bytes build(const Spec& spec)
{
    Bytes b;
    b.raw(spec.magic).put<std::uint32_t>(spec.version);
    b.put<std::uint64_t>(spec.tensorCount.value_or(2)).put<std::uint64_t>(spec.metadataCount.value_or(7));
    // general.architecture: string
    b.text("general.architecture").put<std::uint32_t>(8);
    if (spec.architectureLength) b.put<std::uint64_t>(*spec.architectureLength).raw("llama");
    else b.text("llama");
    b.text("general.alignment").put<std::uint32_t>(4).put<std::uint32_t>(spec.alignment);
    b.text(spec.duplicateKey ? "general.alignment" : "llama.block_count").put<std::uint32_t>(spec.valueTypeOfCount);
    b.put<std::int32_t>(2);
    b.text("tokenizer.ggml.tokens").put<std::uint32_t>(9).put<std::uint32_t>(spec.tokenElementType);
    b.put<std::uint64_t>(spec.tokenCount.value_or(3)).text("<s>").text("a").text("\xc4\xa0" "b");
    b.text("tokenizer.ggml.scores").put<std::uint32_t>(9).put<std::uint32_t>(6).put<std::uint64_t>(3);
    b.put<float>(0.0f).put<float>(-1.5f).put<float>(-2.25f);
    b.text("tokenizer.ggml.add_bos_token").put<std::uint32_t>(7).put<std::uint8_t>(1);
    b.text("llama.rope.freq_base").put<std::uint32_t>(12).put<double>(500000.0);
    // tensor infos
    b.text("matrix").put<std::uint32_t>(static_cast<std::uint32_t>(spec.matrixDims.size()));
    for (std::uint64_t d : spec.matrixDims) b.put<std::uint64_t>(d);
    b.put<std::uint32_t>(spec.matrixType).put<std::uint64_t>(0);
    b.text("quant").put<std::uint32_t>(spec.quantDimCount);
    for (std::uint32_t d = 0; d < spec.quantDimCount; ++d) b.put<std::uint64_t>(32);
    b.put<std::uint32_t>(8).put<std::uint64_t>(spec.quantOffset);
    b.padTo(spec.alignment == 0 ? 32 : spec.alignment);
    // data: matrix 8 floats (32 bytes), then one Q8_0 block (34 bytes)
    for (int i = 0; i < 8; ++i) b.put<float>(static_cast<float>(i) - 3.5f);
    b.put<std::uint16_t>(0x3800);  // d = 0.5
    for (int i = 0; i < 32; ++i) b.put<std::int8_t>(static_cast<std::int8_t>(i - 16));
    return b;
}

class GgufFileTest : public ::testing::Test {
protected:
    TestFolder folder{"gguf"};

    Expected<GgufFile> read(const Bytes& bytes, std::size_t keep = std::string::npos)
    {
        const std::string path = (folder.path() / "model.gguf").string();
        bytes.save(path, keep);
        return readGgufFile(path);
    }

    // Refused, naming the file and containing `words`.
    void expectRefused(const Spec& spec, const std::string& words)
    {
        Expected<GgufFile> file = read(build(spec));
        ASSERT_FALSE(file) << "accepted; expected: " << words;
        EXPECT_NE(file.error().find("model.gguf"), std::string::npos) << file.error();
        EXPECT_NE(file.error().find(words), std::string::npos) << file.error();
    }
};

TEST_F(GgufFileTest, ReadsMetadataOfEveryKindAndPlacesTensors)
{
    Expected<GgufFile> file = read(build(Spec{}));
    ASSERT_TRUE(file) << file.error();
    EXPECT_EQ(file->version, 3u);
    EXPECT_EQ(file->find("general.architecture")->text, "llama");
    EXPECT_EQ(file->find("llama.block_count")->integer(), 2);
    EXPECT_EQ(file->find("llama.rope.freq_base")->number(), 500000.0);
    EXPECT_EQ(file->find("tokenizer.ggml.add_bos_token")->integer(), 1);
    EXPECT_EQ(file->find("tokenizer.ggml.tokens")->strings, (std::vector<std::string>{"<s>", "a", "\xc4\xa0" "b"}));
    EXPECT_EQ(file->find("tokenizer.ggml.scores")->numbers, (std::vector<double>{0.0, -1.5, -2.25}));
    ASSERT_EQ(file->tensors.size(), 2u);
    const GgufTensorInfo* matrix = file->findTensor("matrix");
    ASSERT_NE(matrix, nullptr);
    EXPECT_EQ(matrix->offset % 32, 0u);
    EXPECT_EQ(file->dataOffset, matrix->offset);
    EXPECT_EQ(matrix->rowCount(), 2u);
    Expected<MatrixF> values = readGgufTensor(file->path, *matrix);
    ASSERT_TRUE(values) << values.error();
    ASSERT_EQ(values->rows(), 2);
    ASSERT_EQ(values->cols(), 4);
    EXPECT_EQ((*values)(1, 0), 0.5f);  // value 4 of 0..7, minus 3.5
    Expected<MatrixF> quant = readGgufTensor(file->path, *file->findTensor("quant"));
    ASSERT_TRUE(quant) << quant.error();
    EXPECT_EQ((*quant)(0, 0), -8.0f);  // -16 * 0.5
    EXPECT_EQ((*quant)(0, 31), 7.5f);
}

TEST_F(GgufFileTest, ReadsVersionTwo)
{
    Spec spec;
    spec.version = 2;
    Expected<GgufFile> file = read(build(spec));
    ASSERT_TRUE(file) << file.error();
    EXPECT_EQ(file->version, 2u);
}

TEST_F(GgufFileTest, RefusesAWrongMagic)
{
    Spec spec;
    spec.magic = "GGML";
    expectRefused(spec, "not a GGUF file");
}

TEST_F(GgufFileTest, RefusesUnsupportedVersions)
{
    for (std::uint32_t version : {1u, 4u, 0xffffffffu}) {
        Spec spec;
        spec.version = version;
        expectRefused(spec, "version " + std::to_string(version));
    }
}

TEST_F(GgufFileTest, RefusesEveryTruncation)
{
    const Bytes whole = build(Spec{});
    for (std::size_t keep = 0; keep < whole.data.size(); ++keep) {
        Expected<GgufFile> file = read(whole, keep);
        EXPECT_FALSE(file) << "a file cut to " << keep << " of " << whole.data.size() << " bytes was accepted";
        if (!file) {
            EXPECT_NE(file.error().find("model.gguf"), std::string::npos) << file.error();
        }
    }
}

TEST_F(GgufFileTest, RefusesCountsPastTheFile)
{
    Spec tensors;
    tensors.tensorCount = std::uint64_t{1} << 62;
    expectRefused(tensors, "tensors, more than the file can hold");
    Spec metadata;
    metadata.metadataCount = 0xffffffffffffffffull;
    expectRefused(metadata, "metadata entries, more than the file can hold");
    Spec more;
    more.metadataCount = 9;  // two more entries than there are: the tensor infos read as metadata
    Expected<GgufFile> file = read(build(more));
    EXPECT_FALSE(file);
}

TEST_F(GgufFileTest, RefusesStringsAndArraysOfAbsurdLength)
{
    Spec huge;
    huge.architectureLength = std::uint64_t{1} << 60;
    expectRefused(huge, "metadata 'general.architecture' claims 1152921504606846976 bytes, more than the limit");
    Spec past;
    past.architectureLength = 4000;
    expectRefused(past, "past the end of the file");
    Spec array;
    array.tokenCount = std::uint64_t{1} << 40;
    expectRefused(array, "metadata 'tokenizer.ggml.tokens' claims 1099511627776 elements, more than the limit");
    Spec arrayPast;
    arrayPast.tokenCount = 100000;
    expectRefused(arrayPast, "elements, past the end of the file");
    Spec nested;
    nested.tokenElementType = 9;
    expectRefused(nested, "array of arrays");
    Spec unknown;
    unknown.tokenElementType = 13;
    expectRefused(unknown, "unknown element type 13");
}

TEST_F(GgufFileTest, RefusesUnknownValueTypesAndDuplicateKeys)
{
    Spec type;
    type.valueTypeOfCount = 77;
    expectRefused(type, "metadata 'llama.block_count' has unknown value type 77");
    Spec twice;
    twice.duplicateKey = true;
    expectRefused(twice, "metadata 'general.alignment' appears twice");
}

TEST_F(GgufFileTest, RefusesTensorsOfTypesNotDecoded)
{
    Spec unknown;
    unknown.matrixType = 99;
    expectRefused(unknown, "tensor 'matrix' has unknown type 99");
    Spec notDecoded;
    notDecoded.matrixType = 23;
    expectRefused(notDecoded, "tensor 'matrix' has type 23 (IQ4_XS), which this program cannot decode");
}

TEST_F(GgufFileTest, RefusesShapesThatOverflowOrAreNotWholeBlocks)
{
    Spec overflow;
    overflow.matrixDims = {std::uint64_t{1} << 32, std::uint64_t{1} << 32, 16};
    expectRefused(overflow, "tensor 'matrix' has a shape (4294967296 x 4294967296 x 16) whose product overflows");
    Spec size;
    size.matrixDims = {std::uint64_t{1} << 62, 1};  // values fit, bytes (x4) do not
    expectRefused(size, "whose size overflows");
    Spec dims;
    dims.quantDimCount = 5;
    expectRefused(dims, "tensor 'quant' has 5 dimensions");
    Spec rows;
    rows.matrixType = 8;  // Q8_0 rows of 4 values
    expectRefused(rows, "rows of 4 values, not a whole number of blocks of 32");
}

TEST_F(GgufFileTest, RefusesDataPastTheEndMisalignedOrOverlapping)
{
    Spec past;
    past.quantOffset = 4096;
    expectRefused(past, "tensor 'quant' (34 bytes at data offset 4096) reaches past the end of the file");
    Spec big;
    big.matrixDims = {1024, 1024};
    expectRefused(big, "tensor 'matrix' (4194304 bytes at data offset 0) reaches past the end of the file");
    Spec misaligned;
    misaligned.quantOffset = 33;
    expectRefused(misaligned, "tensor 'quant' starts at data offset 33, not a multiple of the alignment 32");
    Spec overlap;
    overlap.quantOffset = 0;
    expectRefused(overlap, "tensors 'matrix' and 'quant' overlap");
    Spec alignment;
    alignment.alignment = 24;
    expectRefused(alignment, "'general.alignment' must be a uint32 power of two");
}

}  // namespace
}  // namespace qkv
