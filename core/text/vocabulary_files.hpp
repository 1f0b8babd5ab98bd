#pragma once
// What the tokenizer file readers share: the token -> id map, and limits on tokenizer files, so
// that a wrong or hostile file is refused with a message instead of exhausting memory. Real files
// sit far below them: bert-base-uncased's vocab.txt has 30,522 lines (232 KB), GPT-2's
// vocab.json 50,257 entries (1 MB) and its merges.txt 50,000 merges (456 KB).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace qkv::limits {

inline constexpr std::size_t maxTokenizerFileBytes = std::size_t{64} << 20;  // 64 MiB per file
inline constexpr std::size_t maxVocabularyEntries = std::size_t{1} << 21;    // 2,097,152 tokens or merges
inline constexpr std::size_t maxVocabularyTokenBytes = 1024;                 // one token, in bytes

}  // namespace qkv::limits

namespace qkv {

// Hash and equality that let an unordered_map<std::string, ...> be searched with a string_view
// (no allocation per lookup).
struct StringViewHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
};
// Token text -> id, as vocab.txt and vocab.json give them.
using TokenIdMap = std::unordered_map<std::string, std::int32_t, StringViewHash, std::equal_to<>>;

// A token quoted for a message, cut after 40 bytes: "token" or "a-very-long-tok...".
inline std::string quotedToken(std::string_view token)
{
    constexpr std::size_t shown = 40;
    std::string out = "\"";
    out += token.size() > shown ? std::string(token.substr(0, shown)) + "..." : std::string(token);
    return out + "\"";
}

}  // namespace qkv
