// No file is ever lost, and no read ever blocks: every reader refuses
// what is not a regular file before reading it, with a message that names the path and says
// what is there; the atomic writer replaces only regular files, and its temporaries go away on
// failure and on a signal.

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/io/atomic_file.hpp"
#include "core/io/file_bytes.hpp"
#include "core/io/file_kind_support.hpp"
#include "core/io/io_test_support.hpp"
#include "core/io/npy.hpp"
#include "core/io/regular_file.hpp"
#include "core/io/safetensors.hpp"
#include "core/io/temporary_files.hpp"
#include "core/io/weights_file.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeText(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Every path reader, for the cases that all of them must refuse the same way.
std::vector<std::pair<const char*, std::function<std::string(const std::string&)>>> pathReaders()
{
    const auto error = [](auto result) { return result.ok() ? std::string() : result.error(); };
    return {
        {"readFileBytes", [=](const std::string& p) { return error(readFileBytes(p)); }},
        {"readSafetensors", [=](const std::string& p) { return error(readSafetensors(p)); }},
        {"readNpy", [=](const std::string& p) { return error(readNpy(p)); }},
        {"loadAttentionWeights", [=](const std::string& p) { return error(loadAttentionWeights(p)); }},
        {"loadEmbeddingMatrix", [=](const std::string& p) { return error(loadEmbeddingMatrix(p)); }},
    };
}

TEST(file_safety, ReadersRefuseAFifoAtOnceNamingIt)
{
    ScratchDir dir;
    const std::string fifo = dir.file("pipe");
    testing::makeFifo(fifo);
    for (const auto& [name, read] : pathReaders()) {
        const std::string error = testing::readWithoutBlocking(fifo, [&] { return read(fifo); });
        EXPECT_EQ(error, fifo + ": is a FIFO (named pipe), not a regular file") << name;
    }
    // Through a symbolic link too.
    fs::create_symlink(fifo, dir.file("link"));
    const std::string viaLink =
        testing::readWithoutBlocking(fifo, [&] { return readFileBytes(dir.file("link")).error(); });
    EXPECT_EQ(viaLink, dir.file("link") + ": is a FIFO (named pipe), not a regular file");
}

TEST(file_safety, ReadersRefuseDevicesSocketsFoldersAndMissingFiles)
{
    ScratchDir dir;
    testing::BoundSocket socket(dir.file("s"));
    fs::create_directories(dir.file("folder"));
    for (const auto& [name, read] : pathReaders()) {
        // /dev/zero would otherwise be read until the size limit ("too short" was the old answer).
        EXPECT_EQ(read("/dev/zero"), "/dev/zero: is a device, not a regular file") << name;
        EXPECT_EQ(read("/dev/null"), "/dev/null: is a device, not a regular file") << name;
        EXPECT_EQ(read(dir.file("s")), dir.file("s") + ": is a socket, not a regular file") << name;
        EXPECT_EQ(read(dir.file("folder")), dir.file("folder") + ": is a folder, not a file") << name;
        EXPECT_EQ(read(dir.file("none")), dir.file("none") + ": does not exist") << name;
        EXPECT_EQ(read(""), "no file name given") << name;
    }
}

TEST(file_safety, EmptyAndShortSafetensorsFilesAreToldApart)
{
    ScratchDir dir;
    writeText(dir.file("empty.safetensors"), "");
    writeText(dir.file("five.safetensors"), "12345");
    EXPECT_EQ(readSafetensors(dir.file("empty.safetensors")).error(), dir.file("empty.safetensors") + ": is empty");
    EXPECT_EQ(readSafetensors(dir.file("five.safetensors")).error(),
              dir.file("five.safetensors") + ": is too short: 5 bytes, a safetensors file needs at least 8");
    EXPECT_NE(loadAttentionWeights(dir.file("empty.safetensors")).error().find(": is empty"), std::string::npos);
}

TEST(file_safety, ReadsFollowLinksToRegularFiles)
{
    ScratchDir dir;
    ASSERT_TRUE(writeNpy(dir.file("m.npy"), MatrixF::Constant(2, 3, 1.5f)).ok());
    fs::create_symlink("m.npy", dir.file("link.npy"));  // relative, as people make them
    const Expected<MatrixF> m = readNpyMatrix(dir.file("link.npy"));
    ASSERT_TRUE(m.ok()) << m.error();
    EXPECT_EQ(m->cols(), 3);
}

TEST(file_safety, WriterRefusesEverythingButRegularFilesAndLeavesThemAsTheyWere)
{
    ScratchDir dir;
    const std::string fifo = dir.file("pipe");
    testing::makeFifo(fifo);
    testing::BoundSocket socket(dir.file("s"));
    fs::create_directories(dir.file("folder"));
    const struct {
        std::string path, expected;
    } cases[] = {
        {fifo, "cannot write '" + fifo + "': it is a FIFO (named pipe), not a regular file"},
        {dir.file("s"), "cannot write '" + dir.file("s") + "': it is a socket, not a regular file"},
        {dir.file("folder"), "cannot write '" + dir.file("folder") + "': it is a folder"},
        // Refused by open(), before any temporary exists: the device node is never at risk.
        {"/dev/null", "cannot write '/dev/null': it is a device, not a regular file"},
        {"", "no output path given"},
    };
    for (const auto& c : cases) {
        AtomicFile file;
        const Status opened = file.open(c.path);
        ASSERT_FALSE(opened.ok()) << c.path;
        EXPECT_EQ(opened.error(), c.expected);
        EXPECT_FALSE(writeNpy(c.path, MatrixF::Zero(1, 1)).ok()) << c.path;
    }
    EXPECT_TRUE(testing::isFifo(fifo));
    EXPECT_TRUE(testing::isCharacterDevice("/dev/null"));
    EXPECT_EQ(dir.entries().size(), 3u);  // pipe, s, folder: no temporary left
}

TEST(file_safety, WritingThroughASymbolicLinkKeepsTheLinkAndReplacesItsFile)
{
    ScratchDir dir;
    fs::create_directories(dir.file("runs"));
    writeText(dir.file("runs/42.json"), "old");
    fs::create_symlink("runs/42.json", dir.file("latest.json"));
    AtomicFile file;
    ASSERT_TRUE(file.open(dir.file("latest.json")).ok());
    file.write("new");
    ASSERT_TRUE(file.commit().ok());
    EXPECT_TRUE(fs::is_symlink(dir.file("latest.json")));
    EXPECT_EQ(readText(dir.file("runs/42.json")), "new");
    EXPECT_EQ(fs::directory_iterator(dir.file("runs"))->path().filename(), "42.json");  // no temporary left

    // A dangling link: the file it names is created, as a shell's '>' would.
    fs::create_symlink("runs/43.json", dir.file("next.json"));
    ASSERT_TRUE(writeNpy(dir.file("next.json"), MatrixF::Zero(1, 1)).ok());
    EXPECT_TRUE(fs::is_symlink(dir.file("next.json")));
    EXPECT_TRUE(fs::is_regular_file(dir.file("runs/43.json")));

    // A link to what is not a regular file, and a loop, are refused.
    testing::makeFifo(dir.file("pipe"));
    fs::create_symlink(dir.file("pipe"), dir.file("to-pipe"));
    EXPECT_EQ(writeNpy(dir.file("to-pipe"), MatrixF::Zero(1, 1)).error(),
              "cannot write '" + dir.file("to-pipe") + "': it is a symbolic link to '" + dir.file("pipe") +
                  "', which is a FIFO (named pipe), not a regular file");
    fs::create_symlink(dir.file("loop-b"), dir.file("loop-a"));
    fs::create_symlink(dir.file("loop-a"), dir.file("loop-b"));
    EXPECT_NE(writeNpy(dir.file("loop-a"), MatrixF::Zero(1, 1)).error().find("loop of symbolic links"),
              std::string::npos);
    EXPECT_TRUE(testing::isFifo(dir.file("pipe")));
}

TEST(file_safety, AReplacedFileKeepsItsPermissions)
{
    ScratchDir dir;
    writeText(dir.file("private.json"), "secret");
    fs::permissions(dir.file("private.json"), fs::perms::owner_read | fs::perms::owner_write);
    AtomicFile file;
    ASSERT_TRUE(file.open(dir.file("private.json")).ok());
    file.write("still secret");
    ASSERT_TRUE(file.commit().ok());
    EXPECT_EQ(testing::permissionBits(dir.file("private.json")), 0600u);
}

TEST(file_safety, ASignalRemovesTheTemporaryAndKeepsTheEarlierFile)
{
    ScratchDir dir;
    writeText(dir.file("a.json"), "earlier");
    const int before = registeredTemporaryCount();
    {
        AtomicFile file;
        ASSERT_TRUE(file.open(dir.file("a.json")).ok());
        file.write("half of the new");
        EXPECT_EQ(registeredTemporaryCount(), before + 1);
        EXPECT_EQ(dir.entries().size(), 2u);  // a.json and its temporary
        removeRegisteredTemporaries();        // what the SIGINT/SIGTERM handler does
        EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.json"});
        EXPECT_EQ(registeredTemporaryCount(), before);
    }
    EXPECT_EQ(readText(dir.file("a.json")), "earlier");

    // A committed file is no longer a temporary: a later signal leaves it alone.
    AtomicFile file;
    ASSERT_TRUE(file.open(dir.file("b.json")).ok());
    file.write("done");
    ASSERT_TRUE(file.commit().ok());
    EXPECT_EQ(registeredTemporaryCount(), before);
    removeRegisteredTemporaries();
    EXPECT_EQ(readText(dir.file("b.json")), "done");
}

}  // namespace
}  // namespace qkv
