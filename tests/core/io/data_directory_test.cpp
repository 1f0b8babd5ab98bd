// The data folder is found beside the executable by the install layout's relative path, or named
// by QKV_STUDIO_DATA_DIR.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/io/data_directory.hpp"

namespace {

namespace fs = std::filesystem;

TEST(DataDirectory, IsTheInstallLayoutsPathFromTheExecutablesFolder)
{
    const fs::path relative = qkv::dataDirectoryFromExecutable();
    EXPECT_EQ(relative.filename(), "qkv-studio");
    EXPECT_FALSE(relative.is_absolute());
    // GNUInstallDirs' usual layout: bin/ and share/ side by side.
    EXPECT_EQ(qkv::dataDirectoryFor("/usr/bin/qkv-studio", nullptr), (fs::path("/usr/bin") / relative).lexically_normal());
    EXPECT_EQ(qkv::dataDirectoryFor("/opt/qkv/bin/qkv-studio", ""), (fs::path("/opt/qkv/bin") / relative).lexically_normal());
}

TEST(DataDirectory, TheEnvironmentNamesAnotherFolder)
{
    EXPECT_EQ(qkv::dataDirectoryFor("/usr/bin/qkv-studio", "/srv/lab/qkv-data"), fs::path("/srv/lab/qkv-data"));
}

TEST(DataDirectory, ThisProcessFollowsTheEnvironment)
{
    const char* before = std::getenv("QKV_STUDIO_DATA_DIR");
    const std::string saved = before ? before : "";
    ::setenv("QKV_STUDIO_DATA_DIR", "/srv/lab/qkv-data", 1);
    EXPECT_EQ(qkv::dataDirectory(), fs::path("/srv/lab/qkv-data"));
    EXPECT_EQ(qkv::dataDirectoryOrigin(), "named by QKV_STUDIO_DATA_DIR");
    EXPECT_EQ(qkv::examplesDirectory(), fs::path("/srv/lab/qkv-data/examples"));
    ::unsetenv("QKV_STUDIO_DATA_DIR");
    // This test program is not installed: beside it is where an installed one would look.
    EXPECT_EQ(qkv::dataDirectory(),
              (fs::read_symlink("/proc/self/exe").parent_path() / qkv::dataDirectoryFromExecutable()).lexically_normal());
    EXPECT_EQ(qkv::dataDirectoryOrigin(), "beside the executable");
    if (before) ::setenv("QKV_STUDIO_DATA_DIR", saved.c_str(), 1);
}

}  // namespace
