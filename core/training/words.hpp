#pragma once
// How every part of training splits a sentence into words: on ASCII white space (space, TAB,
// line ends, form feed, vertical tab), nothing else. Vocabulary::encode, the sentence-pair
// reader and the translation grammar agree through this one function.

#include <string_view>
#include <vector>

namespace qkv {

bool isWordSeparator(char c);
// The words of `text`, as views into it; none for an empty or blank text.
std::vector<std::string_view> splitWords(std::string_view text);

}  // namespace qkv
