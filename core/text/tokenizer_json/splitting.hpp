#pragma once
// Cutting text at a pattern's matches, with the five behaviours tokenizer.json's Split,
// Punctuation, Digits and Metaspace name (Hugging Face tokenizers, SplitDelimiterBehavior):
// what becomes of each match. Empty pieces are dropped.

#include <string_view>
#include <vector>

#include "core/common/expected.hpp"
#include "core/text/tokenizer_json/spanned_text.hpp"

namespace qkv::tokenizer_json {

enum class SplitBehavior {
    Removed,             // matches are dropped
    Isolated,            // each match is a piece of its own
    MergedWithPrevious,  // a match ends the piece before it
    MergedWithNext,      // a match starts the piece after it
    Contiguous,          // runs of matches (and of non-matches) are one piece each
};

// "Removed", "Isolated", ... as the file spells them.
Expected<SplitBehavior> parseSplitBehavior(std::string_view name);

// `text` cut at `matches` (sorted, non-overlapping); with `invert` the matches and the
// stretches between them swap roles.
std::vector<SpannedText> splitAtMatches(const SpannedText& text, const std::vector<Match>& matches,
                                        SplitBehavior behavior, bool invert = false);

// Matches of single characters for which `test` holds (runs are separate matches, one per character).
template <class Test>
std::vector<Match> characterMatches(const SpannedText& text, Test test)
{
    std::vector<Match> matches;
    for (std::size_t i = 0; i < text.size(); ++i)
        if (test(text[i].codePoint)) matches.push_back({i, i + 1});
    return matches;
}

}  // namespace qkv::tokenizer_json
