#pragma once
// Helpers for the io tests: fixture paths, a scratch folder, whole-file reads.

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>
#include "support/test_paths.hpp"

namespace qkv::testing {

inline std::string fixturePath(const std::string& name)
{
    return std::string(qkv::testDataDir()) + "/io/" + name;
}

inline std::vector<std::byte> fileBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> bytes(chars.size());
    for (std::size_t i = 0; i < chars.size(); ++i) bytes[i] = static_cast<std::byte>(chars[i]);
    return bytes;
}

inline void writeBytes(const std::string& path, const std::vector<std::byte>& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline std::vector<std::byte> toBytes(const std::string& text)
{
    std::vector<std::byte> bytes(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) bytes[i] = static_cast<std::byte>(text[i]);
    return bytes;
}

// A folder of its own for each test, removed afterwards.
class ScratchDir {
public:
    ScratchDir()
    {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        std::string name = "qkv-io-" + std::to_string(::getpid());
        if (info) name += std::string("-") + info->test_suite_name() + "-" + info->name();
        path_ = std::filesystem::temp_directory_path() / name;
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~ScratchDir()
    {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    std::string file(const std::string& name) const { return (path_ / name).string(); }
    // Names of the files in the folder (to prove nothing partial was left behind).
    std::vector<std::string> entries() const
    {
        std::vector<std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator(path_))
            names.push_back(entry.path().filename().string());
        return names;
    }

private:
    std::filesystem::path path_;
};

// Feeds `bytes` to a reader that must refuse them, checks the message starts with the source
// name, and returns it (empty, with a test failure, when the reader accepted the bytes).
template <class Parse>
std::string refusal(Parse parse, const std::vector<std::byte>& bytes, const std::string& sourceName)
{
    auto result = parse(bytes, sourceName);
    EXPECT_FALSE(result.ok());
    if (result.ok()) return "";
    EXPECT_EQ(result.error().rfind(sourceName + ": ", 0), 0u) << result.error();
    return result.error();
}

}  // namespace qkv::testing
