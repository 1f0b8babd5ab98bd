// pathExists (core/common/path_exists.hpp): the readers' one question before opening an optional file.

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "core/common/path_exists.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

TEST(PathExists, FilesAndFoldersThatAreThereAndThatAreNot)
{
    const fs::path folder = fs::temp_directory_path() / ("qkv-path-exists-" + std::to_string(::getpid()));
    fs::remove_all(folder);
    EXPECT_FALSE(pathExists(folder));
    fs::create_directories(folder);
    EXPECT_TRUE(pathExists(folder));
    std::ofstream(folder / "vocab.txt") << "[PAD]\n";
    EXPECT_TRUE(pathExists(folder / "vocab.txt"));
    EXPECT_FALSE(pathExists(folder / "merges.txt"));
    // A file taken for a folder on the way: no, and no exception.
    EXPECT_FALSE(pathExists(folder / "vocab.txt" / "merges.txt"));
    EXPECT_FALSE(pathExists(""));
    fs::remove_all(folder);
}

}  // namespace
}  // namespace qkv
