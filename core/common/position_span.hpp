#pragma once
// Positions as people type them: "120" (that position alone) or "120:180" (positions 120..179,
// half-open, from 0). The one reader of such text: export's --rows and --cols, figure's --query
// and the Heads tab's queries box, so each says the same thing about the same mistake.

#include <string_view>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

// Positions [begin, end), from 0.
struct PositionSpan {
    Index begin = 0;
    Index end = 0;

    Index size() const { return end - begin; }
    bool operator==(const PositionSpan&) const = default;
};

// What the text may be: a position N or a span A:B, or only a span A:B.
enum class SpanForm { PositionOrSpan, SpanOnly };

// Spaces around each number are allowed. Errors quote the text and say what is allowed: not
// N or A:B (anything but digits, an empty side, a third part), empty or negative (B <= A, a
// minus sign), too large (a number of more than 9 digits: no sentence reaches it, since
// positions stay below limits::maxTokens).
Expected<PositionSpan> parsePositionSpan(std::string_view text, SpanForm form = SpanForm::PositionOrSpan);

// As above, and within `count` positions of `noun`s ("query"): the error of a span past the
// last one names it ("'0:201' reaches past the last query, 199.").
Expected<PositionSpan> parsePositionSpan(std::string_view text, Index count, std::string_view noun,
                                         SpanForm form = SpanForm::PositionOrSpan);

}  // namespace qkv
