#include "core/text/tokenizer.hpp"

#include <atomic>

#include "core/text/utf8.hpp"

namespace qkv {

namespace {

using utf8::decodeAt;
using utf8::Decoded;
using utf8::kReplacementCharacter;

bool inRange(char32_t c, char32_t low, char32_t high) { return c >= low && c <= high; }

bool isSpace(char32_t c)
{
    return c == ' ' || inRange(c, 0x09, 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680 || inRange(c, 0x2000, 0x200B) ||
           c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

// Marks that belong to the character before them (accents typed as combining characters,
// variation selectors, emoji skin tones, the keycap mark).
bool isCombining(char32_t c)
{
    return inRange(c, 0x0300, 0x036F) || inRange(c, 0x1AB0, 0x1AFF) || inRange(c, 0x1DC0, 0x1DFF) ||
           inRange(c, 0x20D0, 0x20FF) || inRange(c, 0xFE00, 0xFE0F) || inRange(c, 0xFE20, 0xFE2F) ||
           inRange(c, 0x1F3FB, 0x1F3FF) || inRange(c, 0xE0100, 0xE01EF);
}

bool isApostrophe(char32_t c) { return c == '\'' || c == 0x2019; }

// Characters that stand alone as one token each: CJK ideographs and kana (no spaces between
// words in those scripts) and emoji.
bool isStandalone(char32_t c)
{
    return inRange(c, 0x3040, 0x30FF) || inRange(c, 0x3400, 0x4DBF) || inRange(c, 0x4E00, 0x9FFF) ||
           inRange(c, 0xF900, 0xFAFF) || inRange(c, 0x20000, 0x3FFFF) || inRange(c, 0x1F000, 0x1FAFF) ||
           inRange(c, 0x2600, 0x27BF) || inRange(c, 0x2B00, 0x2BFF);
}

bool isRegionalIndicator(char32_t c) { return inRange(c, 0x1F1E6, 0x1F1FF); }

bool isPunctuationOrSymbol(char32_t c)
{
    if (c < 0x80)
        return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60 && c != '_') ||
               (c >= 0x7B && c <= 0x7E);
    return inRange(c, 0xA1, 0xBF) || c == 0xD7 || c == 0xF7 || inRange(c, 0x2010, 0x2027) ||
           inRange(c, 0x2030, 0x205E) || inRange(c, 0x20A0, 0x20CF) || inRange(c, 0x2100, 0x25FF) ||
           inRange(c, 0x2E00, 0x2E7F) || inRange(c, 0x3000, 0x303F) || inRange(c, 0xFF01, 0xFF0F) ||
           inRange(c, 0xFF1A, 0xFF20) || inRange(c, 0xFF3B, 0xFF40) || inRange(c, 0xFF5B, 0xFF65) ||
           c == kReplacementCharacter;
}

bool isWordCharacter(char32_t c)
{
    return !isSpace(c) && !isPunctuationOrSymbol(c) && !isStandalone(c) && !isRegionalIndicator(c) && !(c < 0x20) &&
           c != 0x7F;
}

}  // namespace

namespace {
std::atomic<std::uint64_t> sentenceCuts{0};
}  // namespace

std::uint64_t sentenceCutCount() { return sentenceCuts.load(std::memory_order_relaxed); }
void countSentenceCut() { sentenceCuts.fetch_add(1, std::memory_order_relaxed); }

std::vector<Token> tokenize(std::string_view utf8)
{
    countSentenceCut();
    std::vector<Token> tokens;
    std::size_t at = 0;

    // Appends code points starting at `at` while `accept` says so; returns the text added.
    const auto startToken = [&](std::size_t begin) {
        tokens.push_back(Token{{}, begin, begin});
        return &tokens.back();
    };
    const auto take = [&](Token& token, const Decoded& d) {
        if (d.valid)
            token.text.append(utf8.substr(at, d.bytes));
        else
            qkv::utf8::append(token.text, kReplacementCharacter);
        at += d.bytes;
        token.byteEnd = at;
    };
    const auto takeCombining = [&](Token& token) {
        while (at < utf8.size()) {
            const Decoded next = decodeAt(utf8, at);
            if (!next.valid || !isCombining(next.codePoint)) break;
            take(token, next);
        }
    };

    while (at < utf8.size()) {
        const Decoded d = decodeAt(utf8, at);
        const char32_t c = d.codePoint;
        if (d.valid && (isSpace(c) || c < 0x20 || c == 0x7F)) {
            at += d.bytes;
            continue;
        }
        Token& token = *startToken(at);
        take(token, d);
        if (!d.valid) continue;  // a malformed byte is a token of its own

        if (isWordCharacter(c) || isCombining(c)) {
            // A word: letters, digits, marks, and apostrophes between letters ("don't").
            while (at < utf8.size()) {
                const Decoded next = decodeAt(utf8, at);
                if (!next.valid) break;
                if (isWordCharacter(next.codePoint) || isCombining(next.codePoint)) {
                    take(token, next);
                } else if (isApostrophe(next.codePoint) && at + next.bytes < utf8.size()) {
                    const Decoded after = decodeAt(utf8, at + next.bytes);
                    if (!after.valid || !isWordCharacter(after.codePoint)) break;
                    take(token, next);
                } else {
                    break;
                }
            }
        } else if (isRegionalIndicator(c)) {
            // A flag is a pair of regional indicators.
            if (at < utf8.size()) {
                const Decoded next = decodeAt(utf8, at);
                if (next.valid && isRegionalIndicator(next.codePoint)) take(token, next);
            }
        } else {
            // Punctuation, a symbol, an ideograph or an emoji: one character, plus its marks and,
            // for emoji, zero-width-joined continuations (family and profession sequences).
            takeCombining(token);
            while (at < utf8.size()) {
                const Decoded joiner = decodeAt(utf8, at);
                if (!joiner.valid || joiner.codePoint != 0x200D || at + joiner.bytes >= utf8.size()) break;
                const Decoded next = decodeAt(utf8, at + joiner.bytes);
                if (!next.valid || !isStandalone(next.codePoint)) break;
                take(token, joiner);
                take(token, next);
                takeCombining(token);
            }
        }
    }
    return tokens;
}

std::string lowerCase(std::string_view utf8)
{
    std::string out;
    out.reserve(utf8.size());
    std::size_t at = 0;
    while (at < utf8.size()) {
        const Decoded d = decodeAt(utf8, at);
        if (!d.valid) {
            out += utf8[at];
            at += 1;
            continue;
        }
        char32_t c = d.codePoint;
        if (inRange(c, 'A', 'Z'))
            c += 0x20;
        else if (inRange(c, 0xC0, 0xDE) && c != 0xD7)
            c += 0x20;
        else if (inRange(c, 0x100, 0x12F) || inRange(c, 0x132, 0x137) || inRange(c, 0x14A, 0x177))
            c |= 1;
        else if ((inRange(c, 0x139, 0x148) || inRange(c, 0x179, 0x17E)) && (c & 1))
            c += 1;
        else if (c == 0x178)
            c = 0xFF;
        else if (inRange(c, 0x391, 0x3A9) && c != 0x3A2)
            c += 0x20;
        else if (inRange(c, 0x410, 0x42F))
            c += 0x20;
        else if (inRange(c, 0x400, 0x40F))
            c += 0x50;
        qkv::utf8::append(out, c);
        at += d.bytes;
    }
    return out;
}

std::string sanitizeUtf8(std::string_view bytes)
{
    std::string out;
    out.reserve(bytes.size());
    std::size_t at = 0;
    while (at < bytes.size()) {
        const Decoded d = decodeAt(bytes, at);
        if (d.valid)
            out.append(bytes.substr(at, d.bytes));
        else
            qkv::utf8::append(out, kReplacementCharacter);
        at += d.bytes;
    }
    return out;
}

}  // namespace qkv
