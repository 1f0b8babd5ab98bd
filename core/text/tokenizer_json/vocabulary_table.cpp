#include "core/text/tokenizer_json/vocabulary_table.hpp"

#include <cstdio>

namespace qkv::tokenizer_json {

Status VocabularyTable::add(std::string token, std::int64_t id, const std::string& what)
{
    if (token.size() > limits::maxVocabularyTokenBytes)
        return Error{what + ": the entry " + quotedToken(token) + " is longer than " +
                     std::to_string(limits::maxVocabularyTokenBytes) + " bytes"};
    if (id < 0 || id >= static_cast<std::int64_t>(limits::maxVocabularyEntries))
        return Error{what + ": the entry " + quotedToken(token) + " has the id " + std::to_string(id) +
                     ", outside 0 to " + std::to_string(limits::maxVocabularyEntries - 1)};
    if (ids.size() >= limits::maxVocabularyEntries)
        return Error{what + " has more than " + countText(limits::maxVocabularyEntries) + " entries"};
    const auto index = static_cast<std::size_t>(id);
    if (pieces.size() <= index) pieces.resize(index + 1);
    if (pieces[index].empty()) pieces[index] = token;  // two entries with one id: the first names it
    ids.insert_or_assign(std::move(token), static_cast<std::int32_t>(id));
    return {};
}

std::vector<std::int32_t> VocabularyTable::byteFallbackIds() const
{
    std::vector<std::int32_t> out(256, -1);
    char name[8];
    for (int byte = 0; byte < 256; ++byte) {
        std::snprintf(name, sizeof name, "<0x%02X>", byte);
        if (const std::optional<std::int32_t> found = id(name)) out[static_cast<std::size_t>(byte)] = *found;
    }
    return out;
}

Expected<VocabularyTable> parseVocabularyObject(const Json& vocab, const std::string& what)
{
    if (!vocab.is_object()) return Error{what + "'s vocab is not an object of \"token\": id pairs"};
    if (vocab.size() > limits::maxVocabularyEntries)
        return Error{what + "'s vocab has more than " + countText(limits::maxVocabularyEntries) + " entries"};
    VocabularyTable table;
    table.ids.reserve(vocab.size());
    for (const auto& [token, id] : vocab.items()) {
        if (!id.is_number_integer()) return Error{what + ": the id of " + quotedToken(token) + " is not a whole number"};
        if (Status s = table.add(token, id.get<std::int64_t>(), what); !s) return Error{s.error()};
    }
    return table;
}

Expected<std::optional<std::int32_t>> namedTokenId(const Json& spec, const char* key, const VocabularyTable& vocabulary,
                                                  const std::string& what)
{
    Expected<std::string> name = stringField(spec, key, what, std::string());
    if (!name) return Error{name.error()};
    if (name->empty()) return std::optional<std::int32_t>{};
    const std::optional<std::int32_t> id = vocabulary.id(*name);
    if (!id) return Error{what + ": its " + key + " " + quotedToken(*name) + " is not in its vocab"};
    return std::optional<std::int32_t>{id};
}

std::string countText(std::size_t count)
{
    std::string digits = std::to_string(count), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::optional<std::uint8_t> byteFallbackByte(std::string_view piece)
{
    if (piece.size() != 6 || piece.substr(0, 3) != "<0x" || piece[5] != '>') return std::nullopt;
    int value = 0;
    for (const char c : piece.substr(3, 2)) {
        value *= 16;
        if (c >= '0' && c <= '9') value += c - '0';
        else if (c >= 'A' && c <= 'F') value += c - 'A' + 10;
        else return std::nullopt;
    }
    return static_cast<std::uint8_t>(value);
}

Expected<std::shared_ptr<const VocabularyModel>> parseVocabularyModel(const nlohmann::json& spec)
{
    if (!spec.is_object()) return Error{"tokenizer.json has no \"model\" object"};
    // Files written before models carried a "type" are told apart by their fields.
    std::string type;
    if (const auto it = spec.find("type"); it != spec.end() && it->is_string()) type = it->get<std::string>();
    else if (spec.contains("merges")) type = "BPE";
    else if (spec.contains("continuing_subword_prefix")) type = "WordPiece";
    else if (spec.contains("vocab") && spec["vocab"].is_array()) type = "Unigram";
    if (type == "BPE") return parseBpeModel(spec);
    if (type == "Unigram") return parseUnigramModel(spec);
    if (type == "WordPiece") return parseWordPieceModel(spec);
    if (type == "WordLevel") return parseWordLevelModel(spec);
    return Error{"model " + (type.empty() ? std::string("without a type") : type) + " is not supported"};
}

}  // namespace qkv::tokenizer_json
