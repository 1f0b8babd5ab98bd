#pragma once
// GPT-2's pre-tokenization: the text is cut into pieces by the pattern
//     's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// (Radford et al. 2019, section 2.2; openai/gpt-2 encoder.py), found left to right, each match
// the first alternative that matches, and BPE never merges across pieces. Implemented by hand
// over code points: \p{L}, \p{N} are the Unicode general categories L*, N*
// (unicode_properties.hpp), \s the White_Space property, and " " is U+0020 only.

#include <cstddef>
#include <span>
#include <vector>

#include "core/text/utf8.hpp"

namespace qkv {

// A piece: characters [first, last) of the input.
struct CharRange {
    std::size_t first;
    std::size_t last;
};

// The pieces of `chars`, in order; together they cover every character exactly once.
std::vector<CharRange> gpt2PreTokenize(std::span<const utf8::SpannedChar> chars);

}  // namespace qkv
