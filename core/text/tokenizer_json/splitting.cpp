#include "core/text/tokenizer_json/splitting.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace qkv::tokenizer_json {

namespace {

struct Part {
    std::size_t begin;
    std::size_t end;
    bool match;
};

// The whole text as alternating stretches: gaps between the matches, and the matches.
std::vector<Part> partsOf(std::size_t length, const std::vector<Match>& matches, bool invert)
{
    std::vector<Part> parts;
    std::size_t at = 0;
    for (const Match& m : matches) {
        if (m.begin > at) parts.push_back({at, m.begin, invert});
        parts.push_back({m.begin, m.end, !invert});
        at = m.end;
    }
    if (at < length) parts.push_back({at, length, invert});
    return parts;
}

}  // namespace

Expected<SplitBehavior> parseSplitBehavior(std::string_view name)
{
    static const std::pair<std::string_view, SplitBehavior> names[] = {
        {"Removed", SplitBehavior::Removed},
        {"Isolated", SplitBehavior::Isolated},
        {"MergedWithPrevious", SplitBehavior::MergedWithPrevious},
        {"MergedWithNext", SplitBehavior::MergedWithNext},
        {"Contiguous", SplitBehavior::Contiguous},
    };
    for (const auto& [spelling, behavior] : names)
        if (spelling == name) return behavior;
    return Error{"split behavior '" + std::string(name) + "' is not supported"};
}

std::vector<SpannedText> splitAtMatches(const SpannedText& text, const std::vector<Match>& matches,
                                        SplitBehavior behavior, bool invert)
{
    const std::vector<Part> parts = partsOf(text.size(), matches, invert);
    std::vector<Part> kept;
    bool previousMatch = false;
    switch (behavior) {
    case SplitBehavior::Removed:
        for (const Part& p : parts)
            if (!p.match) kept.push_back(p);
        break;
    case SplitBehavior::Isolated:
        kept = parts;
        break;
    case SplitBehavior::Contiguous:
        for (const Part& p : parts) {
            if (!kept.empty() && p.match == previousMatch) kept.back().end = p.end;
            else kept.push_back(p);
            previousMatch = p.match;
        }
        break;
    case SplitBehavior::MergedWithPrevious:
        // A match joins the piece before it, unless that piece was a match itself.
        for (const Part& p : parts) {
            if (p.match && !previousMatch && !kept.empty()) kept.back().end = p.end;
            else kept.push_back(p);
            previousMatch = p.match;
        }
        break;
    case SplitBehavior::MergedWithNext:
        // The mirror image: walk from the end, a match joins the piece after it.
        for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
            if (it->match && !previousMatch && !kept.empty()) kept.back().begin = it->begin;
            else kept.push_back(*it);
            previousMatch = it->match;
        }
        std::reverse(kept.begin(), kept.end());
        break;
    }
    std::vector<SpannedText> pieces;
    for (const Part& p : kept)
        if (p.end > p.begin)
            pieces.emplace_back(text.begin() + static_cast<std::ptrdiff_t>(p.begin),
                                text.begin() + static_cast<std::ptrdiff_t>(p.end));
    return pieces;
}

}  // namespace qkv::tokenizer_json
