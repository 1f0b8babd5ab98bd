// The parts of the tokenizer.json reader on small hand-made files: what each component does
// (as the tokenizers library documents it), what a reader sees, and files that are refused.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/text/tokenizer_json/fast_tokenizer.hpp"
#include "core/text/tokenizer_json/normalizers.hpp"
#include "core/text/tokenizer_json/splitting.hpp"
#include "core/text/vocabulary_files.hpp"
#include "tokenizer_test_support.hpp"

namespace qkv {
namespace {

using nlohmann::json;
using namespace tokenizer_json;

std::string textOf(const SpannedText& text) { return toUtf8(text); }

std::vector<std::string> textsOf(const std::vector<SpannedText>& pieces)
{
    std::vector<std::string> out;
    for (const SpannedText& p : pieces) out.push_back(textOf(p));
    return out;
}

// A WordLevel tokenizer over `words`, with the given parts; ids are the words' positions.
json wordLevelFile(const std::vector<std::string>& words)
{
    json vocab = json::object();
    for (std::size_t i = 0; i < words.size(); ++i) vocab[words[i]] = i;
    return {{"version", "1.0"},
            {"added_tokens", json::array()},
            {"normalizer", nullptr},
            {"pre_tokenizer", {{"type", "WhitespaceSplit"}}},
            {"post_processor", nullptr},
            {"decoder", nullptr},
            {"model", {{"type", "WordLevel"}, {"vocab", vocab}, {"unk_token", words.front()}}}};
}

std::vector<std::string> piecesOf(const FastTokenizer& tokenizer, const std::string& text)
{
    Expected<SubwordTokenization> tokens = tokenizer.encode(text);
    EXPECT_TRUE(tokens) << tokens.error();
    std::vector<std::string> out;
    if (tokens)
        for (const SubwordToken& t : tokens->tokens) out.push_back(t.piece);
    return out;
}

TEST(TokenizerJsonSplit, EachBehaviourDoesWhatTheLibraryDocumentsForTheFinalCountdown)
{
    // tokenizers' SplitDelimiterBehavior documentation: "the-final--countdown" split on "-".
    const SpannedText text = utf8::decodeWithSpans("the-final--countdown");
    const std::vector<Match> dashes = characterMatches(text, [](char32_t c) { return c == U'-'; });
    using V = std::vector<std::string>;
    EXPECT_EQ(textsOf(splitAtMatches(text, dashes, SplitBehavior::Removed)), (V{"the", "final", "countdown"}));
    EXPECT_EQ(textsOf(splitAtMatches(text, dashes, SplitBehavior::Isolated)), (V{"the", "-", "final", "-", "-", "countdown"}));
    EXPECT_EQ(textsOf(splitAtMatches(text, dashes, SplitBehavior::MergedWithPrevious)), (V{"the-", "final-", "-", "countdown"}));
    EXPECT_EQ(textsOf(splitAtMatches(text, dashes, SplitBehavior::MergedWithNext)), (V{"the", "-final", "-", "-countdown"}));
    EXPECT_EQ(textsOf(splitAtMatches(text, dashes, SplitBehavior::Contiguous)), (V{"the", "-", "final", "--", "countdown"}));
    // invert: the dashes are the pieces' separators' complement.
    EXPECT_EQ(textsOf(splitAtMatches(text, dashes, SplitBehavior::Removed, true)), (V{"-", "-", "-"}));
}

TEST(TokenizerJsonNormalizers, UnicodeFormsComposeAndKeepTheTypedSpan)
{
    Expected<std::shared_ptr<const Normalizer>> nfc = parseNormalizer(json{{"type", "NFC"}});
    ASSERT_TRUE(nfc) << nfc.error();
    SpannedText text = utf8::decodeWithSpans("Cafe\u0301!");  // e + combining acute: 3 bytes
    ASSERT_TRUE((*nfc)->normalize(text));
    EXPECT_EQ(textOf(text), "Caf\u00e9!");
    ASSERT_EQ(text.size(), 5u);
    EXPECT_EQ(text[3].byteBegin, 3u);  // é spans the e and its accent
    EXPECT_EQ(text[3].byteEnd, 6u);
    EXPECT_EQ(text[4].byteBegin, 6u);

    Expected<std::shared_ptr<const Normalizer>> nfkc = parseNormalizer(json{{"type", "NFKC"}});
    ASSERT_TRUE(nfkc);
    text = utf8::decodeWithSpans("\uFB01ne \u2460 \u338F");  // ﬁ ① ㎏
    ASSERT_TRUE((*nfkc)->normalize(text));
    EXPECT_EQ(textOf(text), "fine 1 kg");
}

TEST(TokenizerJsonNormalizers, SequenceLowercaseStripAccentsReplaceAndPrepend)
{
    const json spec = {{"type", "Sequence"},
                       {"normalizers",
                        {{{"type", "NFD"}},
                         {{"type", "StripAccents"}},
                         {{"type", "Lowercase"}},
                         {{"type", "Replace"}, {"pattern", {{"Regex", "\\s+"}}}, {"content", "\u2581"}},
                         {{"type", "Prepend"}, {"prepend", "\u2581"}}}}};
    Expected<std::shared_ptr<const Normalizer>> normalizer = parseNormalizer(spec);
    ASSERT_TRUE(normalizer) << normalizer.error();
    SpannedText text = utf8::decodeWithSpans("Ünïcödé  ÀB");
    ASSERT_TRUE((*normalizer)->normalize(text));
    EXPECT_EQ(textOf(text), "\u2581unicode\u2581ab");
    EXPECT_EQ((*normalizer)->name(), "Sequence[NFD, StripAccents, Lowercase, Replace regex '\\s+' -> \"\u2581\", Prepend \"\u2581\"]");
    // The replacement of the two spaces spans both of them.
    EXPECT_EQ(text[8].byteBegin, 11u);  // Ü, ï, ö, é are two bytes each
    EXPECT_EQ(text[8].byteEnd, 13u);
}

TEST(TokenizerJsonNormalizers, BertNormalizerCleansSpacesIdeographsAndCase)
{
    Expected<std::shared_ptr<const Normalizer>> bert =
        parseNormalizer(json{{"type", "BertNormalizer"}, {"clean_text", true}, {"handle_chinese_chars", true},
                             {"strip_accents", nullptr}, {"lowercase", true}});
    ASSERT_TRUE(bert);
    SpannedText text = utf8::decodeWithSpans("H\u00e9llo\t\u732b\u0007!");
    ASSERT_TRUE((*bert)->normalize(text));
    EXPECT_EQ(textOf(text), "hello  \u732b !");
}

TEST(TokenizerJsonRefusals, WhatIsNotImplementedIsNamedNeverSkipped)
{
    struct Case {
        const char* part;
        json spec;
        const char* message;
    };
    const std::vector<Case> cases = {
        {"normalizer", {{"type", "Precompiled"}, {"precompiled_charsmap", "AAAA"}}, "normalizer Precompiled is not supported"},
        {"pre_tokenizer", {{"type", "UnicodeScripts"}}, "pre-tokenizer UnicodeScripts is not supported"},
        {"decoder", {{"type", "Quantum"}}, "decoder Quantum is not supported"},
        {"post_processor", {{"type", "Quantum"}}, "post-processor Quantum is not supported"},
        {"pre_tokenizer", {{"type", "Split"}, {"pattern", {{"Regex", "a"}}}, {"behavior", "Sideways"}}, "split behavior 'Sideways' is not supported"},
        {"normalizer", {{"type", "Sequence"}, {"normalizers", {{{"type", "NFC"}}, {{"type", "Nmt"}}}}}, "normalizer Nmt is not supported"},
    };
    for (const Case& c : cases) {
        json file = wordLevelFile({"[UNK]", "a"});
        file[c.part] = c.spec;
        Expected<FastTokenizer> tokenizer = FastTokenizer::parse(file.dump(), "");
        ASSERT_FALSE(tokenizer) << c.part;
        EXPECT_NE(tokenizer.error().find(c.message), std::string::npos) << tokenizer.error();
    }
    json file = wordLevelFile({"[UNK]", "a"});
    file["model"] = {{"type", "BPE"}, {"vocab", {{"a", 0}}}, {"merges", json::array()}, {"dropout", 0.1}};
    Expected<FastTokenizer> dropout = FastTokenizer::parse(file.dump(), "");
    ASSERT_FALSE(dropout);
    EXPECT_NE(dropout.error().find("dropout is not supported"), std::string::npos) << dropout.error();
    file["model"] = {{"type", "Neural"}};
    Expected<FastTokenizer> model = FastTokenizer::parse(file.dump(), "");
    ASSERT_FALSE(model);
    EXPECT_NE(model.error().find("model Neural is not supported"), std::string::npos);
}

TEST(TokenizerJsonHostile, MalformedDeepMismatchedAndRunawayFilesAreRefusedWithAMessage)
{
    EXPECT_FALSE(FastTokenizer::parse("{\"model\": ", ""));
    EXPECT_FALSE(FastTokenizer::parse("[1, 2]", ""));
    const std::string deep = std::string(200000, '[') + std::string(200000, ']');
    Expected<FastTokenizer> nested = FastTokenizer::parse(deep, "");
    ASSERT_FALSE(nested);
    EXPECT_NE(nested.error().find("nests deeper than"), std::string::npos) << nested.error();

    std::string many = "[";
    for (std::size_t i = 0; i <= FastTokenizer::kMaxJsonValues; ++i) many += "0,";
    many += "0]";
    Expected<FastTokenizer> huge = FastTokenizer::parse(many, "");
    ASSERT_FALSE(huge);
    EXPECT_NE(huge.error().find("JSON values"), std::string::npos) << huge.error();
    Expected<FastTokenizer> large = FastTokenizer::parse(std::string(limits::maxTokenizerFileBytes + 1, ' '), "");
    ASSERT_FALSE(large);
    EXPECT_NE(large.error().find("larger than 64 MiB"), std::string::npos) << large.error();

    // A merge whose join the vocab lacks: the vocabulary does not match its merges.
    json file = wordLevelFile({"[UNK]", "a"});
    file["model"] = {{"type", "BPE"}, {"vocab", {{"a", 0}, {"b", 1}}}, {"merges", {"a b"}}};
    Expected<FastTokenizer> mismatch = FastTokenizer::parse(file.dump(), "");
    ASSERT_FALSE(mismatch);
    EXPECT_NE(mismatch.error().find("does not match its merges"), std::string::npos) << mismatch.error();
    file["model"]["vocab"] = {{"a", 0}, {"b", 1}, {"ab", -4}};
    EXPECT_FALSE(FastTokenizer::parse(file.dump(), ""));

    // A regex that backtracks exponentially stops at PCRE2's match limit with a message.
    file = wordLevelFile({"[UNK]", "a"});
    file["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "(a+)+$"}}}, {"behavior", "Isolated"}};
    Expected<FastTokenizer> runaway = FastTokenizer::parse(file.dump(), "");
    ASSERT_TRUE(runaway) << runaway.error();
    Expected<SubwordTokenization> stopped = runaway->encode(std::string(40, 'a') + "!");
    ASSERT_FALSE(stopped);
    EXPECT_NE(stopped.error().find("cannot be matched within its limits"), std::string::npos) << stopped.error();
    // A regex that does not compile is refused when the file is read.
    file["pre_tokenizer"]["pattern"] = {{"Regex", "(unclosed"}};
    Expected<FastTokenizer> broken = FastTokenizer::parse(file.dump(), "");
    ASSERT_FALSE(broken);
    EXPECT_NE(broken.error().find("does not compile"), std::string::npos) << broken.error();
}

TEST(TokenizerJsonAddedTokens, StripSingleWordAndNormalizedMatchingAsTheLibraryDefines)
{
    json file = wordLevelFile({"[UNK]", "a", "b", "<m>", "Hey"});
    file["normalizer"] = {{"type", "Lowercase"}};
    // "Hey" is normalised as the text is ("hey"), and stays "Hey" as the token's piece.
    file["added_tokens"] = {
        {{"id", 3}, {"content", "<m>"}, {"special", true}, {"lstrip", true}, {"rstrip", true}, {"normalized", false}},
        {{"id", 4}, {"content", "Hey"}, {"special", false}, {"single_word", true}, {"normalized", true}},
    };
    Expected<FastTokenizer> tokenizer = FastTokenizer::parse(file.dump(), "");
    ASSERT_TRUE(tokenizer) << tokenizer.error();
    Expected<SubwordTokenization> tokens = tokenizer->encode("a  <m>  b");
    ASSERT_TRUE(tokens);
    ASSERT_EQ(tokens->ids(), (std::vector<std::int32_t>{1, 3, 2}));
    EXPECT_EQ(tokens->tokens[1].byteBegin, 1u);  // the mark took the spaces beside it
    EXPECT_EQ(tokens->tokens[1].byteEnd, 8u);
    EXPECT_TRUE(tokens->tokens[1].special);
    // "HEY" is found after lower-casing, but not inside a word.
    EXPECT_EQ(piecesOf(*tokenizer, "HEY a"), (std::vector<std::string>{"Hey", "a"}));
    EXPECT_EQ(piecesOf(*tokenizer, "heya"), (std::vector<std::string>{"[UNK]"}));
}

TEST(TokenizerJsonDisplay, ByteFallbackPiecesOfOneCharacterShowThatCharacter)
{
    json vocab = json::object();
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        vocab[name] = b;
    }
    vocab["<unk>"] = 256;
    vocab["\u2581cat"] = 257;
    vocab["\u2581"] = 258;
    vocab["c"] = 259;
    vocab["a"] = 260;
    vocab["t"] = 261;
    vocab["\u2581ca"] = 262;
    vocab["ca"] = 263;
    json file = wordLevelFile({"[UNK]"});
    file["normalizer"] = {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}};
    file["pre_tokenizer"] = nullptr;
    file["decoder"] = {{"type", "Sequence"},
                       {"decoders", {{{"type", "Replace"}, {"pattern", {{"String", "\u2581"}}}, {"content", " "}},
                                     {{"type", "ByteFallback"}},
                                     {{"type", "Fuse"}}}}};
    file["model"] = {{"type", "BPE"},         {"vocab", vocab},     {"merges", {"c a", "\u2581 ca"}},
                     {"unk_token", "<unk>"}, {"byte_fallback", true}, {"fuse_unk", true}};
    Expected<FastTokenizer> tokenizer = FastTokenizer::parse(file.dump(), "");
    ASSERT_TRUE(tokenizer) << tokenizer.error();
    Expected<SubwordTokenization> tokens = tokenizer->encode(" \u65e5 ca");  // " 日 ca"
    ASSERT_TRUE(tokens) << tokens.error();
    std::vector<std::string> shown;
    for (const SubwordToken& t : tokens->tokens) shown.push_back(t.display);
    EXPECT_EQ(shown, (std::vector<std::string>{"\u00b7", "\u65e5 1/3", "\u65e5 2/3", "\u65e5 3/3", "\u00b7ca"}));
    EXPECT_EQ(tokens->tokens[1].byteBegin, 1u);  // each byte piece spans the whole character
    EXPECT_EQ(tokens->tokens[3].byteEnd, 4u);
    EXPECT_EQ(tokenizer->display("\u2581cat"), "\u00b7cat");
    EXPECT_EQ(tokenizer->display("<0x0A>"), "\u21b5");
}

TEST(TokenizerJsonDisplay, RealFilesShowSpacesAsADotAndSpanTheTypedText)
{
    Expected<FastTokenizer> qwen = FastTokenizer::load(testing::tokenizerFixture("tokenizer_json/qwen3"));
    ASSERT_TRUE(qwen) << qwen.error();
    Expected<SubwordTokenization> tokens = qwen->encode("The cat sat on the mat.");
    ASSERT_TRUE(tokens);
    ASSERT_GE(tokens->tokens.size(), 2u);
    EXPECT_EQ(tokens->tokens[1].piece, "\u0120cat");
    EXPECT_EQ(tokens->tokens[1].display, "\u00b7cat");
    EXPECT_EQ(tokens->tokens[1].byteBegin, 3u);
    EXPECT_EQ(tokens->tokens[1].byteEnd, 7u);
    EXPECT_NE(qwen->description().find("NFC"), std::string::npos) << qwen->description();

    Expected<FastTokenizer> gemma = FastTokenizer::load(testing::tokenizerFixture("tokenizer_json/gemma3"));
    ASSERT_TRUE(gemma) << gemma.error();
    tokens = gemma->encode("The cat");
    ASSERT_TRUE(tokens);
    ASSERT_EQ(tokens->tokens.size(), 3u);
    EXPECT_EQ(tokens->tokens[0].piece, "<bos>");
    EXPECT_EQ(tokens->tokens[0].byteEnd, 0u);
    EXPECT_EQ(tokens->tokens[2].display, "\u00b7cat");
    EXPECT_EQ(tokens->tokens[2].byteBegin, 3u);
    EXPECT_NE(gemma->description().find("<bos> first"), std::string::npos) << gemma->description();
    EXPECT_EQ(gemma->piece(2), "<bos>");
    EXPECT_EQ(gemma->modelType(), "BPE");
}

// Files written before models carried a "type" are told apart by their fields, and the
// tokenizer says which model it read (BERT's input asks for WordPiece).
TEST(TokenizerJsonModels, AModelWithoutATypeIsNamedByItsFields)
{
    json file = wordLevelFile({"[UNK]", "cat", "##s"});
    file["model"] = {{"vocab", {{"[UNK]", 0}, {"cat", 1}, {"##s", 2}}}, {"unk_token", "[UNK]"}, {"continuing_subword_prefix", "##"}};
    Expected<FastTokenizer> tokenizer = FastTokenizer::parse(file.dump(), "");
    ASSERT_TRUE(tokenizer) << tokenizer.error();
    EXPECT_EQ(tokenizer->modelType(), "WordPiece");
    EXPECT_EQ(piecesOf(*tokenizer, "cats"), (std::vector<std::string>{"cat", "##s"}));
}

}  // namespace
}  // namespace qkv
