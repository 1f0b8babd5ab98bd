#pragma once
// The tokens a trained model knows, in id order. Ids 0..2 are always <pad>, <bos> and <eos>;
// a task's symbols or words follow. Words are matched exactly (the tasks write them lower-case).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/expected.hpp"

namespace qkv {

class Vocabulary {
public:
    static constexpr std::int32_t pad = 0, bos = 1, eos = 2;

    Vocabulary();  // the three special tokens
    // Adds `token` if new; returns its id.
    std::int32_t add(std::string_view token);
    std::optional<std::int32_t> find(std::string_view token) const;
    const std::string& token(std::int32_t id) const { return tokens_[static_cast<std::size_t>(id)]; }
    const std::vector<std::string>& tokens() const { return tokens_; }
    std::int32_t size() const { return static_cast<std::int32_t>(tokens_.size()); }

    // A sentence split on whitespace into ids; an unknown word is an error naming it
    // ("'zebra' is not in this model's vocabulary (27 tokens)").
    Expected<std::vector<std::int32_t>> encode(std::string_view sentence) const;
    std::string decode(const std::vector<std::int32_t>& ids) const;  // space-separated
    // From a saved list (a session): the first three must be the special tokens, no duplicates.
    static Expected<Vocabulary> fromTokens(std::vector<std::string> tokens);

private:
    std::vector<std::string> tokens_;
    std::unordered_map<std::string, std::int32_t> ids_;
};

}  // namespace qkv
