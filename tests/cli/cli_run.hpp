#pragma once
// Runs the qkv-studio executable as a user would (through the shell), for the CLI tests.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

namespace qkv::testing {

struct CommandRun {
    int status = -1;
    std::string output;  // stdout and stderr together
};

inline std::string quote(const std::string& argument)
{
    std::string quoted = "'";
    for (char c : argument) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// `environment` is a shell prefix, e.g. "env -u DISPLAY".
inline CommandRun run(const std::vector<std::string>& arguments, const std::string& environment = "")
{
    std::string command = environment;
    command += ' ';
    command += quote(QKV_STUDIO_EXECUTABLE);
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

}  // namespace qkv::testing
