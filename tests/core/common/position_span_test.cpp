// Positions as people type them (core/common/position_span.hpp): the one reader of "N" and
// "A:B", tested once with its edge cases; every error quotes the text as typed.
#include <gtest/gtest.h>

#include <string>

#include "core/common/limits.hpp"
#include "core/common/position_span.hpp"

namespace qkv {
namespace {

PositionSpan parsed(std::string_view text, SpanForm form = SpanForm::PositionOrSpan)
{
    const Expected<PositionSpan> span = parsePositionSpan(text, form);
    EXPECT_TRUE(span.ok()) << text << ": " << (span.ok() ? std::string() : span.error());
    return span.ok() ? *span : PositionSpan{-1, -1};
}

std::string refusal(std::string_view text, SpanForm form = SpanForm::PositionOrSpan)
{
    const Expected<PositionSpan> span = parsePositionSpan(text, form);
    EXPECT_FALSE(span.ok()) << text;
    if (span.ok()) return {};
    EXPECT_NE(span.error().find("'" + std::string(text) + "'"), std::string::npos) << span.error();
    return span.error();
}

TEST(PositionSpan, APositionOrAHalfOpenSpanFromZero)
{
    EXPECT_EQ(parsed("120:180"), (PositionSpan{120, 180}));
    EXPECT_EQ(parsed("7"), (PositionSpan{7, 8}));
    EXPECT_EQ(parsed("0"), (PositionSpan{0, 1}));
    EXPECT_EQ(parsed("0:1").size(), 1);
    EXPECT_EQ(parsed(" 7 "), (PositionSpan{7, 8}));  // spaces around each number
    EXPECT_EQ(parsed(" 3 : 9 "), (PositionSpan{3, 9}));
    EXPECT_EQ(parsed("5:17", SpanForm::SpanOnly), (PositionSpan{5, 17}));
    EXPECT_EQ(parsed("999999998:999999999"), (PositionSpan{999999998, 999999999}));  // 9 digits
}

TEST(PositionSpan, EachMistakeIsNamed)
{
    // Not N or A:B: empty, no digits, an empty side, a third part, other characters.
    for (const char* text : {"", " ", ":", "a:b", "12:", ":5", "1:2:3", "1e3", "0x10", "3.5", "1 2", "+3", "--3"})
        EXPECT_NE(refusal(text).find("is not N or A:B"), std::string::npos) << text;
    // Only A:B where a span is asked for.
    EXPECT_NE(refusal("3", SpanForm::SpanOnly).find("'3' is not A:B"), std::string::npos);
    // Empty, reversed or negative.
    for (const char* text : {"5:5", "9:3", "-3", "-3:5", "2:-1"})
        EXPECT_NE(refusal(text).find("is empty or negative (A:B holds A..B-1, so B > A >= 0)"), std::string::npos)
            << text;
    // Huge: more digits than any position has; the message names the token limit.
    for (const char* text : {"99999999999", "0:1000000000", "123456789012345678901234567890"}) {
        const std::string error = refusal(text);
        EXPECT_NE(error.find("too large"), std::string::npos) << error;
        EXPECT_NE(error.find(std::to_string(limits::maxTokens)), std::string::npos) << error;
    }
}

TEST(PositionSpan, WithinACountTheLastPositionIsNamed)
{
    EXPECT_EQ(*parsePositionSpan("0:200", 200, "query"), (PositionSpan{0, 200}));
    EXPECT_EQ(*parsePositionSpan("199", 200, "query"), (PositionSpan{199, 200}));
    const Expected<PositionSpan> past = parsePositionSpan("0:201", 200, "query");
    ASSERT_FALSE(past.ok());
    EXPECT_EQ(past.error(), "'0:201' reaches past the last query, 199.");
    const Expected<PositionSpan> one = parsePositionSpan("200", 200, "key");
    ASSERT_FALSE(one.ok());
    EXPECT_EQ(one.error(), "'200' reaches past the last key, 199.");
    // The form's mistakes come first, the same as without a count.
    const Expected<PositionSpan> bad = parsePositionSpan("9:3", 200, "query");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error(), parsePositionSpan("9:3").error());
    EXPECT_FALSE(parsePositionSpan("0", 0, "query").ok());
}

}  // namespace
}  // namespace qkv
