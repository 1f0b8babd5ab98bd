// Hostile arguments to `qkv-studio export`: no file is ever lost, no read
// ever blocks, and an interrupted export leaves nothing behind.

#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "cli/cli_support.hpp"

namespace qkv {
namespace {

using testing::CommandRun;
using testing::ExportCli;
using testing::run;
namespace fs = std::filesystem;

bool isCharacterDevice(const std::string& path)
{
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0 && S_ISCHR(info.st_mode);
}

bool isFifo(const std::string& path)
{
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0 && S_ISFIFO(info.st_mode);
}

// Every file of a folder with its bytes: equal snapshots mean "exactly as it was".
std::map<std::string, std::string> snapshot(const std::string& folder)
{
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::directory_iterator(folder)) {
        std::ifstream in(entry.path(), std::ios::binary);
        files[entry.path().filename().string()] = {std::istreambuf_iterator<char>(in), {}};
    }
    return files;
}

std::vector<std::string> entries(const fs::path& folder)
{
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string words(int count)
{
    std::string text;
    for (int i = 0; i < count; ++i) text += "w" + std::to_string(i) + " ";
    return text;
}

TEST_F(ExportCli, EmptyPathsAreBadArgumentsNamingTheOption)
{
    for (const char* option : {"--weights", "--source-embeddings", "--target-embeddings", "--out"}) {
        std::vector<std::string> arguments{"export", "--format", "json", "--out", path("a.json"), option, ""};
        const CommandRun r = run(arguments);
        EXPECT_EQ(r.status, 2) << option << ": " << r.output;
        EXPECT_EQ(r.output, "qkv-studio export: " + std::string(option) + ": the path is empty\n");
    }
    EXPECT_TRUE(fs::is_empty(directory_));
}

TEST_F(ExportCli, InputsThatAreNotRegularFilesAreRefusedWithoutBlocking)
{
    ::mkfifo(path("pipe").c_str(), 0600);
    const struct {
        std::string option, file, expected;
    } cases[] = {
        {"--weights", path("pipe"), path("pipe") + ": is a FIFO (named pipe), not a regular file"},
        {"--source-embeddings", path("pipe"), path("pipe") + ": is a FIFO (named pipe), not a regular file"},
        {"--target-embeddings", path("pipe"), path("pipe") + ": is a FIFO (named pipe), not a regular file"},
        {"--weights", "/dev/zero", "/dev/zero: is a device, not a regular file"},  // once "too short"
        {"--weights", directory_.string(), directory_.string() + ": is a folder, not a file"},
    };
    for (const auto& c : cases) {
        // `timeout` turns a regression (fopen blocking on the FIFO) into a failure, not a hang.
        const CommandRun r =
            run({"export", c.option, c.file, "--format", "json", "--out", path("a.json")}, "timeout 20");
        EXPECT_EQ(r.status, 1) << c.option << " " << c.file << ": " << r.output;
        EXPECT_EQ(r.output, "qkv-studio export: " + c.expected + "\n");
    }
    EXPECT_FALSE(fs::exists(path("a.json")));
}

TEST_F(ExportCli, OutputsThatAreNotRegularFilesAreRefusedAndKept)
{
    ::mkfifo(path("pipe").c_str(), 0600);
    // /dev/null as root was once replaced by a regular file: the node must survive.
    CommandRun r = run({"export", "--format", "json", "--out", "/dev/null"}, "timeout 20");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_EQ(r.output, "qkv-studio export: cannot write '/dev/null': it is a device, not a regular file\n");
    EXPECT_TRUE(isCharacterDevice("/dev/null"));
    for (const char* format : {"json", "csv", "npy"}) {
        r = run({"export", "--format", format, "--out", path("pipe")}, "timeout 20");
        EXPECT_EQ(r.status, 1) << format << ": " << r.output;
        EXPECT_NE(r.output.find("it is a FIFO (named pipe), not a"), std::string::npos) << r.output;
        EXPECT_TRUE(isFifo(path("pipe")));
    }
    r = run({"export", "--format", "npy", "--out", "/dev/null"}, "timeout 20");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_TRUE(isCharacterDevice("/dev/null"));
    EXPECT_EQ(entries(directory_), std::vector<std::string>{"pipe"});
}

TEST_F(ExportCli, ASymbolicLinkOutIsKeptAndItsFileReplaced)
{
    fs::create_directories(path("runs"));
    {
        std::ofstream(path("runs/1.json")) << "earlier";
    }
    fs::create_symlink("runs/1.json", path("latest.json"));
    const CommandRun r = run({"export", "--format", "json", "--out", path("latest.json")});
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(fs::is_symlink(path("latest.json")));
    EXPECT_EQ(testing::readJson(path("runs/1.json")).at("format"), "qkv-studio-export");
    EXPECT_EQ(entries(path("runs")), std::vector<std::string>{"1.json"});
}

TEST_F(ExportCli, AFailedNpyExportLeavesTheEarlierFolderExactlyAsItWas)
{
    const std::vector<std::string> small{"export",   "--d-model", "256",   "--heads",     "4",
                                         "--format", "npy",       "--out", path("arrays")};
    ASSERT_EQ(run(small).status, 0);
    const auto earlier = snapshot(path("arrays"));
    ASSERT_EQ(earlier.size(), 14u);

    // A real write failure midway: files above 100 KiB fail (EFBIG), so the first W_*.npy
    // (256 KiB) fails after the smaller arrays of the new export have been written.
    std::vector<std::string> changed = small;
    changed.insert(changed.begin() + 1, {"--seed", "7"});
    const CommandRun r = run(changed, "trap '' XFSZ; ulimit -f 200;");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("cannot write '" + path("arrays") + "/W_"), std::string::npos) << r.output;
    EXPECT_EQ(snapshot(path("arrays")), earlier);
    EXPECT_EQ(entries(directory_), std::vector<std::string>{"arrays"});

    // The same export without the limit replaces it whole.
    ASSERT_EQ(run(changed).status, 0);
    EXPECT_NE(snapshot(path("arrays")), earlier);
    EXPECT_EQ(entries(directory_), std::vector<std::string>{"arrays"});
}

TEST_F(ExportCli, AnNpyExportNeverReplacesAFolderOfOtherFiles)
{
    fs::create_directories(path("mine"));
    {
        std::ofstream(path("mine/thesis.tex")) << "years of work";
    }
    const CommandRun r = run({"export", "--format", "npy", "--out", path("mine")});
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("the folder holds 'thesis.tex', which an earlier export did not write"), std::string::npos)
        << r.output;
    EXPECT_EQ(snapshot(path("mine")), (std::map<std::string, std::string>{{"thesis.tex", "years of work"}}));
    EXPECT_EQ(entries(directory_), std::vector<std::string>{"mine"});
}

// Starts a slow export, waits until its temporary appears in the test's folder, sends `signal`
// and returns the wait status.
int interruptOnceWriting(const std::vector<std::string>& arguments, const fs::path& folder, int signal)
{
    const pid_t pid = testing::spawn(arguments);
    EXPECT_GT(pid, 0);
    if (pid <= 0) return -1;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    bool writing = false;
    int status = 0;
    while (!writing && std::chrono::steady_clock::now() < deadline) {
        for (const auto& entry : fs::directory_iterator(folder))
            writing = writing || entry.path().filename().string().find(".tmp-") != std::string::npos;
        if (!writing) {
            if (::waitpid(pid, &status, WNOHANG) == pid) {
                ADD_FAILURE() << "the export ended before it was interrupted";
                return status;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    EXPECT_TRUE(writing) << "no temporary appeared";
    ::kill(pid, signal);
    ::waitpid(pid, &status, 0);
    return status;
}

TEST_F(ExportCli, SigintOrSigtermDuringAJsonExportRemovesTheTemporary)
{
    // ~350 MB of JSON text: seconds of writing.
    for (const int signal : {SIGINT, SIGTERM}) {
        const int status = interruptOnceWriting({"export", "--mode", "self", "--source", words(1024), "--heads", "16",
                                                 "--format", "json", "--out", path("a.json")},
                                                directory_, signal);
        // Ended by the signal itself, so a shell reports 128 + signal (130, 143).
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << status;
        EXPECT_TRUE(fs::is_empty(directory_)) << entries(directory_).front();
    }
}

TEST_F(ExportCli, SigtermDuringAnNpyExportLeavesTheEarlierExportAsItWas)
{
    const std::vector<std::string> slow{"export",  "--mode", "self",     "--source", words(2048), "--d-model",   "256",
                                        "--heads", "16",     "--format", "npy",      "--out",     path("arrays")};
    ASSERT_EQ(run({"export", "--format", "npy", "--out", path("arrays")}).status, 0);
    const auto earlier = snapshot(path("arrays"));
    for (const int signal : {SIGTERM, SIGINT}) {
        const int status = interruptOnceWriting(slow, directory_, signal);
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << status;
        EXPECT_EQ(entries(directory_), std::vector<std::string>{"arrays"});
        EXPECT_EQ(snapshot(path("arrays")), earlier);
    }
    // And into a new folder: nothing at all is left.
    fs::remove_all(path("arrays"));
    const int status = interruptOnceWriting(slow, directory_, SIGINT);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
    EXPECT_TRUE(fs::is_empty(directory_));
}

}  // namespace
}  // namespace qkv
