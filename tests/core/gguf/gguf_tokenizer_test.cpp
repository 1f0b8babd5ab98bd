// A GGUF file's own tokenizer (tokenizer.ggml.*) built into the app's tokenizers: the ids below
// are worked out by hand from each algorithm's rule (SentencePiece's BPE merges the adjacent pair
// of highest score whose join is a piece, unknown characters fall back to byte pieces; byte-level
// BPE applies merges in their listed order inside each pre-tokenized word).

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/pretrained/pretrained_model.hpp"
#include "core/text/byte_level_bpe_vocab.hpp"
#include "core/text/embedded_vocabulary.hpp"
#include "tests/support/test_paths.hpp"

namespace qkv {
namespace {

std::vector<std::int32_t> ids(const SubwordTokenizer& tokenizer, const std::string& text)
{
    Expected<SubwordTokenization> tokens = tokenizer.encode(text);
    EXPECT_TRUE(tokens) << (tokens ? "" : tokens.error());
    std::vector<std::int32_t> out;
    if (tokens)
        for (const SubwordToken& token : tokens->tokens) out.push_back(token.id);
    return out;
}

// <unk> <s> </s>, the 256 byte pieces <0x00>..<0xFF> (ids 3..258), then pieces with scores.
EmbeddedVocabulary sentencePieceVocabulary()
{
    EmbeddedVocabulary v;
    v.source = "test.gguf";
    v.model = "llama";
    v.tokens = {"<unk>", "<s>", "</s>"};
    v.tokenTypes = {2, 3, 3};
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        v.tokens.push_back(name);
        v.tokenTypes.push_back(6);
    }
    const std::vector<std::pair<std::string, float>> pieces{
        {"\xe2\x96\x81", -10}, {"h", -10}, {"e", -10}, {"l", -10}, {"o", -10},        // 259..263
        {"\xe2\x96\x81h", -1}, {"\xe2\x96\x81he", -2}, {"ll", -3},                     // 264..266
        {"\xe2\x96\x81hell", -4}, {"\xe2\x96\x81hello", -5}};                          // 267, 268
    v.scores.assign(v.tokens.size(), 0.0f);
    for (const auto& [piece, score] : pieces) {
        v.tokens.push_back(piece);
        v.tokenTypes.push_back(1);
        v.scores.push_back(score);
    }
    v.bosId = 1;
    v.eosId = 2;
    v.unknownId = 0;
    return v;
}

TEST(GgufTokenizer, SentencePieceStyleMergesByScoreAndFallsBackToBytes)
{
    Expected<SubwordTokenizer> tokenizer = embeddedVocabularyTokenizer(sentencePieceVocabulary());
    ASSERT_TRUE(tokenizer) << tokenizer.error();
    // ▁ h e l l o -> ▁h (-1) -> ▁he (-2) -> ll (-3) -> ▁hell (-4) -> ▁hello (-5); <s> first
    EXPECT_EQ(ids(*tokenizer, "hello"), (std::vector<std::int32_t>{1, 268}));
    // ▁ h i -> ▁h, and i is no piece: its byte 0x69
    EXPECT_EQ(ids(*tokenizer, "hi"), (std::vector<std::int32_t>{1, 264, 3 + 0x69}));
    EmbeddedVocabulary noBos = sentencePieceVocabulary();
    noBos.addBos = false;
    Expected<SubwordTokenizer> without = embeddedVocabularyTokenizer(noBos);
    ASSERT_TRUE(without) << without.error();
    EXPECT_EQ(ids(*without, "hello"), (std::vector<std::int32_t>{268}));
}

std::string utf8(char32_t c)
{
    std::string s;
    if (c < 0x80) {
        s += static_cast<char>(c);
    } else {
        s += static_cast<char>(0xc0 | (c >> 6));
        s += static_cast<char>(0x80 | (c & 0x3f));
    }
    return s;
}

// The 256 byte symbols as ids 0..255 (byte b is id b), merges towards "hello" and "Ġthe", and
// <|begin_of_text|> (263, a control token).
EmbeddedVocabulary byteLevelVocabulary(const std::string& pre)
{
    EmbeddedVocabulary v;
    v.source = "test.gguf";
    v.model = "gpt2";
    v.pre = pre;
    for (int b = 0; b < 256; ++b) v.tokens.push_back(utf8(byteToSymbol(static_cast<std::uint8_t>(b))));
    const std::string G = utf8(byteToSymbol(' '));
    for (const std::string& t : {std::string("he"), std::string("ll"), std::string("hell"), std::string("hello"), G + "t",
                                 G + "th", G + "the"})  // 256..262
        v.tokens.push_back(t);
    v.tokens.push_back("<|begin_of_text|>");  // 263
    v.tokenTypes.assign(v.tokens.size(), 1);
    v.tokenTypes[263] = 3;
    v.merges = {"h e", "l l", "he ll", "hell o", G + " t", G + "t h", G + "th e"};
    v.bosId = 263;
    v.addBos = true;
    return v;
}

TEST(GgufTokenizer, ByteLevelBpeWithTheNamedPreTokenizer)
{
    for (const char* pre : {"llama-bpe", "qwen2", "gpt2"}) {
        Expected<SubwordTokenizer> tokenizer = embeddedVocabularyTokenizer(byteLevelVocabulary(pre));
        ASSERT_TRUE(tokenizer) << pre << ": " << tokenizer.error();
        // "hello": h e (rank 0), l l (1), he ll (2), hell o (3). " the" is Ġ t h e: "h e" (rank 0) comes
        // before "Ġ t" (4), so the word ends as Ġt + he, and "Ġt h" never applies.
        // LLaMA 3's tokenizer (llama-bpe: ignore_merges) takes a word the vocabulary holds whole.
        const std::vector<std::int32_t> the = std::string(pre) == "llama-bpe" ? std::vector<std::int32_t>{262}
                                                                               : std::vector<std::int32_t>{260, 256};
        std::vector<std::int32_t> expected{263, 259};
        expected.insert(expected.end(), the.begin(), the.end());
        EXPECT_EQ(ids(*tokenizer, "hello the"), expected) << pre;
        EXPECT_EQ(ids(*tokenizer, "hello there"), (std::vector<std::int32_t>{263, 259, 260, 256, 'r', 'e'})) << pre;
        EXPECT_EQ(ids(*tokenizer, " th"), (std::vector<std::int32_t>{263, 261})) << pre;  // Ġ t -> Ġt, Ġt h -> Ġth
    }
}

TEST(GgufTokenizer, RefusesWhatItDoesNotKnowByName)
{
    EmbeddedVocabulary model = sentencePieceVocabulary();
    model.model = "bert";
    Expected<SubwordTokenizer> a = embeddedVocabularyTokenizer(model);
    ASSERT_FALSE(a);
    EXPECT_NE(a.error().find("tokenizer.ggml.model 'bert' is not one this program reads"), std::string::npos) << a.error();
    Expected<SubwordTokenizer> b = embeddedVocabularyTokenizer(byteLevelVocabulary("falcon"));
    ASSERT_FALSE(b);
    EXPECT_NE(b.error().find("tokenizer.ggml.pre 'falcon'"), std::string::npos) << b.error();
    EmbeddedVocabulary outside = sentencePieceVocabulary();
    outside.bosId = 100000;
    EXPECT_FALSE(embeddedVocabularyTokenizer(outside));
}

TEST(GgufTokenizer, AGgufModelCarriesItsOwnTokenizer)
{
    Expected<PretrainedModel> model = openPretrainedModel(std::string(testDataDir()) + "/gguf/models/qwen3/model.gguf");
    ASSERT_TRUE(model) << model.error();
    ASSERT_TRUE(model->tokenizer.has_value());
    EXPECT_NE(model->tokenizer->description().find("from the GGUF file"), std::string::npos);
    // The fixture's pieces are "▁t3" ... with no shorter pieces: "t3" has nothing to merge from, so
    // every character is <unk> (id 0) after <s>.
    EXPECT_EQ(ids(*model->tokenizer, "t3").front(), 1);
}

}  // namespace
}  // namespace qkv
