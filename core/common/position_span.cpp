// Positions as people type them (position_span.hpp).
#include "core/common/position_span.hpp"

#include <optional>
#include <string>

#include "core/common/limits.hpp"

namespace qkv {
namespace {

// At most this many digits: 10^9 is far past any position (limits::maxTokens), and no sum of
// two such numbers overflows.
constexpr std::size_t kMostDigits = 9;

struct Number {
    enum class Kind { Valid, NotANumber, TooLarge } kind = Kind::NotANumber;
    Index value = 0;  // negative when the text has a minus sign
};

// A whole number, spaces around it allowed, an optional minus sign before its digits.
Number number(std::string_view text)
{
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    const bool negative = !text.empty() && text.front() == '-';
    if (negative) text.remove_prefix(1);
    if (text.empty()) return {};
    for (const char c : text)
        if (c < '0' || c > '9') return {};
    if (text.size() > kMostDigits) return {Number::Kind::TooLarge};
    Index value = 0;
    for (const char c : text) value = value * 10 + (c - '0');
    return {Number::Kind::Valid, negative ? -value : value};
}

// The text as typed, quoted; at most 40 characters of it.
std::string quoted(std::string_view text)
{
    std::string out(1, '\'');
    out.append(text.substr(0, 40));
    out.push_back('\'');
    return out;
}

}  // namespace

Expected<PositionSpan> parsePositionSpan(std::string_view text, SpanForm form)
{
    const std::size_t colon = text.find(':');
    const bool span = colon != std::string_view::npos;
    const Number first = number(text.substr(0, colon));
    const Number end = span ? number(text.substr(colon + 1)) : Number{first.kind, first.value + 1};
    const char* allowed = form == SpanForm::SpanOnly ? "A:B" : "N or A:B";
    if ((form == SpanForm::SpanOnly && !span) || first.kind == Number::Kind::NotANumber ||
        end.kind == Number::Kind::NotANumber)
        return Error{quoted(text) + " is not " + allowed + " (positions from 0; A:B holds A..B-1, e.g. 120:180)"};
    if (first.kind == Number::Kind::TooLarge || end.kind == Number::Kind::TooLarge)
        return Error{quoted(text) + " is too large: a sentence has at most " + std::to_string(limits::maxTokens) +
                     " tokens"};
    if (first.value < 0 || end.value <= first.value)
        return Error{quoted(text) + " is empty or negative (A:B holds A..B-1, so B > A >= 0)"};
    return PositionSpan{first.value, end.value};
}

Expected<PositionSpan> parsePositionSpan(std::string_view text, Index count, std::string_view noun, SpanForm form)
{
    Expected<PositionSpan> span = parsePositionSpan(text, form);
    if (!span) return span;
    if (count < 1) return Error{quoted(text) + ": there is no " + std::string(noun)};
    if (span->end > count)
        return Error{quoted(text) + " reaches past the last " + std::string(noun) + ", " + std::to_string(count - 1) +
                     "."};
    return span;
}

}  // namespace qkv
