// The subword tokenizers against the independent Python implementation in
// tests/data/tokenizers/make_fixtures.py: ids, pieces, chip labels, special flags and byte spans
// must match exactly, for WordPiece (uncased and cased) and GPT-2's byte-level BPE, on sentences
// in English, French, German, Greek, Russian, Chinese, Korean, with digits, punctuation,
// whitespace runs, emoji, control characters, typed special tokens and an over-long word.

#include <gtest/gtest.h>

#include "core/text/byte_level_bpe_tokenizer.hpp"
#include "core/text/wordpiece_tokenizer.hpp"
#include "tokenizer_test_support.hpp"

namespace qkv {
namespace {

using testing::tokenizerCases;
using testing::tokenizerFixture;

void expectSameTokens(const SubwordTokenization& got, const nlohmann::json& expected, const std::string& text,
                      bool checkDisplay)
{
    const auto ids = expected.at("ids").get<std::vector<std::int32_t>>();
    const auto pieces = expected.at("pieces").get<std::vector<std::string>>();
    const auto spans = expected.at("spans").get<std::vector<std::vector<std::size_t>>>();
    const auto special = expected.at("special").get<std::vector<bool>>();
    EXPECT_EQ(got.ids(), ids) << "text: " << text;
    ASSERT_EQ(got.tokens.size(), pieces.size()) << "text: " << text;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        const SubwordToken& token = got.tokens[i];
        EXPECT_EQ(token.piece, pieces[i]) << "token " << i << " of: " << text;
        EXPECT_EQ(token.byteBegin, spans[i][0]) << "token " << i << " (" << token.piece << ") of: " << text;
        EXPECT_EQ(token.byteEnd, spans[i][1]) << "token " << i << " (" << token.piece << ") of: " << text;
        EXPECT_EQ(token.special, special[i]) << "token " << i << " of: " << text;
        if (checkDisplay)
            EXPECT_EQ(token.display, expected.at("display")[i].get<std::string>()) << "token " << i << " of: " << text;
        else
            EXPECT_EQ(token.display, token.piece);
    }
}

// Loaded once for all tests; a load failure is reported by FilesLoadAsWritten.
struct Fixtures {
    nlohmann::json cases = tokenizerCases();
    Expected<WordPieceVocab> wordPiece = loadWordPieceVocab(tokenizerFixture("wordpiece_vocab.txt"));
    Expected<ByteLevelBpe> bpe = loadByteLevelBpe(tokenizerFixture("bpe_vocab.json"), tokenizerFixture("bpe_merges.txt"));
};

const Fixtures& fixtures()
{
    static const Fixtures loaded;
    return loaded;
}

class TokenizerFixture : public ::testing::Test {
protected:
    void SetUp() override
    {
        const Fixtures& f = fixtures();
        ASSERT_TRUE(f.wordPiece.ok()) << f.wordPiece.error();
        ASSERT_TRUE(f.bpe.ok()) << f.bpe.error();
        cases_ = &f.cases;
        wordPiece_ = &*f.wordPiece;
        bpe_ = &*f.bpe;
    }

    const nlohmann::json* cases_ = nullptr;
    const WordPieceVocab* wordPiece_ = nullptr;
    const ByteLevelBpe* bpe_ = nullptr;
};

TEST_F(TokenizerFixture, FilesLoadAsWritten)
{
    EXPECT_EQ(wordPiece_->tokens.size(), 201u);
    EXPECT_EQ(wordPiece_->tokens[1], "[UNK]");
    EXPECT_EQ(bpe_->mergeLines, cases_->at("bpe_merge_count").get<std::size_t>());
    EXPECT_EQ(bpe_->unusableMerges, 0u);
    EXPECT_EQ(bpe_->idCount, bpe_->ids.size());
    EXPECT_GE(cases_->at("cases").size(), 20u);
}

TEST_F(TokenizerFixture, WordPieceUncasedMatchesPython)
{
    for (const auto& c : cases_->at("cases")) {
        const std::string text = c.at("text").get<std::string>();
        auto got = wordPieceTokenize(*wordPiece_, text);
        ASSERT_TRUE(got.ok()) << got.error();
        expectSameTokens(*got, c.at("bert"), text, false);
    }
}

TEST_F(TokenizerFixture, WordPieceCasedMatchesPython)
{
    int checked = 0;
    for (const auto& c : cases_->at("cases")) {
        if (!c.contains("bert_cased")) continue;
        const std::string text = c.at("text").get<std::string>();
        WordPieceOptions cased;
        cased.lowerCase = false;
        auto got = wordPieceTokenize(*wordPiece_, text, cased);
        ASSERT_TRUE(got.ok()) << got.error();
        expectSameTokens(*got, c.at("bert_cased"), text, false);
        ++checked;
    }
    EXPECT_GE(checked, 5);
}

TEST_F(TokenizerFixture, ByteLevelBpeMatchesPython)
{
    for (const auto& c : cases_->at("cases")) {
        const std::string text = c.at("text").get<std::string>();
        auto got = byteLevelBpeTokenize(*bpe_, text);
        ASSERT_TRUE(got.ok()) << got.error();
        expectSameTokens(*got, c.at("gpt2"), text, true);
    }
}

TEST_F(TokenizerFixture, ChipsCarryTheDisplayTextAndSpans)
{
    auto got = byteLevelBpeTokenize(*bpe_, " Hello world");
    ASSERT_TRUE(got.ok()) << got.error();
    const std::vector<Token> chips = got->chips();
    ASSERT_EQ(chips.size(), 2u);
    EXPECT_EQ(chips[0].text, "\u00B7Hello");
    EXPECT_EQ(chips[0].byteBegin, 0u);
    EXPECT_EQ(chips[0].byteEnd, 6u);
    EXPECT_EQ(chips[1].text, "\u00B7world");
    EXPECT_EQ(chips[1].byteBegin, 6u);
    EXPECT_EQ(chips[1].byteEnd, 12u);
    EXPECT_EQ(got->tokens[0].piece, "\u0120Hello");
    EXPECT_EQ(got->tokens[1].piece, "\u0120world");
}

}  // namespace
}  // namespace qkv
