#include "core/session/base64.hpp"

#include <array>
#include <cstdint>

namespace qkv {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int, 256> decodeTable()
{
    std::array<int, 256> table{};
    for (int& entry : table) entry = -1;
    for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(kAlphabet[i])] = i;
    return table;
}
constexpr std::array<int, 256> kDecode = decodeTable();

}  // namespace

std::string base64Encode(const void* data, std::size_t bytes)
{
    const auto* in = static_cast<const unsigned char*>(data);
    std::string out;
    out.reserve((bytes + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes; i += 3) {
        const std::uint32_t triple = (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8) | in[i + 2];
        for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(triple >> shift) & 63];
    }
    if (const std::size_t rest = bytes - i; rest > 0) {
        std::uint32_t triple = std::uint32_t{in[i]} << 16;
        if (rest == 2) triple |= std::uint32_t{in[i + 1]} << 8;
        out += kAlphabet[(triple >> 18) & 63];
        out += kAlphabet[(triple >> 12) & 63];
        out += rest == 2 ? kAlphabet[(triple >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::size_t base64DecodedSize(std::string_view text)
{
    if (text.size() % 4 != 0) return 0;
    std::size_t padding = 0;
    if (!text.empty() && text.back() == '=') ++padding;
    if (text.size() >= 2 && text[text.size() - 2] == '=') ++padding;
    return text.size() / 4 * 3 - padding;
}

std::optional<std::vector<unsigned char>> base64Decode(std::string_view text)
{
    if (text.size() % 4 != 0) return std::nullopt;
    std::vector<unsigned char> out;
    out.reserve(base64DecodedSize(text));
    for (std::size_t i = 0; i < text.size(); i += 4) {
        const bool last = i + 4 == text.size();
        int values[4];
        int padding = 0;
        for (int j = 0; j < 4; ++j) {
            const char c = text[i + static_cast<std::size_t>(j)];
            if (c == '=' && last && j >= 2) {
                values[j] = 0;
                ++padding;
                continue;
            }
            if (padding > 0) return std::nullopt;  // data after padding
            values[j] = kDecode[static_cast<unsigned char>(c)];
            if (values[j] < 0) return std::nullopt;
        }
        const std::uint32_t triple = (std::uint32_t(values[0]) << 18) | (std::uint32_t(values[1]) << 12) |
                                     (std::uint32_t(values[2]) << 6) | std::uint32_t(values[3]);
        out.push_back(static_cast<unsigned char>(triple >> 16));
        if (padding < 2) out.push_back(static_cast<unsigned char>(triple >> 8));
        if (padding < 1) out.push_back(static_cast<unsigned char>(triple));
    }
    return out;
}

}  // namespace qkv
