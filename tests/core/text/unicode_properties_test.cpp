// The generated Unicode tables against Python's unicodedata, on every code point below U+0800
// and a seeded sample of the rest (tests/data/tokenizers/unicode_samples.json).

#include <gtest/gtest.h>

#include "core/text/bert_basic_tokenizer.hpp"
#include "core/text/unicode_properties.hpp"
#include "core/text/utf8.hpp"
#include "tokenizer_test_support.hpp"

namespace qkv {
namespace {

std::vector<char32_t> lowered(char32_t c)
{
    char32_t out[3];
    const int n = unicode::appendLowerCase(c, out);
    return {out, out + n};
}

std::vector<char32_t> stripped(char32_t c)
{
    char32_t out[3];
    const int n = unicode::appendAccentStripped(c, out);
    return {out, out + n};
}

TEST(UnicodeProperties, MatchPythonsUnicodeDatabase)
{
    const nlohmann::json samples =
        nlohmann::json::parse(testing::readText(testing::tokenizerFixture("unicode_samples.json")), nullptr, false);
    ASSERT_FALSE(samples.is_discarded());
    EXPECT_EQ(samples.at("unicode_version").get<std::string>(), unicode::unicodeVersion());
    std::size_t checked = 0;
    for (const auto& row : samples.at("rows")) {
        const auto c = row[0].get<char32_t>();
        const std::string category = row[1].get<std::string>();
        const auto lower = row[2].get<std::vector<char32_t>>();
        const auto strip = row[3].get<std::vector<char32_t>>();
        const bool whiteSpace = row[4].get<int>() != 0;
        SCOPED_TRACE(::testing::Message() << "U+" << std::hex << std::uppercase << static_cast<std::uint32_t>(c)
                                          << " (" << category << ")");
        EXPECT_EQ(unicode::isLetter(c), category[0] == 'L');
        EXPECT_EQ(unicode::isNumber(c), category[0] == 'N');
        EXPECT_EQ(unicode::isPunctuation(c), category[0] == 'P');
        EXPECT_EQ(unicode::isNonspacingMark(c), category == "Mn");
        EXPECT_EQ(unicode::isOther(c), category[0] == 'C');
        EXPECT_EQ(unicode::isSpaceSeparator(c), category == "Zs");
        EXPECT_EQ(unicode::isWhiteSpace(c), whiteSpace);
        EXPECT_EQ(lowered(c), lower);
        EXPECT_EQ(stripped(c), strip);
        ++checked;
        if (::testing::Test::HasFailure()) break;  // one code point's report is enough
    }
    EXPECT_GT(checked, 7000u);
}

TEST(UnicodeProperties, KnownCharacters)
{
    EXPECT_TRUE(unicode::isLetter(U'é'));
    EXPECT_TRUE(unicode::isLetter(U'我'));
    EXPECT_TRUE(unicode::isNumber(U'٣'));  // ARABIC-INDIC DIGIT THREE
    EXPECT_TRUE(unicode::isNumber(U'½'));
    EXPECT_FALSE(unicode::isLetter(0x1F355));  // PIZZA is a symbol (So)
    EXPECT_TRUE(unicode::isOther(0x200B));     // ZERO WIDTH SPACE is a format character
    EXPECT_TRUE(unicode::isOther(0x10FFFF));   // unassigned
    EXPECT_TRUE(unicode::isCjkIdeograph(U'我'));
    EXPECT_FALSE(unicode::isCjkIdeograph(U'ひ'));  // kana stays inside words, as in BERT
    EXPECT_EQ(stripped(U'É'), std::vector<char32_t>{U'E'});
    EXPECT_EQ(stripped(U'ß'), std::vector<char32_t>{U'ß'});         // no decomposition
    EXPECT_EQ(stripped(0xAC01), (std::vector<char32_t>{0x1100, 0x1161, 0x11A8}));  // 각 -> jamo
    EXPECT_EQ(lowered(0x130), (std::vector<char32_t>{U'i', 0x307}));
    EXPECT_EQ(lowered(U'Σ'), std::vector<char32_t>{U'σ'});  // no final-sigma rule
    EXPECT_TRUE(isBertPunctuation(U'$'));  // ASCII symbols count as punctuation in BERT
    EXPECT_TRUE(isBertPunctuation(U'«'));
    EXPECT_FALSE(isBertPunctuation(U'×'));  // Sm, not P*
}

TEST(Utf8, MalformedBytesDecodeOneByOne)
{
    const std::string text = "a\xC3\xA9\xFF\xE2\x82z\xF0\x9F\x8D\x95";
    const auto chars = utf8::decodeWithSpans(text);
    ASSERT_EQ(chars.size(), 7u);
    EXPECT_EQ(chars[1].codePoint, U'é');
    EXPECT_EQ(chars[2].codePoint, utf8::kReplacementCharacter);
    EXPECT_EQ(chars[2].byteEnd - chars[2].byteBegin, 1u);
    EXPECT_EQ(chars[3].codePoint, utf8::kReplacementCharacter);  // E2 82 is cut short by 'z'
    EXPECT_EQ(chars[4].codePoint, utf8::kReplacementCharacter);
    EXPECT_EQ(chars[5].codePoint, U'z');
    EXPECT_EQ(chars[6].codePoint, char32_t{0x1F355});
    EXPECT_EQ(chars[6].byteBegin, 7u);
    EXPECT_EQ(chars[6].byteEnd, 11u);
    EXPECT_EQ(utf8::firstInvalidByte(text), 3u);
    EXPECT_EQ(utf8::firstInvalidByte("\xF0\x9F\x8D\x95"), 4u);
    EXPECT_EQ(utf8::firstInvalidByte("\xED\xA0\x80"), 0u);  // a surrogate
    EXPECT_EQ(utf8::firstInvalidByte("\xC0\xAF"), 0u);      // overlong
}

}  // namespace
}  // namespace qkv
