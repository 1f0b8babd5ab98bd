// Reading tokenizer files from disk: regular files only (a FIFO or a device is refused at once,
// never read or waited on), size caps, and finding a model's tokenizer beside its checkpoint.

#include <cctype>
#include <chrono>
#include <filesystem>
#include <future>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/io/file_bytes.hpp"
#include "core/io/io_test_support.hpp"
#include "core/text/subword_tokenizer.hpp"
#include "tokenizer_test_support.hpp"

namespace qkv {
namespace {

using testing::readText;
using testing::ScratchDir;
using testing::tokenizerFixture;

void writeText(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

TEST(RegularFile, AFifoIsRefusedWithoutBlocking)
{
    ScratchDir dir;
    const std::string fifo = dir.file("vocab.txt");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto pending = std::async(std::launch::async, [&] { return readFileBytes(fifo, 1 << 20, "a vocabulary"); });
    if (pending.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
        ADD_FAILURE() << "reading a FIFO blocked";
        const int writer = ::open(fifo.c_str(), O_WRONLY);  // lets the blocked reader see the end
        if (writer >= 0) ::close(writer);
    }
    auto result = pending.get();
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error(), fifo + ": is a FIFO (named pipe), not a regular file");
    // The loaders go through the same check.
    auto vocab = loadWordPieceVocab(fifo);
    ASSERT_FALSE(vocab.ok());
    EXPECT_NE(vocab.error().find("not a regular file"), std::string::npos);
}

TEST(RegularFile, DevicesFoldersAndMissingFilesAreRefused)
{
    for (const char* device : {"/dev/zero", "/dev/null", "/dev/urandom"}) {
        if (!std::filesystem::exists(device)) continue;
        auto result = readFileBytes(device, 1 << 20, "a vocabulary");
        ASSERT_FALSE(result.ok()) << device;
        EXPECT_NE(result.error().find("not a regular file"), std::string::npos) << result.error();
    }
    ScratchDir dir;
    EXPECT_NE(readFileBytes(dir.file(""), 10, "x").error().find("is a folder"), std::string::npos);
    EXPECT_EQ(readFileBytes(dir.file("missing.txt"), 10, "x").error(), dir.file("missing.txt") + ": does not exist");
    EXPECT_FALSE(readFileBytes("", 10, "a vocabulary").ok());
}

TEST(RegularFile, SizeCapIsStatedInTheMessage)
{
    ScratchDir dir;
    writeText(dir.file("big.txt"), std::string(101, 'x'));
    auto result = readFileBytes(dir.file("big.txt"), 100, "a vocabulary");
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error(), dir.file("big.txt") + ": is too large for a vocabulary (101 bytes; the limit is 100)");
    auto fits = readFileBytes(dir.file("big.txt"), 101, "a vocabulary");
    ASSERT_TRUE(fits.ok());
    EXPECT_EQ(fits->size(), 101u);
    // A symbolic link to a regular file is read.
    std::filesystem::create_symlink(dir.file("big.txt"), dir.file("link.txt"));
    EXPECT_TRUE(readFileBytes(dir.file("link.txt"), 101, "a vocabulary").ok());
}

TEST(SubwordTokenizerFolder, FindsWordPieceAndReadsItsCasing)
{
    ScratchDir dir;
    EXPECT_FALSE(hasSubwordTokenizerFiles(dir.file("")));
    auto none = loadSubwordTokenizer(dir.file(""));
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().find("no tokenizer files"), std::string::npos);

    // The fixture vocabulary has capitalised tokens: guessed cased.
    writeText(dir.file("vocab.txt"), readText(tokenizerFixture("wordpiece_vocab.txt")));
    EXPECT_TRUE(hasSubwordTokenizerFiles(dir.file("")));
    auto guessed = loadSubwordTokenizer(dir.file(""));
    ASSERT_TRUE(guessed.ok()) << guessed.error();
    ASSERT_TRUE(guessed->isWordPiece());
    EXPECT_FALSE(guessed->wordPiece()->options.lowerCase);
    EXPECT_NE(guessed->description().find("guessed"), std::string::npos);
    EXPECT_EQ(guessed->vocabularySize(), 201u);

    writeText(dir.file("tokenizer_config.json"),
              R"({"do_lower_case": true, "strip_accents": null, "model_max_length": 512})");
    auto configured = loadSubwordTokenizer(dir.file(""));
    ASSERT_TRUE(configured.ok()) << configured.error();
    EXPECT_TRUE(configured->wordPiece()->options.lowerCase);
    EXPECT_FALSE(configured->wordPiece()->options.stripAccents.has_value());
    EXPECT_NE(configured->description().find("tokenizer_config.json"), std::string::npos);
    auto tokens = configured->encode("The CAT sat.");
    ASSERT_TRUE(tokens.ok());
    EXPECT_EQ(tokens->tokens[1].piece, "the");

    writeText(dir.file("tokenizer_config.json"), R"({"do_lower_case": "yes"})");
    auto bad = loadSubwordTokenizer(dir.file(""));
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().find("do_lower_case"), std::string::npos);
    writeText(dir.file("tokenizer_config.json"), "{not json");
    EXPECT_FALSE(loadSubwordTokenizer(dir.file("")).ok());

    // A lower-case vocabulary without a config: guessed uncased.
    std::filesystem::remove(dir.file("tokenizer_config.json"));
    writeText(dir.file("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\n##s\n\xC3\xA9t\xC3\xA9\n");
    auto lower = loadSubwordTokenizer(dir.file(""));
    ASSERT_TRUE(lower.ok()) << lower.error();
    EXPECT_TRUE(lower->wordPiece()->options.lowerCase);
}

TEST(SubwordTokenizerFolder, FindsByteLevelBpeAndNamesAMissingHalf)
{
    ScratchDir dir;
    writeText(dir.file("vocab.json"), readText(tokenizerFixture("bpe_vocab.json")));
    auto half = loadSubwordTokenizer(dir.file(""));
    ASSERT_FALSE(half.ok());
    EXPECT_NE(half.error().find("merges.txt"), std::string::npos);
    writeText(dir.file("merges.txt"), readText(tokenizerFixture("bpe_merges.txt")));
    writeText(dir.file("vocab.txt"), readText(tokenizerFixture("wordpiece_vocab.txt")));  // BPE files win
    auto bpe = loadSubwordTokenizer(dir.file(""));
    ASSERT_TRUE(bpe.ok()) << bpe.error();
    ASSERT_NE(bpe->byteLevelBpe(), nullptr);
    EXPECT_NE(bpe->description().find("byte-level BPE"), std::string::npos);
    auto tokens = bpe->encode(" Hello world");
    ASSERT_TRUE(tokens.ok());
    EXPECT_EQ(tokens->tokens.size(), 2u);

    std::filesystem::remove(dir.file("vocab.json"));
    auto other = loadSubwordTokenizer(dir.file(""));
    ASSERT_FALSE(other.ok());
    EXPECT_NE(other.error().find("vocab.json"), std::string::npos);
}

// RoBERTa's and BART's tokenizers frame a sentence as <s> ... </s> (their add_special_tokens);
// GPT-2's, with the same kind of files, adds nothing. The folder's config.json (model_type) or
// tokenizer_config.json (tokenizer_class) says which.
TEST(SubwordTokenizerFolder, RobertaAndBartFrameTheSentenceWithTheirMarksAndGpt2DoesNot)
{
    ScratchDir dir;
    std::string vocab = readText(tokenizerFixture("bpe_vocab.json"));
    while (!vocab.empty() && std::isspace(static_cast<unsigned char>(vocab.back()))) vocab.pop_back();
    ASSERT_EQ(vocab.back(), '}');
    vocab.pop_back();
    vocab += ", \"<s>\": 643, \"</s>\": 644}";
    for (const char* folder : {"gpt2", "roberta", "bart"}) {
        std::filesystem::create_directory(dir.file(folder));
        writeText(dir.file(std::string(folder) + "/vocab.json"), vocab);
        writeText(dir.file(std::string(folder) + "/merges.txt"), readText(tokenizerFixture("bpe_merges.txt")));
    }
    writeText(dir.file("roberta/config.json"), R"({"model_type": "roberta"})");
    writeText(dir.file("bart/tokenizer_config.json"), R"({"tokenizer_class": "BartTokenizerFast"})");
    const std::string text = "the cat";
    Expected<SubwordTokenizer> gpt2 = loadSubwordTokenizer(dir.file("gpt2"));
    ASSERT_TRUE(gpt2.ok()) << gpt2.error();
    Expected<SubwordTokenization> plain = gpt2->encode(text);
    ASSERT_TRUE(plain.ok());
    ASSERT_FALSE(plain->tokens.empty());
    EXPECT_NE(plain->tokens.front().piece, "<s>");
    for (const char* folder : {"roberta", "bart"}) {
        Expected<SubwordTokenizer> tokenizer = loadSubwordTokenizer(dir.file(folder));
        ASSERT_TRUE(tokenizer.ok()) << tokenizer.error();
        Expected<SubwordTokenization> framed = tokenizer->encode(text);
        ASSERT_TRUE(framed.ok());
        ASSERT_EQ(framed->tokens.size(), plain->tokens.size() + 2) << folder;
        EXPECT_EQ(framed->tokens.front().id, 643);
        EXPECT_EQ(framed->tokens.front().byteEnd, 0u);
        EXPECT_EQ(framed->tokens.back().id, 644);
        EXPECT_EQ(framed->tokens.back().byteBegin, text.size());
        EXPECT_TRUE(framed->tokens.back().special);
        for (std::size_t i = 0; i < plain->tokens.size(); ++i) EXPECT_EQ(framed->tokens[i + 1].id, plain->tokens[i].id);
        EXPECT_NE(tokenizer->description().find("<s> ... </s>"), std::string::npos) << tokenizer->description();
    }
    // A RoBERTa folder whose vocabulary lacks the marks is refused, naming the file.
    writeText(dir.file("roberta/vocab.json"), readText(tokenizerFixture("bpe_vocab.json")));
    Expected<SubwordTokenizer> missing = loadSubwordTokenizer(dir.file("roberta"));
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().find("vocab.json lacks <s>"), std::string::npos) << missing.error();
}

}  // namespace
}  // namespace qkv
