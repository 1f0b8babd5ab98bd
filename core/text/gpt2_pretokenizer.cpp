#include "core/text/gpt2_pretokenizer.hpp"

#include "core/text/unicode_properties.hpp"

namespace qkv {

namespace {

class PatternMatcher {
public:
    explicit PatternMatcher(std::span<const utf8::SpannedChar> chars) : chars_(chars) {}

    // The end of the match at `i` (i < size); always > i, since the alternatives together
    // accept any character.
    std::size_t matchAt(std::size_t i) const
    {
        if (const std::size_t end = contraction(i)) return end;
        if (const std::size_t end = optionalSpaceThenRun(i, [](char32_t c) { return unicode::isLetter(c); })) return end;
        if (const std::size_t end = optionalSpaceThenRun(i, [](char32_t c) { return unicode::isNumber(c); })) return end;
        if (const std::size_t end = optionalSpaceThenRun(i, [](char32_t c) { return isOtherClass(c); })) return end;
        return whitespace(i);
    }

private:
    char32_t at(std::size_t i) const { return i < chars_.size() ? chars_[i].codePoint : 0; }

    // [^\s\p{L}\p{N}]
    static bool isOtherClass(char32_t c)
    {
        return !unicode::isWhiteSpace(c) && !unicode::isLetter(c) && !unicode::isNumber(c);
    }

    // 's|'t|'re|'ve|'m|'ll|'d (ASCII apostrophe, lower case only); 0 when none matches.
    std::size_t contraction(std::size_t i) const
    {
        if (at(i) != '\'') return 0;
        const char32_t a = at(i + 1);
        const char32_t b = at(i + 2);
        if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
        if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
        return 0;
    }

    // " ?X+" for a class X; 0 when it does not match. The optional space is taken only when an X
    // follows it (otherwise the regex backtracks to the empty choice, where X+ fails on the space).
    template <class Class>
    std::size_t optionalSpaceThenRun(std::size_t i, Class inClass) const
    {
        std::size_t j = i;
        if (at(j) == ' ' && j + 1 < chars_.size() && inClass(at(j + 1))) ++j;
        if (j >= chars_.size() || !inClass(at(j))) return 0;
        while (j < chars_.size() && inClass(at(j))) ++j;
        return j;
    }

    // "\s+(?!\S)|\s+": a run of whitespace, less its last character when a non-space follows
    // (that character then starts the next piece, as " word"), unless the run is one character.
    std::size_t whitespace(std::size_t i) const
    {
        std::size_t end = i;
        while (end < chars_.size() && unicode::isWhiteSpace(at(end))) ++end;
        if (end == i) return i + 1;  // unreachable: the class alternative accepts non-space
        if (end < chars_.size() && end - i > 1) return end - 1;
        return end;
    }

    std::span<const utf8::SpannedChar> chars_;
};

}  // namespace

std::vector<CharRange> gpt2PreTokenize(std::span<const utf8::SpannedChar> chars)
{
    std::vector<CharRange> pieces;
    const PatternMatcher matcher(chars);
    for (std::size_t i = 0; i < chars.size();) {
        const std::size_t end = matcher.matchAt(i);
        pieces.push_back({i, end});
        i = end;
    }
    return pieces;
}

}  // namespace qkv
