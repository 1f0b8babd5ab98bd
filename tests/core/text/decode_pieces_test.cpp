// SubwordTokenizer::decodePieces: the pieces a tokenizer cut from a text give the text back (how
// generated tokens become a prompt), for byte-level BPE (GPT-2's vocab.json + merges.txt, and
// tokenizer.json's ByteLevel: LLaMA 3, Qwen3), tokenizer.json with a space mark and byte fallback
// (Gemma 3), SentencePiece (LLaMA's tokenizer.model) and WordPiece (BERT, lower-cased).

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/text/subword_tokenizer.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

std::string data(const std::string& path) { return std::string(testDataDir()) + "/" + path; }

// The pieces of `text` without the tokens the tokenizer adds around it (<s>, [CLS], ...).
std::string roundTrip(const SubwordTokenizer& tokenizer, const std::string& text)
{
    Expected<SubwordTokenization> cut = tokenizer.encode(text);
    EXPECT_TRUE(cut.ok()) << (cut ? "" : cut.error());
    if (!cut) return {};
    std::vector<std::string> pieces;
    for (const SubwordToken& token : cut->tokens)
        if (!(token.special && token.byteBegin == token.byteEnd)) pieces.push_back(token.piece);
    return tokenizer.decodePieces(pieces);
}

TEST(DecodePieces, ThePiecesOfATextGiveTheTextBack)
{
    const std::string text = "The cat sat, twice.\nSchöne Grüße, ελληνικά 日本語!";
    struct Case {
        const char* folder;
        bool leadingSpace;  // a space mark before the first word ("▁The")
    };
    for (const Case& c : {Case{"pretrained/gpt2", false}, Case{"tokenizers/tokenizer_json/llama3", false},
                          Case{"tokenizers/tokenizer_json/qwen3", false}, Case{"tokenizers/tokenizer_json/gemma3", false},
                          Case{"tokenizers/sentencepiece/llama", true}}) {
        Expected<SubwordTokenizer> tokenizer = loadSubwordTokenizer(data(c.folder));
        ASSERT_TRUE(tokenizer.ok()) << c.folder << ": " << (tokenizer ? "" : tokenizer.error());
        const std::string back = roundTrip(*tokenizer, text);
        EXPECT_EQ(back, c.leadingSpace ? " " + text : text) << c.folder;
    }
    Expected<SubwordTokenizer> bert = loadSubwordTokenizer(data("pretrained/bert"));
    ASSERT_TRUE(bert.ok()) << (bert ? "" : bert.error());
    // WordPiece: lower-cased words, each after a space; "##" pieces joined to the one before.
    EXPECT_EQ(bert->decodePieces({"the", "cat", "##s", "sat"}), " the cats sat");
}

}  // namespace
}  // namespace qkv
