#pragma once
// A model's vocabulary both ways (entry -> id, id -> entry), read from tokenizer.json within the
// limits of every tokenizer file (core/text/vocabulary_files.hpp), and the model readers that
// share it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/text/tokenizer_json/json_fields.hpp"
#include "core/text/tokenizer_json/vocabulary_models.hpp"
#include "core/text/vocabulary_files.hpp"

namespace qkv::tokenizer_json {

struct VocabularyTable {
    TokenIdMap ids;
    std::vector<std::string> pieces;  // by id; "" where no entry has the id

    std::optional<std::int32_t> id(std::string_view token) const
    {
        const auto it = ids.find(token);
        if (it == ids.end()) return std::nullopt;
        return it->second;
    }
    std::string_view piece(std::int32_t id) const
    {
        return id >= 0 && static_cast<std::size_t>(id) < pieces.size() ? std::string_view(pieces[static_cast<std::size_t>(id)])
                                                                        : std::string_view();
    }
    // Adds an entry; fails on a too-long entry, an id out of range or too many entries.
    Status add(std::string token, std::int64_t id, const std::string& what);
    // The ids of "<0x00>" .. "<0xFF>" by byte, -1 where the vocab lacks one.
    std::vector<std::int32_t> byteFallbackIds() const;
};

// {"token": id, ...} (BPE, WordPiece, WordLevel).
Expected<VocabularyTable> parseVocabularyObject(const Json& vocab, const std::string& what);
// The id of the entry named by `key` ("unk_token"), when the field is set.
Expected<std::optional<std::int32_t>> namedTokenId(const Json& spec, const char* key, const VocabularyTable& vocabulary,
                                                  const std::string& what);

// "BPE, 128,000 tokens": a count with thousands separators.
std::string countText(std::size_t count);

Expected<std::shared_ptr<const VocabularyModel>> parseBpeModel(const Json& spec);
Expected<std::shared_ptr<const VocabularyModel>> parseUnigramModel(const Json& spec);
Expected<std::shared_ptr<const VocabularyModel>> parseWordPieceModel(const Json& spec);
Expected<std::shared_ptr<const VocabularyModel>> parseWordLevelModel(const Json& spec);

}  // namespace qkv::tokenizer_json
