// WordPiece and BERT's basic tokenization: Hugging Face's own test cases
// (tests/models/bert/test_tokenization_bert.py), BERT's "unaffable" example, spans, limits, and
// what vocab.txt files are refused with.

#include <gtest/gtest.h>

#include "core/common/limits.hpp"
#include "core/text/bert_basic_tokenizer.hpp"
#include "core/text/vocabulary_files.hpp"
#include "core/text/wordpiece_tokenizer.hpp"

namespace qkv {
namespace {

using Strings = std::vector<std::string>;

WordPieceVocab vocabOf(const Strings& tokens, bool requireClsSep = false)
{
    std::string text;
    for (const std::string& token : tokens) text += token + "\n";
    auto vocab = parseWordPieceVocab(text, "test vocab", requireClsSep);
    EXPECT_TRUE(vocab.ok()) << vocab.error();
    return vocab.ok() ? std::move(*vocab) : WordPieceVocab{};
}

Strings pieces(const WordPieceVocab& vocab, std::string_view text, WordPieceOptions options = {})
{
    auto got = wordPieceTokenize(vocab, text, options);
    EXPECT_TRUE(got.ok()) << got.error();
    Strings out;
    if (got.ok())
        for (const SubwordToken& token : got->tokens) out.push_back(token.piece);
    return out;
}

WordPieceOptions bare()
{
    WordPieceOptions options;
    options.addClassAndSeparator = false;
    return options;
}

Strings basicWords(std::string_view text, BertBasicOptions options = {})
{
    Strings out;
    for (const BasicWord& word : bertBasicTokenize(text, 0, text.size(), options, 1000)) out.push_back(word.text);
    return out;
}

const Strings kHuggingFaceVocab = {"[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed", "wa", "un", "runn", "##ing", ","};

TEST(WordPiece, HuggingFaceFullTokenizerCase)
{
    const WordPieceVocab vocab = vocabOf(kHuggingFaceVocab, true);
    auto got = wordPieceTokenize(vocab, "UNwant\u00E9d,running", bare());
    ASSERT_TRUE(got.ok()) << got.error();
    EXPECT_EQ(pieces(vocab, "UNwant\u00E9d,running", bare()), (Strings{"un", "##want", "##ed", ",", "runn", "##ing"}));
    EXPECT_EQ(got->ids(), (std::vector<std::int32_t>{7, 4, 5, 10, 8, 9}));
    // With the model's framing: [CLS] ... [SEP].
    auto framed = wordPieceTokenize(vocab, "UNwant\u00E9d,running");
    ASSERT_TRUE(framed.ok());
    EXPECT_EQ(framed->ids(), (std::vector<std::int32_t>{1, 7, 4, 5, 10, 8, 9, 2}));
}

TEST(WordPiece, HuggingFaceWordpieceCases)
{
    const WordPieceVocab vocab = vocabOf({"[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed", "wa", "un", "runn", "##ing"});
    EXPECT_EQ(pieces(vocab, "", bare()), Strings{});
    EXPECT_EQ(pieces(vocab, "unwanted running", bare()), (Strings{"un", "##want", "##ed", "runn", "##ing"}));
    EXPECT_EQ(pieces(vocab, "unwantedX running", bare()), (Strings{"[UNK]", "runn", "##ing"}));
}

TEST(WordPiece, UnaffableSplitsAsInBert)
{
    const WordPieceVocab vocab = vocabOf({"[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "aff", "able", "##a"});
    EXPECT_EQ(pieces(vocab, "unaffable"), (Strings{"[CLS]", "un", "##aff", "##able", "[SEP]"}));
}

TEST(WordPiece, GreedyLongestMatchFirstIsNotTheFewestPieces)
{
    // "abcd": the longest first piece "abc" leaves "d", which has no "##d" -> [UNK], even
    // though "ab" + "##cd" would have worked. Greedy, as BERT does.
    const WordPieceVocab vocab = vocabOf({"[UNK]", "abc", "ab", "##cd"});
    EXPECT_EQ(pieces(vocab, "abcd", bare()), (Strings{"[UNK]"}));
    EXPECT_EQ(pieces(vocab, "abcd abc ab", bare()), (Strings{"[UNK]", "abc", "ab"}));
}

TEST(WordPiece, HuggingFaceBasicTokenizerCases)
{
    EXPECT_EQ(basicWords("ah\u535A\u63A8zz"), (Strings{"ah", "\u535A", "\u63A8", "zz"}));
    EXPECT_EQ(basicWords(" \tHeLLo!how  \n Are yoU?  "), (Strings{"hello", "!", "how", "are", "you", "?"}));
    EXPECT_EQ(basicWords("H\u00E9llo"), (Strings{"hello"}));
    EXPECT_EQ(basicWords(" \tH\u00E4LLo!how  \n Are yoU?  ", {true, false, true}),
              (Strings{"h\u00E4llo", "!", "how", "are", "you", "?"}));
    EXPECT_EQ(basicWords(" \tHeLLo!how  \n Are yoU?  ", {false, false, true}),
              (Strings{"HeLLo", "!", "how", "Are", "yoU", "?"}));
    EXPECT_EQ(basicWords(" \tH\u00E4LLo!how  \n Are yoU?  ", {false, true, true}),
              (Strings{"HaLLo", "!", "how", "Are", "yoU", "?"}));
    EXPECT_EQ(basicWords("ah\u535A\u63A8zz", {true, true, false}), (Strings{"ah\u535A\u63A8zz"}));
}

TEST(WordPiece, SpansPointIntoTheTypedText)
{
    const WordPieceVocab vocab = vocabOf(kHuggingFaceVocab, true);
    const std::string text = "UNwant\u00E9d,running";
    auto got = wordPieceTokenize(vocab, text);
    ASSERT_TRUE(got.ok());
    const std::vector<std::pair<std::size_t, std::size_t>> expected = {
        {0, 0}, {0, 2}, {2, 6}, {6, 9}, {9, 10}, {10, 14}, {14, 17}, {17, 17}};
    ASSERT_EQ(got->tokens.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(got->tokens[i].byteBegin, expected[i].first) << i;
        EXPECT_EQ(got->tokens[i].byteEnd, expected[i].second) << i;
    }
    EXPECT_TRUE(got->tokens.front().special);
    EXPECT_TRUE(got->tokens.back().special);
}

TEST(WordPiece, ATypedCombiningAccentJoinsTheSpanOfItsLetter)
{
    const WordPieceVocab vocab = vocabOf({"[UNK]", "e", "!"});
    const std::string text = "e\u0301 !\u0301";  // e + COMBINING ACUTE, then ! + COMBINING ACUTE
    auto got = wordPieceTokenize(vocab, text, bare());
    ASSERT_TRUE(got.ok());
    ASSERT_EQ(got->tokens.size(), 2u);
    EXPECT_EQ(got->tokens[0].piece, "e");
    EXPECT_EQ(got->tokens[0].byteEnd, 3u);
    EXPECT_EQ(got->tokens[1].piece, "!");
    EXPECT_EQ(got->tokens[1].byteBegin, 4u);
    EXPECT_EQ(got->tokens[1].byteEnd, 7u);
}

TEST(WordPiece, WordsLongerThanTheLimitAreUnknown)
{
    const WordPieceVocab vocab = vocabOf({"[UNK]", "a", "##a"});
    EXPECT_EQ(pieces(vocab, std::string(100, 'a'), bare()).size(), 100u);
    EXPECT_EQ(pieces(vocab, std::string(101, 'a'), bare()), Strings{"[UNK]"});
    // The limit counts characters, not bytes.
    const WordPieceVocab accented = vocabOf({"[UNK]", "\u00E9", "##\u00E9"});
    std::string hundred;
    for (int i = 0; i < 100; ++i) hundred += "\u00E9";
    WordPieceOptions cased = bare();
    cased.lowerCase = false;
    EXPECT_EQ(pieces(accented, hundred, cased).size(), 100u);
}

TEST(WordPiece, TypedSpecialTokensStayWhole)
{
    const WordPieceVocab vocab = vocabOf({"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "[", "]", "mask", "cat"}, true);
    EXPECT_EQ(pieces(vocab, "the [MASK] cat"), (Strings{"[CLS]", "the", "[MASK]", "cat", "[SEP]"}));
    EXPECT_EQ(pieces(vocab, "the[MASK]cat"), (Strings{"[CLS]", "the", "[MASK]", "cat", "[SEP]"}));
    // Case-sensitive, as in Hugging Face: "[mask]" is ordinary text.
    EXPECT_EQ(pieces(vocab, "the [mask] cat"), (Strings{"[CLS]", "the", "[", "mask", "]", "cat", "[SEP]"}));
    WordPieceOptions plain;
    plain.keepTypedSpecialTokens = false;
    EXPECT_EQ(pieces(vocab, "[MASK]", plain), (Strings{"[CLS]", "[", "mask", "]", "[SEP]"}));
    auto got = wordPieceTokenize(vocab, "the [MASK] cat");
    ASSERT_TRUE(got.ok());
    EXPECT_TRUE(got->tokens[2].special);
    EXPECT_EQ(got->tokens[2].byteBegin, 4u);
    EXPECT_EQ(got->tokens[2].byteEnd, 10u);
}

TEST(WordPiece, TooManyTokensIsAnErrorNotATruncation)
{
    const WordPieceVocab vocab = vocabOf({"[UNK]", "[CLS]", "[SEP]", "a"}, true);
    const auto words = [](Index n) {
        std::string text;
        for (Index i = 0; i < n; ++i) text += "a ";
        return text;
    };
    auto fits = wordPieceTokenize(vocab, words(limits::maxTokens - 2));
    ASSERT_TRUE(fits.ok()) << fits.error();
    EXPECT_EQ(static_cast<Index>(fits->tokens.size()), limits::maxTokens);
    auto over = wordPieceTokenize(vocab, words(limits::maxTokens - 1));
    ASSERT_FALSE(over.ok());
    EXPECT_NE(over.error().find(std::to_string(limits::maxTokens)), std::string::npos) << over.error();
    // Pieces count too: one word of many pieces.
    const WordPieceVocab letters = vocabOf({"[UNK]", "[CLS]", "[SEP]", "a", "##a"}, true);
    std::string text;
    for (int i = 0; i < 400; ++i) text += std::string(90, 'a') + " ";  // 400 words x 90 pieces
    EXPECT_FALSE(wordPieceTokenize(letters, text).ok());
    EXPECT_FALSE(wordPieceTokenize(vocab, std::string(limits::maxSentenceBytes + 1, 'a')).ok());
}

TEST(WordPiece, FramingNeedsClsAndSep)
{
    const WordPieceVocab vocab = vocabOf({"[UNK]", "a"});
    EXPECT_FALSE(wordPieceTokenize(vocab, "a").ok());
    EXPECT_TRUE(wordPieceTokenize(vocab, "a", bare()).ok());
}

// ---- vocab.txt ----

std::string refusal(std::string_view text, bool requireClsSep = true)
{
    auto vocab = parseWordPieceVocab(text, "vocab.txt", requireClsSep);
    EXPECT_FALSE(vocab.ok());
    if (vocab.ok()) return "";
    EXPECT_EQ(vocab.error().rfind("vocab.txt: ", 0), 0u) << vocab.error();
    return vocab.error();
}

TEST(WordPieceVocabFile, IdsAreLineNumbers)
{
    auto vocab = parseWordPieceVocab("[PAD]\r\n[UNK]\r\n\r\n[CLS]\r\n[SEP]\r\nthe\r\n##s", "v");
    ASSERT_TRUE(vocab.ok()) << vocab.error();
    EXPECT_EQ(vocab->tokens.size(), 7u);
    EXPECT_EQ(vocab->unknownId, 1);
    EXPECT_EQ(vocab->classId, 3);
    EXPECT_EQ(vocab->separatorId, 4);
    EXPECT_EQ(*vocab->id("the"), 5);
    EXPECT_EQ(*vocab->id("##s"), 6);  // the last line needs no newline
    EXPECT_EQ(vocab->tokens[2], "");  // an empty line keeps its id
    EXPECT_FALSE(vocab->id("").has_value());
}

TEST(WordPieceVocabFile, BadFilesAreRefusedWithTheReason)
{
    EXPECT_NE(refusal("").find("empty"), std::string::npos);
    const std::string twice = refusal("[UNK]\n[CLS]\n[SEP]\nthe\ncat\nthe\n");
    EXPECT_NE(twice.find("line 6"), std::string::npos) << twice;
    EXPECT_NE(twice.find("line 4"), std::string::npos) << twice;
    EXPECT_NE(twice.find("\"the\""), std::string::npos) << twice;
    const std::string longLine = refusal("[UNK]\n" + std::string(5000, 'x') + "\n");
    EXPECT_NE(longLine.find("line 2"), std::string::npos) << longLine;
    const std::string binary = refusal("[UNK]\n[CLS]\nab\xFF\n");
    EXPECT_NE(binary.find("line 3"), std::string::npos) << binary;
    EXPECT_NE(binary.find("UTF-8"), std::string::npos) << binary;
    EXPECT_NE(refusal("[CLS]\n[SEP]\nthe\n").find("[UNK]"), std::string::npos);
    EXPECT_NE(refusal("[UNK]\n[SEP]\nthe\n").find("[CLS]"), std::string::npos);
    EXPECT_TRUE(parseWordPieceVocab("[UNK]\nthe\n", "v", false).ok());
    EXPECT_NE(refusal("\n\n\n").find("[UNK]"), std::string::npos);
}

TEST(WordPieceVocabFile, HugeFilesAreRefused)
{
    const std::string lines(limits::maxVocabularyEntries + 1, '\n');
    const std::string message = refusal(lines);
    EXPECT_NE(message.find(std::to_string(limits::maxVocabularyEntries)), std::string::npos) << message;
}

}  // namespace
}  // namespace qkv
