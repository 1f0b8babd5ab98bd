// SentencePiece tokenizers (LLaMA's tokenizer.model, T5's spiece.model, Marian's source.spm /
// target.spm + vocab.json) against what Debian's python3-sentencepiece gives on the same model
// files (tests/data/tokenizers/make_sentencepiece_fixtures.py), with the special tokens each
// family's Hugging Face tokenizer adds; then the folder rules and every kind of bad file.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/common/limits.hpp"
#include "core/io/io_test_support.hpp"
#include "core/text/sentencepiece_folder.hpp"
#include "core/text/subword_tokenizer.hpp"
#include "tokenizer_test_support.hpp"

namespace qkv {
namespace {

using testing::readText;
using testing::ScratchDir;

std::string spmFixture(const std::string& name) { return testing::tokenizerFixture("sentencepiece/" + name); }

const nlohmann::json& spmCases()
{
    static const nlohmann::json cases = [] {
        nlohmann::json parsed = nlohmann::json::parse(readText(spmFixture("cases.json")), nullptr, false);
        return parsed.is_discarded() ? nlohmann::json::object() : parsed;
    }();
    return cases;
}

void writeText(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

void copyFixture(const std::string& from, const std::string& to) { writeText(to, readText(spmFixture(from))); }

// Every case of one family: ids, pieces, byte spans and special flags exactly as in cases.json;
// a chip shows the piece itself ("▁cat", "<0xE7>").
void expectCases(const SubwordTokenizer& tokenizer, const std::string& family)
{
    const nlohmann::json& cases = spmCases().at(family);
    ASSERT_GE(cases.size(), 15u);
    for (const nlohmann::json& c : cases) {
        const std::string text = c.at("text").get<std::string>();
        Expected<SubwordTokenization> got = tokenizer.encode(text);
        ASSERT_TRUE(got.ok()) << family << ": " << got.error() << " for: " << text;
        const auto pieces = c.at("pieces").get<std::vector<std::string>>();
        const auto spans = c.at("spans").get<std::vector<std::vector<std::size_t>>>();
        const auto special = c.at("special").get<std::vector<bool>>();
        EXPECT_EQ(got->ids(), c.at("ids").get<std::vector<std::int32_t>>()) << family << ": " << text;
        ASSERT_EQ(got->tokens.size(), pieces.size()) << family << ": " << text;
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            const SubwordToken& token = got->tokens[i];
            EXPECT_EQ(token.piece, pieces[i]) << family << " token " << i << " of: " << text;
            EXPECT_EQ(token.display, pieces[i]) << family << " token " << i << " of: " << text;
            EXPECT_EQ(token.byteBegin, spans[i][0]) << family << " token " << i << " (" << pieces[i] << ") of: " << text;
            EXPECT_EQ(token.byteEnd, spans[i][1]) << family << " token " << i << " (" << pieces[i] << ") of: " << text;
            EXPECT_EQ(token.special, special[i]) << family << " token " << i << " of: " << text;
        }
    }
}

TEST(SentencePieceFixture, LlamaMatchesTheLibraryWithBosFirst)
{
    auto tokenizer = loadSubwordTokenizer(spmFixture("llama"));
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.error();
    ASSERT_TRUE(tokenizer->isSentencePiece());
    EXPECT_FALSE(tokenizer->isWordPiece());
    EXPECT_EQ(tokenizer->description(), "SentencePiece (BPE), 400 pieces, tokenizer.model, <s> first");
    EXPECT_EQ(tokenizer->vocabularySize(), spmCases().at("piece_counts").at("llama").get<std::size_t>());
    expectCases(*tokenizer, "llama");
}

TEST(SentencePieceFixture, T5MatchesTheLibraryWithEosLastAndSentinels)
{
    auto tokenizer = loadSubwordTokenizer(spmFixture("t5"));
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.error();
    EXPECT_EQ(tokenizer->description(), "SentencePiece (unigram), 300 pieces, spiece.model, </s> last, 100 extra ids");
    // T5's embedding table has the pieces and the 100 sentinels.
    EXPECT_EQ(tokenizer->vocabularySize(), spmCases().at("piece_counts").at("t5").get<std::size_t>() + 100);
    expectCases(*tokenizer, "t5");
}

TEST(SentencePieceFixture, MarianMapsPiecesThroughVocabJson)
{
    const std::size_t vocabSize = spmCases().at("piece_counts").at("marian_vocab").get<std::size_t>();
    auto source = loadSubwordTokenizer(spmFixture("marian"));
    ASSERT_TRUE(source.ok()) << source.error();
    EXPECT_EQ(source->description(), "SentencePiece (unigram), 300 pieces, source.spm, ids from vocab.json (" +
                                         std::to_string(vocabSize) + " entries), </s> last");
    EXPECT_EQ(source->vocabularySize(), vocabSize);
    expectCases(*source, "marian_source");

    auto both = loadSourceTargetTokenizers(spmFixture("marian"));
    ASSERT_TRUE(both.ok()) << both.error();
    EXPECT_EQ(both->source.description(), source->description());
    EXPECT_NE(both->target.description().find("target.spm"), std::string::npos) << both->target.description();
    EXPECT_EQ(both->target.vocabularySize(), vocabSize);
    expectCases(both->source, "marian_source");
    expectCases(both->target, "marian_target");
}

TEST(SentencePieceFixture, CopiesShareTheModelAndOutliveTheOriginal)
{
    std::optional<SubwordTokenizer> copy;
    {
        auto loaded = loadSubwordTokenizer(spmFixture("llama"));
        ASSERT_TRUE(loaded.ok()) << loaded.error();
        copy = *loaded;
        EXPECT_EQ(&copy->sentencePiece()->model.processor(), &loaded->sentencePiece()->model.processor());
    }
    expectCases(*copy, "llama");
}

TEST(SentencePieceFixture, OtherFoldersGiveOneTokenizerForBothSides)
{
    ScratchDir dir;
    writeText(dir.file("vocab.json"), readText(testing::tokenizerFixture("bpe_vocab.json")));
    writeText(dir.file("merges.txt"), readText(testing::tokenizerFixture("bpe_merges.txt")));
    auto both = loadSourceTargetTokenizers(dir.file(""));
    ASSERT_TRUE(both.ok()) << both.error();
    ASSERT_NE(both->source.byteLevelBpe(), nullptr);
    ASSERT_NE(both->target.byteLevelBpe(), nullptr);
    EXPECT_EQ(both->source.encode("the cat")->ids(), both->target.encode("the cat")->ids());
    // A source.spm beside vocab.json and merges.txt does not make the folder Marian's.
    copyFixture("marian/source.spm", dir.file("source.spm"));
    auto still = loadSubwordTokenizer(dir.file(""));
    ASSERT_TRUE(still.ok()) << still.error();
    EXPECT_NE(still->byteLevelBpe(), nullptr);

    auto t5 = loadSourceTargetTokenizers(spmFixture("t5"));
    ASSERT_TRUE(t5.ok()) << t5.error();
    EXPECT_EQ(t5->source.encode("Le chat")->ids(), t5->target.encode("Le chat")->ids());
}

TEST(SentencePieceFolder, FilesAreFoundAndConfigured)
{
    ScratchDir dir;
    EXPECT_FALSE(hasSubwordTokenizerFiles(dir.file("")));
    auto none = loadSubwordTokenizer(dir.file(""));
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().find("tokenizer.model or spiece.model"), std::string::npos) << none.error();

    copyFixture("llama/tokenizer.model", dir.file("tokenizer.model"));
    EXPECT_TRUE(hasSubwordTokenizerFiles(dir.file("")));
    auto defaults = loadSubwordTokenizer(dir.file(""));
    ASSERT_TRUE(defaults.ok()) << defaults.error();
    EXPECT_EQ(defaults->description(), "SentencePiece (BPE), 400 pieces, tokenizer.model, <s> first (LLaMA's defaults)");
    EXPECT_EQ(defaults->encode("cat")->tokens.front().piece, "<s>");

    writeText(dir.file("tokenizer_config.json"), R"({"add_bos_token": false, "add_eos_token": true})");
    auto configured = loadSubwordTokenizer(dir.file(""));
    ASSERT_TRUE(configured.ok()) << configured.error();
    auto tokens = configured->encode("cat");
    ASSERT_TRUE(tokens.ok()) << tokens.error();
    EXPECT_NE(tokens->tokens.front().piece, "<s>");
    EXPECT_EQ(tokens->tokens.back().piece, "</s>");
    EXPECT_EQ(tokens->tokens.back().id, 2);
    EXPECT_EQ(tokens->tokens.back().byteBegin, 3u);

    writeText(dir.file("tokenizer_config.json"), R"({"add_bos_token": "yes"})");
    auto bad = loadSubwordTokenizer(dir.file(""));
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().find("\"add_bos_token\" must be true or false"), std::string::npos) << bad.error();

    // spiece.model: T5 only.
    ScratchDir t5;
    copyFixture("t5/spiece.model", t5.file("spiece.model"));
    writeText(t5.file("tokenizer_config.json"), R"({"tokenizer_class": "AlbertTokenizer"})");
    auto albert = loadSubwordTokenizer(t5.file(""));
    ASSERT_FALSE(albert.ok());
    EXPECT_NE(albert.error().find("AlbertTokenizer"), std::string::npos) << albert.error();
    writeText(t5.file("tokenizer_config.json"), R"({"tokenizer_class": "T5Tokenizer", "extra_ids": 3})");
    auto three = loadSubwordTokenizer(t5.file(""));
    ASSERT_TRUE(three.ok()) << three.error();
    EXPECT_EQ(three->vocabularySize(), 303u);
    auto sentinels = three->encode("<extra_id_0><extra_id_2><extra_id_3>");
    ASSERT_TRUE(sentinels.ok()) << sentinels.error();
    ASSERT_GE(sentinels->tokens.size(), 3u);
    EXPECT_EQ(sentinels->tokens[0].id, 302);  // 300 + 3 - 1 - 0
    EXPECT_EQ(sentinels->tokens[1].id, 300);
    EXPECT_FALSE(sentinels->tokens[2].special);  // only three sentinels: <extra_id_3> is text
}

TEST(SentencePieceFolder, MarianNeedsItsVocabularyAndTarget)
{
    ScratchDir dir;
    copyFixture("marian/source.spm", dir.file("source.spm"));
    EXPECT_TRUE(hasSubwordTokenizerFiles(dir.file("")));
    auto noVocab = loadSubwordTokenizer(dir.file(""));
    ASSERT_FALSE(noVocab.ok());
    EXPECT_EQ(noVocab.error(), dir.file("") +
                                   ": has source.spm but no vocab.json beside it (Marian's ids come from that "
                                   "vocabulary, not from the .spm files)");

    writeText(dir.file("vocab.json"), R"({"</s>": 0, "▁The": 1})");
    auto noUnk = loadSubwordTokenizer(dir.file(""));
    ASSERT_FALSE(noUnk.ok());
    EXPECT_NE(noUnk.error().find("has no \"<unk>\""), std::string::npos) << noUnk.error();
    writeText(dir.file("vocab.json"), R"({"</s>": 0, "<unk>": 0})");
    EXPECT_NE(loadSubwordTokenizer(dir.file("")).error().find("gives the id 0 to two pieces"), std::string::npos);
    writeText(dir.file("vocab.json"), R"({"</s>": 0, "<unk>": -1})");
    EXPECT_NE(loadSubwordTokenizer(dir.file("")).error().find("not a whole number"), std::string::npos);
    writeText(dir.file("vocab.json"), R"(["</s>"])");
    EXPECT_NE(loadSubwordTokenizer(dir.file("")).error().find("one object"), std::string::npos);
    writeText(dir.file("vocab.json"), std::string(100000, '['));
    EXPECT_NE(loadSubwordTokenizer(dir.file("")).error().find("nests too deeply"), std::string::npos);

    // A tiny vocabulary: every piece it lacks is <unk>'s id; the source alone loads.
    writeText(dir.file("vocab.json"), R"({"</s>": 0, "<unk>": 1, "▁The": 7})");
    auto tiny = loadSubwordTokenizer(dir.file(""));
    ASSERT_TRUE(tiny.ok()) << tiny.error();
    EXPECT_EQ(tiny->vocabularySize(), 8u);
    EXPECT_EQ(tiny->encode("The cat")->ids(), (std::vector<std::int32_t>{7, 1, 1, 0}));

    auto noTarget = loadSourceTargetTokenizers(dir.file(""));
    ASSERT_FALSE(noTarget.ok());
    EXPECT_NE(noTarget.error().find("no target.spm"), std::string::npos) << noTarget.error();

    // separate_vocabs: target_vocab.json gives the target side's ids.
    copyFixture("marian/target.spm", dir.file("target.spm"));
    writeText(dir.file("target_vocab.json"), R"({"</s>": 5, "<unk>": 4})");
    auto both = loadSourceTargetTokenizers(dir.file(""));
    ASSERT_TRUE(both.ok()) << both.error();
    EXPECT_EQ(both->target.encode("chat")->tokens.back().id, 5);
    EXPECT_EQ(both->target.encode("chat")->tokens.front().id, 4);
    EXPECT_NE(both->target.description().find("target_vocab.json"), std::string::npos);
}

// A bad model file is refused with a message naming it; nothing aborts or blocks.
void expectRefused(const std::string& folder, const std::string& file, const std::string& words)
{
    auto tokenizer = loadSubwordTokenizer(folder);
    ASSERT_FALSE(tokenizer.ok()) << file;
    EXPECT_NE(tokenizer.error().find(file), std::string::npos) << tokenizer.error();
    EXPECT_NE(tokenizer.error().find(words), std::string::npos) << tokenizer.error();
}

TEST(SentencePieceFiles, CorruptTruncatedAndEmptyModelsAreRefused)
{
    ScratchDir dir;
    const std::string model = dir.file("tokenizer.model");
    std::mt19937 random(18);
    std::string noise(4096, '\0');
    for (char& c : noise) c = static_cast<char>(random() & 0xFF);
    writeText(model, noise);
    expectRefused(dir.file(""), model, "is not a SentencePiece model the library can read");
    EXPECT_EQ(loadSubwordTokenizer(dir.file("")).error(),
              model + ": is not a SentencePiece model the library can read (its bytes do not parse as a "
                      "SentencePiece model)");

    writeText(model, "");
    expectRefused(dir.file(""), model, "is empty, not a SentencePiece model");

    const std::string whole = readText(spmFixture("llama/tokenizer.model"));
    writeText(model, whole.substr(0, whole.size() / 2));
    expectRefused(dir.file(""), model, "is not a SentencePiece model the library can read");

    // A JSON file (LLaMA 3's tokenizer.json renamed, say) is no model either.
    writeText(model, R"({"model": {"type": "BPE"}})");
    expectRefused(dir.file(""), model, "is not a SentencePiece model");
}

// The library must refuse the file or load a model that encodes; it must never abort or read
// outside the file (the sanitizer build runs this too).
void expectRefusedOrUsable(const std::string& path, const std::string& bytes, std::size_t& normalisationRefusals)
{
    auto model = SentencePieceModel::fromBytes(bytes, path);
    if (!model) {
        EXPECT_EQ(model.error().rfind(path + ": ", 0), 0u) << model.error();
        if (model.error().find("normalisation") != std::string::npos) ++normalisationRefusals;
        return;
    }
    SentencePieceTokenizer tokenizer{*model, {}, nullptr};
    EXPECT_TRUE(sentencePieceTokenize(tokenizer, "Le ﬁls est assis. The Ａ cat 猫 🙂").ok()) << bytes.size();
}

TEST(SentencePieceFiles, EveryTruncationAndBitFlipIsRefusedOrUsable)
{
    // A flipped bit in the normalisation table once made the library read past it in Encode:
    // the table is checked before the library sees it (sentencepiece_model_check.hpp).
    const std::string path = spmFixture("t5/spiece.model");
    const std::string whole = readText(path);
    std::size_t normalisationRefusals = 0;
    for (std::size_t size = 1; size < whole.size(); size += 31)
        expectRefusedOrUsable(path, whole.substr(0, size), normalisationRefusals);
    for (std::size_t at = 0; at < whole.size(); at += 2) {
        std::string flipped = whole;
        flipped[at] = static_cast<char>(flipped[at] ^ (1 << (at / 2 % 8)));
        expectRefusedOrUsable(path, flipped, normalisationRefusals);
    }
    EXPECT_GT(normalisationRefusals, 0u);
}

TEST(SentencePieceFiles, MissingFolderFifoAndDeviceAreRefusedWithoutBlocking)
{
    auto missing = SentencePieceModel::load("/nonexistent/tokenizer.model");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error(), "/nonexistent/tokenizer.model: does not exist");

    ScratchDir dir;
    std::filesystem::create_directory(dir.file("tokenizer.model"));
    expectRefused(dir.file(""), dir.file("tokenizer.model"), "is a folder, not a file");

    ScratchDir pipe;
    const std::string fifo = pipe.file("spiece.model");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto pending = std::async(std::launch::async, [&] { return loadSubwordTokenizer(pipe.file("")); });
    if (pending.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
        ADD_FAILURE() << "reading a FIFO blocked";
        const int writer = ::open(fifo.c_str(), O_WRONLY);  // lets the blocked reader see the end
        if (writer >= 0) ::close(writer);
    }
    auto result = pending.get();
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error(), fifo + ": is a FIFO (named pipe), not a regular file");

    if (std::filesystem::exists("/dev/zero")) {
        auto device = SentencePieceModel::load("/dev/zero");
        ASSERT_FALSE(device.ok());
        EXPECT_NE(device.error().find("is a device, not a regular file"), std::string::npos) << device.error();
    }
}

TEST(SentencePieceText, LimitsAndMalformedText)
{
    auto tokenizer = loadSubwordTokenizer(spmFixture("llama"));
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.error();
    // Too many tokens: an error, never a cut result.
    std::string many;
    for (int i = 0; i < limits::maxTokens; ++i) many += "x ";
    auto tooMany = tokenizer->encode(many);
    ASSERT_FALSE(tooMany.ok());
    EXPECT_NE(tooMany.error().find("tokens"), std::string::npos) << tooMany.error();
    EXPECT_FALSE(tokenizer->encode(std::string(limits::maxSentenceBytes + 1, 'a')).ok());

    // Malformed UTF-8 is the library's to handle: tokens come back, with spans inside the text.
    const std::string malformed = "ab\xFF\xC3 cd\xE2\x82";
    for (const char* family : {"llama", "t5", "marian"}) {
        auto t = loadSubwordTokenizer(spmFixture(family));
        ASSERT_TRUE(t.ok()) << t.error();
        auto tokens = t->encode(malformed);
        ASSERT_TRUE(tokens.ok()) << family << ": " << tokens.error();
        EXPECT_GE(tokens->tokens.size(), 3u) << family;
        for (const SubwordToken& token : tokens->tokens) {
            EXPECT_LE(token.byteBegin, token.byteEnd) << family;
            EXPECT_LE(token.byteEnd, malformed.size()) << family;
            EXPECT_GE(token.id, 0) << family;
            EXPECT_LT(static_cast<std::size_t>(token.id), t->vocabularySize()) << family;
        }
    }
}

}  // namespace
}  // namespace qkv
