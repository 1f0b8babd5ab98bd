// readSafetensorsFloats: the kept tensors' values written where the caller says, F32 read
// straight in, the half types and F64 decoded as readSafetensors + toFloats decode them.

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
