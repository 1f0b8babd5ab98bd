#pragma once
// A folder of the running test's own under the system's temporary folder,
// "qkv_<purpose>_<pid>_<test name>", empty when made and removed with the object: tests that write
// files never share one, even when ctest runs them at once.

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

namespace qkv {

class TestFolder {
public:
    explicit TestFolder(const std::string& purpose)
        : path_(std::filesystem::temp_directory_path() /
                ("qkv_" + purpose + "_" + std::to_string(::getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name()))
    {
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TestFolder()
    {
        std::error_code ignored;  // a test that failed half-way may have left anything there
        std::filesystem::remove_all(path_, ignored);
    }
    TestFolder(const TestFolder&) = delete;
    TestFolder& operator=(const TestFolder&) = delete;

    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace qkv
