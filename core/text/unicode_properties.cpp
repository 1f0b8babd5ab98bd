#include "core/text/unicode_properties.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace qkv::unicode {

namespace {

struct CodePointRange {
    char32_t first;
    char32_t last;
};

// Characters first, first + stride, ..., last lower-case to themselves + delta.
struct LowerCaseRun {
    char32_t first;
    char32_t last;
    int stride;
    int delta;
};

struct AccentStripped {
    char32_t from;
    int count;
    char32_t to[3];
};

#include "core/text/unicode_tables.inc"

template <std::size_t N>
bool inRanges(const CodePointRange (&ranges)[N], char32_t c)
{
    // The first range whose last code point is >= c; c is inside when that range starts <= c.
    const auto* it = std::lower_bound(std::begin(ranges), std::end(ranges), c,
                                      [](const CodePointRange& r, char32_t value) { return r.last < value; });
    return it != std::end(ranges) && it->first <= c;
}

bool inRange(char32_t c, char32_t first, char32_t last) { return c >= first && c <= last; }

// Hangul syllable decomposition (Unicode section 3.12, "Conjoining Jamo Behavior").
constexpr char32_t kHangulFirst = 0xAC00, kHangulLast = 0xD7A3;
constexpr char32_t kLeadBase = 0x1100, kVowelBase = 0x1161, kTrailBase = 0x11A7;
constexpr char32_t kVowelCount = 21, kTrailCount = 28;

}  // namespace

std::string_view unicodeVersion() { return kUnicodeVersion; }

bool isLetter(char32_t c) { return inRanges(kLetter, c); }
bool isNumber(char32_t c) { return inRanges(kNumber, c); }
bool isPunctuation(char32_t c) { return inRanges(kPunctuation, c); }
bool isNonspacingMark(char32_t c) { return inRanges(kNonspacingMark, c); }
bool isOther(char32_t c) { return c > 0x10FFFF || inRanges(kOther, c); }
bool isSpaceSeparator(char32_t c) { return inRanges(kSpaceSeparator, c); }

bool isWhiteSpace(char32_t c)
{
    return inRange(c, 0x09, 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           inRange(c, 0x2000, 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
           c == 0x3000;
}

bool isCjkIdeograph(char32_t c)
{
    return inRange(c, 0x4E00, 0x9FFF) || inRange(c, 0x3400, 0x4DBF) || inRange(c, 0x20000, 0x2A6DF) ||
           inRange(c, 0x2A700, 0x2B73F) || inRange(c, 0x2B740, 0x2B81F) || inRange(c, 0x2B820, 0x2CEAF) ||
           inRange(c, 0xF900, 0xFAFF) || inRange(c, 0x2F800, 0x2FA1F);
}

int appendLowerCase(char32_t c, char32_t out[3])
{
    if (c == 0x130) {  // LATIN CAPITAL LETTER I WITH DOT ABOVE: "i" + COMBINING DOT ABOVE
        out[0] = 'i';
        out[1] = 0x307;
        return 2;
    }
    const auto* it = std::lower_bound(std::begin(kLowerCase), std::end(kLowerCase), c,
                                      [](const LowerCaseRun& r, char32_t value) { return r.last < value; });
    if (it != std::end(kLowerCase) && it->first <= c && (c - it->first) % static_cast<char32_t>(it->stride) == 0)
        out[0] = static_cast<char32_t>(static_cast<std::int64_t>(c) + it->delta);
    else
        out[0] = c;
    return 1;
}

int appendAccentStripped(char32_t c, char32_t out[3])
{
    if (isNonspacingMark(c)) return 0;
    if (inRange(c, kHangulFirst, kHangulLast)) {
        const char32_t index = c - kHangulFirst;
        out[0] = kLeadBase + index / (kVowelCount * kTrailCount);
        out[1] = kVowelBase + (index % (kVowelCount * kTrailCount)) / kTrailCount;
        const char32_t trail = index % kTrailCount;
        if (trail == 0) return 2;
        out[2] = kTrailBase + trail;
        return 3;
    }
    const auto* it = std::lower_bound(std::begin(kAccentStripped), std::end(kAccentStripped), c,
                                      [](const AccentStripped& e, char32_t value) { return e.from < value; });
    if (it == std::end(kAccentStripped) || it->from != c) {
        out[0] = c;
        return 1;
    }
    std::copy(it->to, it->to + it->count, out);
    return it->count;
}

}  // namespace qkv::unicode
