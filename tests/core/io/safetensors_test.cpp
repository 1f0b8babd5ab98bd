// safetensors reader and writer: half-precision decoding against hand-computed and NumPy
// values, round trips, and every structural defect of a header.

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "core/io/npy.hpp"
#include "core/io/safetensors.hpp"
#include "core/io/io_test_support.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

using testing::fileBytes;
using testing::fixturePath;
using testing::ScratchDir;
using testing::toBytes;

std::vector<std::byte> makeSafetensors(const std::string& header, const std::string& data)
{
    std::string file(8, '\0');
    for (int i = 0; i < 8; ++i)
        file[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    return toBytes(file + header + data);
}

std::string parseError(const std::vector<std::byte>& bytes)
{
    return testing::refusal([](const auto& b, const std::string& name) { return parseSafetensors(b, name); },
                            bytes, "test.safetensors");
}

TEST(safetensors_io, Float16DecodesHandComputedValues)
{
    EXPECT_EQ(decodeFloat16(0x3C00), 1.0f);
    EXPECT_EQ(decodeFloat16(0xC000), -2.0f);
    EXPECT_EQ(decodeFloat16(0x0001), std::ldexp(1.0f, -24));           // smallest subnormal
    EXPECT_EQ(decodeFloat16(0x03FF), 1023.0f * std::ldexp(1.0f, -24));  // largest subnormal
    EXPECT_EQ(decodeFloat16(0x0400), std::ldexp(1.0f, -14));            // smallest normal
    EXPECT_EQ(decodeFloat16(0x7BFF), 65504.0f);                         // largest finite
    EXPECT_EQ(decodeFloat16(0x3555), 0.333251953125f);
    EXPECT_EQ(decodeFloat16(0x7C00), std::numeric_limits<float>::infinity());
    EXPECT_EQ(decodeFloat16(0xFC00), -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(decodeFloat16(0x7E00)));
    EXPECT_TRUE(std::isnan(decodeFloat16(0xFC01)));
    EXPECT_EQ(decodeFloat16(0x8000), 0.0f);
    EXPECT_TRUE(std::signbit(decodeFloat16(0x8000)));
    EXPECT_EQ(decodeFloat16(0x8001), -std::ldexp(1.0f, -24));
}

TEST(safetensors_io, BFloat16DecodesHandComputedValues)
{
    EXPECT_EQ(decodeBFloat16(0x3F80), 1.0f);
    EXPECT_EQ(decodeBFloat16(0xC000), -2.0f);
    EXPECT_EQ(decodeBFloat16(0x4049), 3.140625f);
    EXPECT_EQ(decodeBFloat16(0x0001), std::ldexp(1.0f, -133));  // smallest subnormal
    EXPECT_EQ(decodeBFloat16(0x7F7F), 0x1.FEp127f);              // largest finite
    EXPECT_EQ(decodeBFloat16(0x7F80), std::numeric_limits<float>::infinity());
    EXPECT_EQ(decodeBFloat16(0xFF80), -std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(decodeBFloat16(0x7FC0)));
    EXPECT_TRUE(std::signbit(decodeBFloat16(0x8000)));
}

TEST(safetensors_io, HalfTypesMatchNumPysDecoding)
{
    auto file = readSafetensors(fixturePath("half_types.safetensors"));
    ASSERT_TRUE(file.ok()) << file.error();
    auto golden = readNpyMatrixD(fixturePath("half_types_golden.npy"));
    ASSERT_TRUE(golden.ok()) << golden.error();
    const Tensor* bf16 = file->find("bf16");
    const Tensor* f16 = file->find("f16");
    ASSERT_TRUE(bf16 && f16);
    EXPECT_EQ(bf16->dtype, TensorDtype::BF16);
    EXPECT_EQ(f16->dtype, TensorDtype::F16);
    std::vector<double> values = bf16->toDoubles();
    const std::vector<double> f16Values = f16->toDoubles();
    values.insert(values.end(), f16Values.begin(), f16Values.end());
    ASSERT_EQ(static_cast<Index>(values.size()), golden->size());
    for (std::size_t i = 0; i < values.size(); ++i)
        EXPECT_EQ(values[i], golden->data()[i]) << "value " << i;
}

TEST(safetensors_io, ReadsAHeaderWrittenByPython)
{
    auto file = readSafetensors(fixturePath("weights_ours.safetensors"));
    ASSERT_TRUE(file.ok()) << file.error();
    ASSERT_EQ(file->tensors.size(), 8u);
    EXPECT_EQ(file->metadata.at("made_by"), "make_fixtures.py");
    for (std::size_t i = 1; i < file->tensors.size(); ++i)
        EXPECT_LT(file->tensors[i - 1].name, file->tensors[i].name);
    const Tensor* wq = file->find("W_Q");
    ASSERT_NE(wq, nullptr);
    EXPECT_EQ(wq->shape, (std::vector<std::size_t>{4, 4}));
    EXPECT_EQ(file->find("b_O")->shape, (std::vector<std::size_t>{4}));
    EXPECT_EQ(file->find("nope"), nullptr);
}

TEST(safetensors_io, RoundTripsF32AndF64WithMetadata)
{
    ScratchDir dir;
    std::mt19937 rng(11);
    std::normal_distribution<double> normal;
    MatrixD d(3, 5);
    for (Index i = 0; i < d.size(); ++i) d.data()[i] = normal(rng);
    const MatrixF f = (d * 3.0).cast<float>();
    const std::vector<float> v = {1.5f, -2.25f};

    SafetensorsFile file;
    file.tensors.push_back(Tensor::fromMatrix("zeta.f64", d));
    file.tensors.push_back(Tensor::fromMatrix("alpha.f32", f));
    file.tensors.push_back(Tensor::fromVector("mid.vector", std::span<const float>(v)));
    file.tensors.push_back(Tensor::fromMatrix("empty", MatrixF(0, 4)));
    file.metadata["note"] = "round trip \"quoted\" é";
    ASSERT_TRUE(writeSafetensors(dir.file("t.safetensors"), file).ok());

    const auto bytes = fileBytes(dir.file("t.safetensors"));
    std::uint64_t headerLength = 0;
    std::memcpy(&headerLength, bytes.data(), 8);
    EXPECT_EQ(headerLength % 8, 0u) << "the data buffer must start 8-byte aligned";
    EXPECT_EQ(static_cast<char>(bytes[8]), '{');

    auto back = readSafetensors(dir.file("t.safetensors"));
    ASSERT_TRUE(back.ok()) << back.error();
    ASSERT_EQ(back->tensors.size(), 4u);
    EXPECT_EQ(back->tensors[0].name, "alpha.f32");  // sorted by name
    EXPECT_EQ(back->tensors[3].name, "zeta.f64");
    EXPECT_EQ(back->metadata, file.metadata);
    for (const Tensor& original : file.tensors) {
        const Tensor* read = back->find(original.name);
        ASSERT_NE(read, nullptr) << original.name;
        EXPECT_EQ(read->dtype, original.dtype);
        EXPECT_EQ(read->shape, original.shape);
        EXPECT_EQ(read->data, original.data) << original.name;
    }
    EXPECT_EQ(back->find("zeta.f64")->valueAt(7), d.data()[7]);
    EXPECT_EQ(back->find("alpha.f32")->valueAt(14), static_cast<double>(f.data()[14]));

    // Writing what we read gives the same bytes (deterministic writer).
    ASSERT_TRUE(writeSafetensors(dir.file("again.safetensors"), *back).ok());
    EXPECT_EQ(fileBytes(dir.file("again.safetensors")), bytes);

    // From memory and from disk agree; the filter skips tensors but still checks the header.
    auto fromMemory = parseSafetensors(bytes, "memory", [](std::string_view n) { return n == "mid.vector"; });
    ASSERT_TRUE(fromMemory.ok()) << fromMemory.error();
    ASSERT_EQ(fromMemory->tensors.size(), 1u);
    EXPECT_EQ(fromMemory->tensors[0].toDoubles(), (std::vector<double>{1.5, -2.25}));
}

TEST(safetensors_io, EmptyHeaderIsAValidEmptyFile)
{
    auto file = parseSafetensors(makeSafetensors("{}      ", ""), "empty");
    ASSERT_TRUE(file.ok()) << file.error();
    EXPECT_TRUE(file->tensors.empty());
}

struct BadFile {
    std::string header;
    std::string data;
    std::string expectedWords;
};

TEST(safetensors_io, RefusesStructuralDefectsWithAReason)
{
    const std::string eight(8, '\0');
    const std::string sixteen(16, '\0');
    const std::vector<BadFile> cases = {
        {"", "", "not valid JSON"},
        {"{\"a\": ", eight, "not valid JSON"},
        {"{\"a\": {}} trailing", eight, "not valid JSON"},
        {"[1, 2]", "", "not a JSON object"},
        {"{\"a\": [1]}", "", "not an object"},
        {std::string(200, '[') + std::string(200, ']'), "", "nests"},
        {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", eight, "'a' twice"},
        {R"({"a": {"dtype": "F32", "dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", eight, "'dtype' twice"},
        {R"({"a": {"shape": [2], "data_offsets": [0, 8]}})", eight, "has no 'dtype'"},
        {R"({"a": {"dtype": "F32", "data_offsets": [0, 8]}})", eight, "has no 'shape'"},
        {R"({"a": {"dtype": "F32", "shape": [2]}})", eight, "has no 'data_offsets'"},
        {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "x": 1}})", eight, "unknown field 'x'"},
        {R"({"a": {"dtype": "I64", "shape": [1], "data_offsets": [0, 8]}})", eight, "dtype 'I64', which is not supported"},
        {R"({"a": {"dtype": 32, "shape": [2], "data_offsets": [0, 8]}})", eight, "not a string"},
        {R"({"a": {"dtype": "F32", "shape": 2, "data_offsets": [0, 8]}})", eight, "not a list"},
        {R"({"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", eight, "non-negative"},
        {R"({"a": {"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]}})", eight, "non-negative"},
        {R"({"a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 8]}})", eight, "has 4 F32 values (16 bytes)"},
        {R"({"a": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 8]}})", eight, "impossibly large"},
        {R"({"a": {"dtype": "F64", "shape": [4611686018427387904], "data_offsets": [0, 8]}})", eight, "impossibly large"},
        {R"({"a": {"dtype": "F32", "shape": [0, 3000000000], "data_offsets": [0, 0]}})", "", "impossibly large"},
        {R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", eight, "has only 8 bytes"},
        {R"({"a": {"dtype": "F32", "shape": [0], "data_offsets": [8, 0]}})", eight, "end before they begin"},
        {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0]}})", eight, "two non-negative integers"},
        {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, -8]}})", eight, "two non-negative integers"},
        {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 18446744073709551615]}})", eight, "has only 8 bytes"},
        {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})", sixteen, "'a' and 'b' overlap"},
        {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "b": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", eight, "overlap"},
        {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}})", sixteen, "bytes [4, 8) of the data buffer belong to no tensor"},
        {R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", sixteen, "last 8 bytes"},
        {R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})", eight, "bytes [0, 4)"},
        {R"({"__metadata__": {"k": 1}})", "", "'__metadata__' entry 'k'"},
        {R"({"__metadata__": [1]})", "", "'__metadata__' is a list"},
        {"{\"\xff\xfe\": {\"dtype\": \"F32\", \"shape\": [0], \"data_offsets\": [0, 0]}}", "", "not valid JSON"},
    };
    for (const BadFile& c : cases) {
        const std::string e = parseError(makeSafetensors(c.header, c.data));
        EXPECT_NE(e.find(c.expectedWords), std::string::npos)
            << "header " << c.header.substr(0, 120) << "\n gave: " << e;
    }
}

TEST(safetensors_io, RefusesBadHeaderLengths)
{
    EXPECT_NE(parseError(toBytes("abc")).find("is too short: 3 bytes, a safetensors file needs at least 8"),
              std::string::npos);
    EXPECT_NE(parseError({}).find(": is empty"), std::string::npos);
    auto tooLong = makeSafetensors("{}", "");
    tooLong[0] = std::byte{0xff};  // 255 bytes of header claimed, 2 present
    EXPECT_NE(parseError(tooLong).find("header length says 255 bytes"), std::string::npos);
    auto huge = makeSafetensors("{}", "");
    huge[4] = std::byte{0x01};  // 2^32 + 2 bytes
    EXPECT_NE(parseError(huge).find("100 MB"), std::string::npos);
    auto everything = makeSafetensors("{}", "");
    for (int i = 0; i < 8; ++i) everything[static_cast<std::size_t>(i)] = std::byte{0xff};
    EXPECT_NE(parseError(everything).find("100 MB"), std::string::npos);
    // Just under the cap but beyond the file: refused by size, without allocating it.
    auto underCap = makeSafetensors("{}", "");
    const std::uint64_t n = kMaxSafetensorsHeaderBytes;
    std::memcpy(underCap.data(), &n, 8);
    EXPECT_NE(parseError(underCap).find("the file has only"), std::string::npos);
}

TEST(safetensors_io, DiskReaderChecksTheSameThingsAsTheMemoryReader)
{
    ScratchDir dir;
    testing::writeBytes(dir.file("short.safetensors"), toBytes("abc"));
    auto shortFile = readSafetensors(dir.file("short.safetensors"));
    ASSERT_FALSE(shortFile.ok());
    EXPECT_NE(shortFile.error().find("short.safetensors: is too short"), std::string::npos);

    testing::writeBytes(dir.file("gap.safetensors"),
                        makeSafetensors(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})",
                                        std::string(12, '\0')));
    auto gap = readSafetensors(dir.file("gap.safetensors"));
    ASSERT_FALSE(gap.ok());
    EXPECT_NE(gap.error().find("belong to no tensor"), std::string::npos);

    auto missing = readSafetensors(dir.file("missing.safetensors"));
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().find("missing.safetensors"), std::string::npos);
}

TEST(safetensors_io, WriterRefusesInconsistentTensors)
{
    ScratchDir dir;
    SafetensorsFile twice;
    twice.tensors.push_back(Tensor::fromMatrix("a", MatrixF::Zero(1, 1)));
    twice.tensors.push_back(Tensor::fromMatrix("a", MatrixF::Zero(1, 1)));
    EXPECT_NE(writeSafetensors(dir.file("x"), twice).error().find("two tensors are named 'a'"),
              std::string::npos);

    SafetensorsFile reserved;
    reserved.tensors.push_back(Tensor::fromMatrix("__metadata__", MatrixF::Zero(1, 1)));
    EXPECT_FALSE(writeSafetensors(dir.file("x"), reserved).ok());

    SafetensorsFile mismatch;
    mismatch.tensors.push_back(Tensor::fromMatrix("a", MatrixF::Zero(2, 2)));
    mismatch.tensors[0].shape = {3};
    EXPECT_NE(writeSafetensors(dir.file("x"), mismatch).error().find("does not match its shape"),
              std::string::npos);
    EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
}  // namespace qkv
