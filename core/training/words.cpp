#include "core/training/words.hpp"

namespace qkv {

bool isWordSeparator(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::vector<std::string_view> splitWords(std::string_view text)
{
    std::vector<std::string_view> words;
    std::size_t at = 0;
    while (at < text.size()) {
        while (at < text.size() && isWordSeparator(text[at])) ++at;
        std::size_t end = at;
        while (end < text.size() && !isWordSeparator(text[end])) ++end;
        if (end > at) words.push_back(text.substr(at, end - at));
        at = end;
    }
    return words;
}

}  // namespace qkv
