// The user's sentence pairs: a TSV file read without surprises, every bad input an error naming
// the file and line, and a deterministic split into training and held-out pairs.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "core/common/random.hpp"
#include "core/training/sentence_pairs_file.hpp"
#include "core/training/tasks.hpp"
#include "support/test_paths.hpp"
#include "support/test_folder.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

const fs::path fixture = fs::path(qkv::testDataDir()) / "training" / "pairs_en_fr.tsv";

class SentencePairsFile : public ::testing::Test {
protected:
    fs::path write(const std::string& name, const std::string& text)
    {
        const fs::path path = folder_ / name;
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }
    // The error reading `path` gives ("" when it reads).
    static std::string errorOf(const fs::path& path)
    {
        const Expected<std::vector<SentencePairLine>> pairs = readSentencePairs(path);
        return pairs.ok() ? std::string() : pairs.error();
    }

    TestFolder scratch_{"pairs"};
    fs::path folder_ = scratch_.path();
};

TEST_F(SentencePairsFile, ReadsPairsSkippingCommentsBlankLinesAndExtraColumns)
{
    const Expected<std::vector<SentencePairLine>> pairs = readSentencePairs(fixture);
    ASSERT_TRUE(pairs.ok()) << pairs.error();
    ASSERT_EQ(pairs->size(), 12u);
    const SentencePairLine& first = pairs->front();
    EXPECT_EQ(first.line, 4u);
    EXPECT_EQ(first.source, (std::vector<std::string>{"the", "cat", "sleeps"}));
    EXPECT_EQ(first.target, (std::vector<std::string>{"le", "chat", "dort"}));
    EXPECT_EQ((*pairs)[1].target.back(), "dort") << "a CRLF line end is not part of the last word";
    EXPECT_EQ((*pairs)[2].target, (std::vector<std::string>{"le", "chat", "noir"})) << "the third column is ignored";
    EXPECT_EQ((*pairs)[4].line, 9u);
    EXPECT_EQ(pairs->back().source, (std::vector<std::string>{"Paris", "sleeps"})) << "words keep their case";
}

TEST_F(SentencePairsFile, BadFilesAreErrorsNamingTheFile)
{
    const fs::path missing = folder_ / "missing.tsv";
    EXPECT_NE(errorOf(missing).find(missing.string() + ": does not exist"), std::string::npos) << errorOf(missing);
    EXPECT_NE(errorOf(folder_).find(folder_.string()), std::string::npos);
    EXPECT_NE(errorOf(folder_).find("folder"), std::string::npos) << errorOf(folder_);
    EXPECT_NE(errorOf("").find("no file name given for sentence pairs"), std::string::npos) << errorOf("");

    // A FIFO with no writer would block an ordinary open forever.
    const fs::path fifo = folder_ / "pairs.fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_NE(errorOf(fifo).find("FIFO"), std::string::npos) << errorOf(fifo);

    const fs::path large = write("large.tsv", "a\tb\n");
    fs::resize_file(large, maxSentencePairsFileBytes + 1);
    EXPECT_NE(errorOf(large).find("is too large for sentence pairs (16777217 bytes; the limit is 16777216)"),
              std::string::npos)
        << errorOf(large);
}

TEST_F(SentencePairsFile, BadLinesAreErrorsNamingFileAndLine)
{
    const auto errorIn = [this](const std::string& text) {
        const fs::path path = write("bad.tsv", text);
        const std::string error = errorOf(path);
        const std::string prefix = path.string() + ":";
        EXPECT_EQ(error.rfind(prefix, 0), 0u) << error;
        return error.substr(std::min(error.size(), prefix.size()));
    };
    EXPECT_EQ(errorIn("a\tb\n\xff\xfe\tc\n"), "2: is not UTF-8 text (byte 4 of the file)");
    EXPECT_EQ(errorIn("# pairs\na b c\n"),
              "2: no TAB between the source and the target sentence (one pair per line: source TAB target)");
    EXPECT_EQ(errorIn("a\tb\n \t le chat\n"), "2: the source sentence is empty");
    EXPECT_EQ(errorIn("a\tb\nthe cat\t  \n"), "2: the target sentence is empty");
    EXPECT_EQ(errorIn("a\tb\nthe cat\t\tle chat\n"), "2: the target sentence is empty");
    std::string longSide;
    for (int i = 0; i < 65; ++i) longSide += "w ";
    EXPECT_EQ(errorIn("x\t" + longSide + "\n"), "1: the target sentence has 65 words; at most 64 are allowed");
    std::string manyLines;
    for (int i = 0; i < 100001; ++i) manyLines += "#\n";
    EXPECT_EQ(errorIn(manyLines), "100001: more than 100000 lines");
    EXPECT_EQ(errorIn("# only a comment\n\n"), " has no sentence pairs (one pair per line: source TAB target)");
}

TEST_F(SentencePairsFile, SixtyFourWordsAndOneHundredThousandLinesAreAllowed)
{
    std::string side;
    for (int i = 0; i < 64; ++i) side += "w" + std::to_string(i) + " ";
    std::string text = side + "\t" + side + "\n";
    for (int i = 1; i < 100000; ++i) text += "\n";
    const Expected<std::vector<SentencePairLine>> pairs = readSentencePairs(write("edge.tsv", text));
    ASSERT_TRUE(pairs.ok()) << pairs.error();
    EXPECT_EQ(pairs->front().source.size(), 64u);
}

// Any bytes at all: an error or pairs that keep the rules, never a crash.
TEST(SentencePairsText, RandomBytesGiveErrorsOrValidPairs)
{
    SplitMix64 random(17);
    // Every other text only from characters that are valid UTF-8 on their own, so that many
    // texts get past the encoding check to the lines.
    const std::string valid = std::string("aab  \t\t\n\n\r#") + std::string(1, '\0');
    const std::string any = valid + "\xc3\xa9\xff\x80";
    int read = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        const std::string& alphabet = trial % 2 == 0 ? valid : any;
        std::string text;
        const auto length = static_cast<std::size_t>(random.uniform(0.0, 120.0));
        for (std::size_t i = 0; i < length; ++i)
            text += alphabet[static_cast<std::size_t>(random.uniform(0.0, static_cast<double>(alphabet.size())))];
        const Expected<std::vector<SentencePairLine>> pairs = parseSentencePairs(text, "random.tsv");
        if (!pairs.ok()) {
            EXPECT_EQ(pairs.error().rfind("random.tsv", 0), 0u) << pairs.error();
            continue;
        }
        ++read;
        for (const SentencePairLine& pair : *pairs) {
            EXPECT_FALSE(pair.source.empty());
            EXPECT_FALSE(pair.target.empty());
            EXPECT_LE(pair.source.size(), maxSentencePairWords);
            for (const std::string& word : pair.source) EXPECT_EQ(word.find_first_of(" \t\n\r"), std::string::npos);
        }
    }
    EXPECT_GT(read, 10) << "some random texts are valid pairs";
}

TEST(SameWordAlignment, AlignsWordsThatOccurOnceOnEachSide)
{
    const std::vector<std::string> source{"Paris", "is", "in", "France", "in", "May"};
    const std::vector<std::string> target{"Paris", "est", "en", "France", "en", "May", "Paris"};
    EXPECT_EQ(sameWordAlignment(source, target), (std::vector<std::int32_t>{-1, -1, -1, 3, -1, 5, -1}));
    EXPECT_EQ(sameWordAlignment({"a", "b"}, {"b", "a"}), (std::vector<std::int32_t>{1, 0}));
}

TaskSettings pairsTask(const fs::path& file, std::uint64_t seed = 1)
{
    TaskSettings settings;
    settings.kind = TaskKind::Translate;
    settings.pairsFile = file;
    settings.seed = seed;
    return settings;
}

TEST_F(SentencePairsFile, SplitsTheDistinctPairsIntoTrainingAndHeldOut)
{
    const Expected<TaskData> data = TaskData::create(pairsTask(fixture));
    ASSERT_TRUE(data.ok()) << data.error();
    EXPECT_EQ(data->heldOut().size(), 1u) << "11 distinct pairs: 10% rounds to 1";
    EXPECT_EQ(data->description(), "translate pairs_en_fr.tsv (11 pairs, 1 held out)");
    EXPECT_EQ(data->maxSequenceLength(), 6) << "<bos> un chat voit un chien";
    EXPECT_EQ(data->vocabulary().token(3), "the");
    const SequencePair& heldOut = data->heldOut().front().ids;
    std::set<std::vector<std::int32_t>> training;
    for (std::uint64_t i = 0; i < 500; ++i) {
        const TaskExample example = data->trainingExample(i);
        EXPECT_FALSE(example.ids.source == heldOut.source && example.ids.targetInput == heldOut.targetInput);
        training.insert(example.ids.targetInput);
    }
    EXPECT_EQ(training.size(), 10u) << "every training pair is drawn";

    // "Paris sleeps" -> "Paris dort": Paris aligns, the rest is unknown.
    bool sawParis = false;
    for (std::uint64_t i = 0; i < 500 && !sawParis; ++i) {
        const TaskExample example = data->trainingExample(i);
        if (data->vocabulary().token(example.ids.source[0]) != "Paris") continue;
        sawParis = true;
        EXPECT_EQ(example.alignment, (std::vector<std::int32_t>{0, -1, -1}));
    }
    const bool parisHeldOut = data->vocabulary().token(heldOut.source[0]) == "Paris";
    EXPECT_TRUE(sawParis || parisHeldOut);
}

TEST_F(SentencePairsFile, TheSplitIsDeterministicAndHoldsOutATenth)
{
    std::string text;
    for (int i = 0; i < 1000; ++i) text += "source " + std::to_string(i) + "\ttarget " + std::to_string(i) + "\n";
    const fs::path path = write("thousand.tsv", text);
    const Expected<TaskData> a = TaskData::create(pairsTask(path, 3));
    const Expected<TaskData> b = TaskData::create(pairsTask(path, 3));
    const Expected<TaskData> c = TaskData::create(pairsTask(path, 4));
    ASSERT_TRUE(a.ok() && b.ok() && c.ok());
    ASSERT_EQ(a->heldOut().size(), 100u);
    std::set<std::vector<std::int32_t>> heldOut;
    for (std::size_t i = 0; i < 100; ++i) {
        EXPECT_EQ(a->heldOut()[i].ids.source, b->heldOut()[i].ids.source);
        heldOut.insert(a->heldOut()[i].ids.source);
    }
    int sameInC = 0;
    for (const TaskExample& example : c->heldOut()) sameInC += heldOut.contains(example.ids.source);
    EXPECT_LT(sameInC, 40) << "another seed holds out other pairs";
    for (std::uint64_t i = 0; i < 3000; ++i) {
        EXPECT_EQ(a->trainingExample(i).ids.source, b->trainingExample(i).ids.source);
        ASSERT_FALSE(heldOut.contains(a->trainingExample(i).ids.source));
    }

    TaskSettings capped = pairsTask(path, 3);
    capped.heldOutCount = 30;
    EXPECT_EQ(TaskData::create(capped)->heldOut().size(), 30u) << "at most heldOutCount";
}

TEST_F(SentencePairsFile, NeedsTwoDifferentPairs)
{
    const Expected<TaskData> data = TaskData::create(pairsTask(write("one.tsv", "a b\tc d\na b\tc d\n")));
    ASSERT_FALSE(data.ok());
    EXPECT_NE(data.error().find("needs at least two different sentence pairs"), std::string::npos) << data.error();
    const Expected<TaskData> two = TaskData::create(pairsTask(write("two.tsv", "a b\tc d\na b\tc e\n")));
    ASSERT_TRUE(two.ok()) << two.error();
    EXPECT_EQ(two->heldOut().size(), 1u);
}

TEST_F(SentencePairsFile, ATaskFromABadFileNamesTheFileAndLine)
{
    const fs::path path = write("bad.tsv", "a\tb\nno tab here\n");
    const Expected<TaskData> data = TaskData::create(pairsTask(path));
    ASSERT_FALSE(data.ok());
    EXPECT_EQ(data.error().rfind(path.string() + ":2: no TAB", 0), 0u) << data.error();
}

}  // namespace
}  // namespace qkv
