#pragma once
// tokenizer.json's "model": how one pre-tokenized piece becomes vocabulary entries (Hugging Face
// tokenizers, models/): BPE (merges by rank; byte_fallback, fuse_unk, ignore_merges,
// continuing_subword_prefix, end_of_word_suffix), WordPiece (greedy longest match), Unigram
// (the most likely segmentation, Kudo 2018; byte_fallback) and WordLevel. Any other type, or BPE
// dropout, is refused by name.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/common/expected.hpp"
#include "core/text/tokenizer_json/spanned_text.hpp"

namespace qkv::tokenizer_json {

// One entry the model chose for characters [first, last) of the piece.
struct ModelToken {
    std::int32_t id = 0;
    std::size_t first = 0;
    std::size_t last = 0;
};

class VocabularyModel {
public:
    virtual ~VocabularyModel() = default;
    virtual Status tokenize(const SpannedText& piece, std::vector<ModelToken>& out) const = 0;
    virtual std::optional<std::int32_t> id(std::string_view token) const = 0;
    // The entry with this id, or empty.
    virtual std::string_view piece(std::int32_t id) const = 0;
    // The largest id + 1.
    virtual std::size_t idCount() const = 0;
    // "BPE", "WordPiece", "Unigram" or "WordLevel".
    virtual std::string_view type() const = 0;
    // "BPE, 128,000 tokens, 280,147 merges".
    virtual std::string name() const = 0;
    // Its pieces stand for bytes ("<0xE6>") when a character has no entry of its own.
    virtual bool byteFallback() const { return false; }
};

Expected<std::shared_ptr<const VocabularyModel>> parseVocabularyModel(const nlohmann::json& spec);

// "<0xE6>" -> 0xE6; nothing for any other text.
std::optional<std::uint8_t> byteFallbackByte(std::string_view piece);

}  // namespace qkv::tokenizer_json
