#pragma once
// tokenizer.json's "added_tokens": entries matched whole in the text before it is cut ("<|im_start|>",
// "<bos>", "[MASK]"), as Hugging Face tokenizers' AddedVocabulary does: leftmost first, the
// longest where several start at one character; lstrip / rstrip take the spaces beside a match
// with it; single_word matches only between non-word characters. Tokens marked "normalized" are
// looked for in the normalised text, the others in the typed text.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/common/expected.hpp"
#include "core/text/tokenizer_json/spanned_text.hpp"
#include "core/text/vocabulary_files.hpp"

namespace qkv::tokenizer_json {

struct AddedToken {
    std::string content;
    // What is looked for, when it differs from content: a "normalized" token's content after the
    // normalizer (the library normalises them too, so "HEY" is found in lower-cased text).
    std::string matched;
    std::int32_t id = 0;
    bool special = false;
    bool singleWord = false;
    bool leftStrip = false;
    bool rightStrip = false;
    bool normalized = false;
};

// A stretch of text: plain characters [begin, end), or one added token (token >= 0, an index
// into the matcher's tokens) covering them.
struct TextStretch {
    std::size_t begin = 0;
    std::size_t end = 0;
    int token = -1;
};

class AddedTokenMatcher {
public:
    AddedTokenMatcher() = default;
    explicit AddedTokenMatcher(std::vector<AddedToken> tokens);

    // The whole text as stretches in order; plain ones are never empty.
    std::vector<TextStretch> split(const SpannedText& text) const;
    const AddedToken& token(int index) const { return tokens_[static_cast<std::size_t>(index)]; }
    bool empty() const { return tokens_.empty(); }

private:
    std::vector<AddedToken> tokens_;
    std::unordered_map<std::string, int, StringViewHash, std::equal_to<>> byContent_;
    std::vector<std::size_t> lengths_;  // distinct contents' byte lengths, longest first
    bool firstBytes_[256] = {};
};

// The file's "added_tokens" list (absent or null: none).
Expected<std::vector<AddedToken>> parseAddedTokens(const nlohmann::json& list);

}  // namespace qkv::tokenizer_json
