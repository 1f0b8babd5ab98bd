#pragma once
// UTF-8 decoding with byte spans, for the subword tokenizers.
//
// A malformed sequence (overlong, surrogate, beyond U+10FFFF, truncated, stray continuation
// byte) decodes as U+FFFD covering exactly one byte, so every byte of the input belongs to one
// decoded character and spans always point back into the input.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace qkv::utf8 {

inline constexpr char32_t kReplacementCharacter = 0xFFFD;

// One character of the input and the bytes it came from: [byteBegin, byteEnd).
struct SpannedChar {
    char32_t codePoint;
    std::size_t byteBegin;
    std::size_t byteEnd;
};

struct Decoded {
    char32_t codePoint;  // U+FFFD when !valid
    std::size_t bytes;   // 1 when !valid
    bool valid;
};

// Decodes the character starting at byte `at` (at < text.size()).
Decoded decodeAt(std::string_view text, std::size_t at);

// Every character of the text with its byte span (malformed bytes become U+FFFD).
std::vector<SpannedChar> decodeWithSpans(std::string_view text);

void append(std::string& out, char32_t codePoint);

// The byte offset of the first malformed sequence, or text.size() when the text is valid.
std::size_t firstInvalidByte(std::string_view text);

}  // namespace qkv::utf8
