#include <gtest/gtest.h>

#include "core/text/tokenizer.hpp"

namespace qkv {
namespace {

std::vector<std::string> texts(std::string_view input)
{
    std::vector<std::string> out;
    for (const Token& token : tokenize(input)) out.push_back(token.text);
    return out;
}

using Texts = std::vector<std::string>;

TEST(Tokenizer, WordsAndPunctuationAreSeparateTokens)
{
    EXPECT_EQ(texts("The cat sat, on the mat."), (Texts{"The", "cat", "sat", ",", "on", "the", "mat", "."}));
    EXPECT_EQ(texts("Hello!!  (world)"), (Texts{"Hello", "!", "!", "(", "world", ")"}));
    EXPECT_EQ(texts("state-of-the-art"), (Texts{"state", "-", "of", "-", "the", "-", "art"}));
}

TEST(Tokenizer, ApostropheInsideAWordStays)
{
    EXPECT_EQ(texts("don't stop 'quoted'"), (Texts{"don't", "stop", "'", "quoted", "'"}));
    EXPECT_EQ(texts("l’homme s'est"), (Texts{"l’homme", "s'est"}));
}

TEST(Tokenizer, EmptyAndWhitespaceOnlyGiveNoTokens)
{
    EXPECT_TRUE(tokenize("").empty());
    EXPECT_TRUE(tokenize(" \t\n\r  ").empty());
    EXPECT_TRUE(tokenize("\xC2\xA0\xE3\x80\x80").empty());  // no-break space, ideographic space
}

TEST(Tokenizer, ByteSpansPointBackIntoTheInput)
{
    const std::string input = "  été, naïve café ";
    const std::vector<Token> tokens = tokenize(input);
    ASSERT_EQ(tokens.size(), 4u);
    for (const Token& token : tokens)
        EXPECT_EQ(input.substr(token.byteBegin, token.byteEnd - token.byteBegin), token.text);
    EXPECT_EQ(tokens[0].text, "été");
    EXPECT_EQ(tokens[0].byteBegin, 2u);
    EXPECT_EQ(tokens[0].byteEnd, 7u);  // é is two bytes
}

TEST(Tokenizer, AccentsCjkAndEmojiSurviveWhole)
{
    EXPECT_EQ(texts("Über naïveté"), (Texts{"Über", "naïveté"}));
    EXPECT_EQ(texts("我爱你。"), (Texts{"我", "爱", "你", "。"}));
    EXPECT_EQ(texts("ok👍🏽 go"), (Texts{"ok", "👍🏽", "go"}));
    EXPECT_EQ(texts("👨‍👩‍👧"), (Texts{"👨‍👩‍👧"}));    // a zero-width-joined family stays one token
    EXPECT_EQ(texts("🇫🇷🇩🇪"), (Texts{"🇫🇷", "🇩🇪"}));  // flags pair up
    EXPECT_EQ(texts("cafe\xCC\x81"), (Texts{"cafe\xCC\x81"}));  // e + combining acute
    EXPECT_EQ(texts("Привет, мир"), (Texts{"Привет", ",", "мир"}));
}

TEST(Tokenizer, MalformedBytesBecomeReplacementTokensWithoutSplittingNeighbours)
{
    const std::string input = "ab\xFF" "cd \xE2\x82 \xC3\xA9";  // stray byte, truncated 3-byte seq
    const std::vector<Token> tokens = tokenize(input);
    std::vector<std::string> got;
    for (const Token& t : tokens) got.push_back(t.text);
    EXPECT_EQ(got, (Texts{"ab", "\xEF\xBF\xBD", "cd", "\xEF\xBF\xBD", "\xEF\xBF\xBD", "é"}));
    EXPECT_EQ(tokens[1].byteBegin, 2u);
    EXPECT_EQ(tokens[1].byteEnd, 3u);
    // Overlong encodings and surrogates are malformed too.
    EXPECT_EQ(texts("\xC0\xAF"), (Texts{"\xEF\xBF\xBD", "\xEF\xBF\xBD"}));
    EXPECT_EQ(texts("\xED\xA0\x80").size(), 3u);
}

TEST(Tokenizer, NeverSplitsAMultiByteCharacterOnRandomInput)
{
    // Property: every token's span is within the input and starts on a character boundary.
    std::uint64_t state = 12345;
    for (int round = 0; round < 2000; ++round) {
        std::string input;
        const int length = static_cast<int>(state % 24);
        for (int i = 0; i < length; ++i) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            input += static_cast<char>(state >> 56);
        }
        std::size_t previousEnd = 0;
        for (const Token& token : tokenize(input)) {
            ASSERT_LE(token.byteBegin, token.byteEnd);
            ASSERT_LE(token.byteEnd, input.size());
            ASSERT_GE(token.byteBegin, previousEnd);
            ASSERT_FALSE(token.text.empty());
            previousEnd = token.byteEnd;
        }
    }
}

TEST(LowerCase, FoldsCommonAlphabetsAndLeavesTheRest)
{
    EXPECT_EQ(lowerCase("The CAT"), "the cat");
    EXPECT_EQ(lowerCase("ÉTÉ Œuvre Ÿ"), "été œuvre ÿ");
    EXPECT_EQ(lowerCase("ΑΘΗΝΑ Москва"), "αθηνα москва");
    EXPECT_EQ(lowerCase("我 👍 ß"), "我 👍 ß");
}

}  // namespace
}  // namespace qkv
