#pragma once
// Running `qkv-studio` as a user would: through the shell (for a whole command line) or as a
// child process of its own (to send it signals), with a scratch folder per test.

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "support/test_paths.hpp"

extern char** environ;

namespace qkv::testing {

struct CommandRun {
    int status = -1;     // exit status, or -1 when the process did not exit normally
    std::string output;  // stdout and stderr together
};

inline std::string quote(const std::string& argument)
{
    std::string quoted = "'";
    for (char c : argument) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// `program` and its arguments through the shell, quoted; stdout and stderr read together.
inline CommandRun runProgram(const std::string& program, const std::vector<std::string>& arguments,
                             const std::string& environment = "")
{
    std::string command = environment;
    command += ' ';
    command += quote(program);
    for (const std::string& argument : arguments) command += " " + quote(argument);
    command += " 2>&1";
    CommandRun result;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) return result;
    std::array<char, 4096> buffer{};
    while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) result.output.append(buffer.data(), n);
    const int status = ::pclose(pipe);
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

// `environment` goes before the executable on the shell's command line ("env -u DISPLAY",
// "timeout 20", "ulimit -f 100;" ...).
inline CommandRun run(const std::vector<std::string>& arguments, const std::string& environment = "")
{
    return runProgram(qkv::studioExecutable(), arguments, environment);
}

// The executable as a child of this process (output discarded), for tests that signal it.
inline pid_t spawn(const std::vector<std::string>& arguments)
{
    std::vector<std::string> all{qkv::studioExecutable()};
    all.insert(all.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& argument : all) argv.push_back(argument.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&actions);
    return pid;
}

class ExportCli : public ::testing::Test {
protected:
    void SetUp() override
    {
        // The process id too: two checkouts' suites may run the same test at once on one machine.
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        directory_ = std::filesystem::temp_directory_path() / ("qkv_cli_" + std::string(info->test_suite_name()) + "_" +
                                                               info->name() + "_" + std::to_string(::getpid()));
        std::filesystem::remove_all(directory_);
        std::filesystem::create_directories(directory_);
    }
    void TearDown() override { std::filesystem::remove_all(directory_); }
    std::string path(const std::string& name) const { return (directory_ / name).string(); }

    std::filesystem::path directory_;
};

inline nlohmann::json readJson(const std::string& path)
{
    std::ifstream file(path);
    return nlohmann::json::parse(file);
}

}  // namespace qkv::testing
