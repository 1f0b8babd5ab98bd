#include "core/text/utf8.hpp"

#include <cstdint>

namespace qkv::utf8 {

Decoded decodeAt(std::string_view text, std::size_t at)
{
    const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[at + i]); };
    const std::uint8_t lead = byte(0);
    if (lead < 0x80) return {lead, 1, true};

    std::size_t length = 0;
    char32_t codePoint = 0;
    char32_t minimum = 0;
    if ((lead & 0xE0) == 0xC0) { length = 2; codePoint = lead & 0x1F; minimum = 0x80; }
    else if ((lead & 0xF0) == 0xE0) { length = 3; codePoint = lead & 0x0F; minimum = 0x800; }
    else if ((lead & 0xF8) == 0xF0) { length = 4; codePoint = lead & 0x07; minimum = 0x10000; }
    else return {kReplacementCharacter, 1, false};

    if (length > text.size() - at) return {kReplacementCharacter, 1, false};
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(i) & 0xC0) != 0x80) return {kReplacementCharacter, 1, false};
        codePoint = (codePoint << 6) | (byte(i) & 0x3F);
    }
    if (codePoint < minimum || codePoint > 0x10FFFF || (codePoint >= 0xD800 && codePoint <= 0xDFFF))
        return {kReplacementCharacter, 1, false};
    return {codePoint, length, true};
}

std::vector<SpannedChar> decodeWithSpans(std::string_view text)
{
    std::vector<SpannedChar> chars;
    chars.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        const Decoded d = decodeAt(text, at);
        chars.push_back({d.codePoint, at, at + d.bytes});
        at += d.bytes;
    }
    return chars;
}

void append(std::string& out, char32_t c)
{
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

std::size_t firstInvalidByte(std::string_view text)
{
    for (std::size_t at = 0; at < text.size();) {
        const Decoded d = decodeAt(text, at);
        if (!d.valid) return at;
        at += d.bytes;
    }
    return text.size();
}

}  // namespace qkv::utf8
