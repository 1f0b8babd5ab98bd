// readSafetensorsFloats: the kept tensors' values written where the caller says, F32 read
// straight in, the half types and F64 decoded as readSafetensors + toFloats decode them.

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/io/safetensors.hpp"
#include "io_test_support.hpp"

namespace qkv {
namespace {

using testing::fixturePath;

// Every kept tensor's floats, by name, through readSafetensorsFloats.
std::map<std::string, std::vector<float>> readFloats(const std::string& path, const TensorFilter& keep, Status* status)
{
    std::map<std::string, std::vector<float>> values;
    *status = readSafetensorsFloats(path, keep, [&](const std::string& name, const std::vector<std::size_t>& shape) {
        std::size_t count = 1;
        for (std::size_t dim : shape) count *= dim;
        std::vector<float>& out = values[name];
        out.assign(count, -1.0f);
        return out.data();
    });
    return values;
}

TEST(SafetensorsFloats, EveryDtypeGivesWhatTheWholeFileReaderDecodes)
{
    for (const char* fixture : {"half_types.safetensors", "weights_ours.safetensors", "mha_pytorch.safetensors"}) {
        const std::string path = fixturePath(fixture);
        Expected<SafetensorsFile> whole = readSafetensors(path);
        ASSERT_TRUE(whole.ok()) << whole.error();
        Status status;
        const auto floats = readFloats(path, {}, &status);
        ASSERT_TRUE(status.ok()) << status.error();
        ASSERT_EQ(floats.size(), whole->tensors.size()) << fixture;
        for (const Tensor& tensor : whole->tensors) {
            std::vector<float> expected(tensor.elementCount());
            tensor.toFloats(expected.data());
            EXPECT_EQ(floats.at(tensor.name), expected) << fixture << " " << tensor.name;
        }
    }
}

// A matrix read transposed (an nn.Linear weight into x W form) is, bit for bit, the transpose of
// the values read in order: for every dtype, and for a bf16 matrix of several chunks of rows.
TEST(SafetensorsFloats, AMatrixReadTransposedIsTheTransposeOfItsValues)
{
    testing::ScratchDir scratch;
    SafetensorsFile file;
    const MatrixF big = MatrixF::Random(1100, 2048);  // 4.3 MiB in bf16: more than one chunk of rows
    Tensor bf16 = Tensor::fromMatrix("big_bf16", big);
    bf16.dtype = TensorDtype::BF16;
    std::vector<std::byte> halves(static_cast<std::size_t>(big.size()) * 2);
    for (Index i = 0; i < big.size(); ++i) std::memcpy(&halves[static_cast<std::size_t>(i) * 2],
                                                       reinterpret_cast<const char*>(big.data() + i) + 2, 2);
    bf16.data = halves;
    file.tensors.push_back(bf16);
    file.tensors.push_back(Tensor::fromMatrix("small_f32", MatrixF::Random(5, 7)));
    file.tensors.push_back(Tensor::fromMatrix("small_f64", MatrixD::Random(3, 9)));
    file.tensors.push_back(Tensor::fromVector("vector_f32", std::vector<float>{1.5f, -2.0f, 3.25f}));
    const std::string path = scratch.file("transposed.safetensors");
    ASSERT_TRUE(writeSafetensors(path, file).ok());
    for (const Tensor& tensor : file.tensors) {
        const bool matrix = tensor.shape.size() == 2;
        const std::size_t rows = matrix ? tensor.shape[0] : 1, cols = matrix ? tensor.shape[1] : tensor.shape[0];
        std::vector<float> inOrder(rows * cols), flipped(rows * cols, -1.0f);
        const auto only = [&](std::string_view name) { return name == tensor.name; };
        ASSERT_TRUE(readSafetensorsFloats(path, only, [&](const std::string&, const std::vector<std::size_t>&) {
                        return FloatPlacement{inOrder.data(), false};
                    }).ok());
        ASSERT_TRUE(readSafetensorsFloats(path, only, [&](const std::string&, const std::vector<std::size_t>&) {
                        return FloatPlacement{flipped.data(), true};
                    }).ok());
        std::vector<float> expected(rows * cols);
        tensor.toFloats(expected.data());
        EXPECT_EQ(inOrder, expected) << tensor.name;
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c)
                ASSERT_EQ(flipped[matrix ? c * rows + r : c], expected[r * cols + c]) << tensor.name << " " << r << "," << c;
    }
}

TEST(SafetensorsFloats, OnlyKeptTensorsAreAskedFor)
{
    Status status;
    const auto floats = readFloats(fixturePath("weights_ours.safetensors"),
                                   [](std::string_view name) { return name == "W_K"; }, &status);
    ASSERT_TRUE(status.ok()) << status.error();
    ASSERT_EQ(floats.size(), 1u);
    EXPECT_TRUE(floats.contains("W_K"));
}

TEST(SafetensorsFloats, TheCallerStopsAndBadFilesAreRefusedByName)
{
    int asked = 0;
    const Status stopped = readSafetensorsFloats(fixturePath("weights_ours.safetensors"), {},
                                                 [&](const std::string&, const std::vector<std::size_t>&) -> float* {
                                                     ++asked;
                                                     return nullptr;
                                                 });
    EXPECT_FALSE(stopped.ok());
    EXPECT_EQ(stopped.error(), "");  // the caller keeps its reason
    EXPECT_EQ(asked, 1);

    testing::ScratchDir scratch;
    const std::string truncated = scratch.file("truncated.safetensors");
    std::vector<std::byte> bytes = testing::fileBytes(fixturePath("weights_ours.safetensors"));
    bytes.resize(bytes.size() - 16);
    testing::writeBytes(truncated, bytes);
    Status status;
    readFloats(truncated, {}, &status);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().find("truncated.safetensors"), std::string::npos) << status.error();

    readFloats(scratch.file("missing.safetensors"), {}, &status);
    EXPECT_FALSE(status.ok());
}

}  // namespace
}  // namespace qkv
