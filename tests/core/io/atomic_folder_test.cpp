// A folder written as a whole (the npy export): the folder at the path is either the earlier
// one, byte for byte, or the complete new one, whatever fails and whenever a signal comes.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "core/io/atomic_file.hpp"
#include "core/io/atomic_folder.hpp"
#include "core/io/file_kind_support.hpp"
#include "core/io/io_test_support.hpp"
#include "core/io/temporary_files.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

bool exportEntry(std::string_view name) { return name == "meta.json" || name.ends_with(".npy"); }

// Every file of a folder with its contents: equal snapshots mean "exactly as it was".
std::map<std::string, std::string> snapshot(const std::string& folder)
{
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::directory_iterator(folder)) {
        std::ifstream in(entry.path(), std::ios::binary);
        files[entry.path().filename().string()] = {std::istreambuf_iterator<char>(in), {}};
    }
    return files;
}

void writeText(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Writes `name` into the folder through AtomicFile, as the export does.
void addFile(AtomicFolder& folder, const std::string& name, const std::string& text)
{
    AtomicFile file;
    ASSERT_TRUE(file.open(folder.pathOf(name)).ok());
    file.write(text);
    ASSERT_TRUE(file.commit().ok());
    folder.added(name);
}

class AtomicFolderTest : public ::testing::TestWithParam<AtomicFolder::Swap> {
protected:
    // An earlier export: two arrays and its meta.json, in a folder with its own permissions.
    void makeEarlierExport()
    {
        fs::create_directories(out());
        writeText(out() + "/a.npy", "earlier a");
        writeText(out() + "/old_only.npy", "earlier only");
        writeText(out() + "/meta.json", "earlier meta");
        fs::permissions(out(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
    }
    std::string out() const { return dir.file("arrays"); }

    ScratchDir dir;
};

TEST_P(AtomicFolderTest, ReplacesAnEarlierExportWhole)
{
    makeEarlierExport();
    AtomicFolder folder;
    ASSERT_TRUE(folder.open(out(), exportEntry, GetParam()).ok());
    addFile(folder, "a.npy", "new a");
    addFile(folder, "meta.json", "new meta");
    ASSERT_TRUE(folder.commit().ok());
    EXPECT_EQ(snapshot(out()), (std::map<std::string, std::string>{{"a.npy", "new a"}, {"meta.json", "new meta"}}));
    EXPECT_EQ(testing::permissionBits(out()), 0750u);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"arrays"});  // no temporary or old folder beside it
}

TEST_P(AtomicFolderTest, AFailureAtAnyPointLeavesTheEarlierFolderExactlyAsItWas)
{
    makeEarlierExport();
    const auto earlier = snapshot(out());
    for (int filesWritten = 0; filesWritten <= 2; ++filesWritten) {
        {
            AtomicFolder folder;
            ASSERT_TRUE(folder.open(out(), exportEntry, GetParam()).ok());
            if (filesWritten >= 1) addFile(folder, "a.npy", "new a");
            if (filesWritten >= 2) addFile(folder, "meta.json", "new meta");
            // The export fails here (a write error): the folder is dropped without commit().
        }
        EXPECT_EQ(snapshot(out()), earlier) << filesWritten;
        EXPECT_EQ(dir.entries(), std::vector<std::string>{"arrays"}) << filesWritten;
    }
}

TEST_P(AtomicFolderTest, ASignalWhileWritingRemovesTheNewFolderAndKeepsTheEarlierOne)
{
    makeEarlierExport();
    const auto earlier = snapshot(out());
    AtomicFolder folder;
    ASSERT_TRUE(folder.open(out(), exportEntry, GetParam()).ok());
    addFile(folder, "a.npy", "new a");
    AtomicFile half;  // a file being written when the signal comes
    ASSERT_TRUE(half.open(folder.pathOf("b.npy")).ok());
    half.write("half");
    removeRegisteredTemporaries();  // what the SIGINT/SIGTERM handler does
    EXPECT_EQ(snapshot(out()), earlier);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"arrays"});
}

INSTANTIATE_TEST_SUITE_P(BothSwaps, AtomicFolderTest,
                         ::testing::Values(AtomicFolder::Swap::Exchange, AtomicFolder::Swap::MoveAside),
                         [](const auto& info) {
                             return std::string(info.param == AtomicFolder::Swap::Exchange ? "Exchange" : "MoveAside");
                         });

TEST(atomic_folder, CreatesAMissingFolderOnlyOnCommit)
{
    ScratchDir dir;
    AtomicFolder folder;
    ASSERT_TRUE(folder.open(dir.file("arrays/"), exportEntry).ok());  // a trailing slash is fine
    addFile(folder, "a.npy", "a");
    EXPECT_FALSE(fs::exists(dir.file("arrays")));
    ASSERT_TRUE(folder.commit().ok());
    EXPECT_EQ(snapshot(dir.file("arrays")), (std::map<std::string, std::string>{{"a.npy", "a"}}));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"arrays"});
}

TEST(atomic_folder, RefusesAFolderHoldingAnythingAnExportDidNotWrite)
{
    ScratchDir dir;
    fs::create_directories(dir.file("home/photos"));
    writeText(dir.file("home/a.npy"), "a");
    fs::create_directories(dir.file("notes"));
    writeText(dir.file("notes/notes.txt"), "mine");
    AtomicFolder folder;
    const Status home = folder.open(dir.file("home"), exportEntry);
    ASSERT_FALSE(home.ok());
    EXPECT_EQ(home.error(), "cannot write '" + dir.file("home") +
                                "': the folder holds a folder 'photos', which an earlier export did not write; "
                                "choose a new or empty folder (nothing was changed)");
    const Status notes = AtomicFolder::check(dir.file("notes"), exportEntry);
    ASSERT_FALSE(notes.ok());
    EXPECT_NE(notes.error().find("holds 'notes.txt'"), std::string::npos) << notes.error();
    EXPECT_TRUE(fs::exists(dir.file("home/photos")));
    EXPECT_EQ(dir.entries().size(), 2u);

    // A regular file, a FIFO or a device where the folder should be.
    writeText(dir.file("file"), "x");
    EXPECT_NE(AtomicFolder::check(dir.file("file"), exportEntry).error().find("it exists and is not a folder"),
              std::string::npos);
    testing::makeFifo(dir.file("pipe"));
    EXPECT_NE(AtomicFolder::check(dir.file("pipe"), exportEntry).error().find("it is a FIFO (named pipe), not a folder"),
              std::string::npos);
    EXPECT_NE(AtomicFolder::check("/dev/null", exportEntry).error().find("it is a device, not a folder"), std::string::npos);
}

TEST(atomic_folder, ALinkToAFolderIsKeptAndItsFolderReplaced)
{
    ScratchDir dir;
    fs::create_directories(dir.file("runs/1"));
    writeText(dir.file("runs/1/a.npy"), "earlier");
    fs::create_symlink("runs/1", dir.file("latest"));
    AtomicFolder folder;
    ASSERT_TRUE(folder.open(dir.file("latest"), exportEntry).ok());
    addFile(folder, "a.npy", "new");
    ASSERT_TRUE(folder.commit().ok());
    EXPECT_TRUE(fs::is_symlink(dir.file("latest")));
    EXPECT_EQ(snapshot(dir.file("runs/1")), (std::map<std::string, std::string>{{"a.npy", "new"}}));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.file("runs")), fs::directory_iterator{}), 1);
}

TEST(atomic_folder, MessagesNameThePathGivenNotTheTemporaryFolder)
{
    ScratchDir dir;
    AtomicFolder folder;
    ASSERT_TRUE(folder.open(dir.file("arrays"), exportEntry).ok());
    const std::string message = "cannot write '" + folder.pathOf("W_Q.npy") + "': No space left on device";
    EXPECT_EQ(folder.inTermsOfPath(message), "cannot write '" + dir.file("arrays") + "/W_Q.npy': No space left on device");
}

}  // namespace
}  // namespace qkv
