#include "core/text/tokenizer_json/added_tokens.hpp"

#include <algorithm>

#include "core/text/tokenizer_json/json_fields.hpp"
#include "core/text/unicode_properties.hpp"

namespace qkv::tokenizer_json {

namespace {

bool isWordCharacter(char32_t c) { return c == U'_' || unicode::isLetter(c) || unicode::isNumber(c); }

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<AddedToken> tokens) : tokens_(std::move(tokens))
{
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
        const std::string& content = tokens_[i].matched.empty() ? tokens_[i].content : tokens_[i].matched;
        if (content.empty()) continue;
        byContent_.emplace(content, static_cast<int>(i));  // the first of two equal contents holds
        lengths_.push_back(content.size());
        firstBytes_[static_cast<unsigned char>(content[0])] = true;
    }
    std::sort(lengths_.begin(), lengths_.end(), std::greater<>());
    lengths_.erase(std::unique(lengths_.begin(), lengths_.end()), lengths_.end());
}

std::vector<TextStretch> AddedTokenMatcher::split(const SpannedText& text) const
{
    std::vector<TextStretch> out;
    if (text.empty()) return out;
    if (byContent_.empty()) return {{0, text.size(), -1}};
    std::vector<std::size_t> charAtByte;
    const std::string subject = toUtf8(text, &charAtByte);
    std::size_t plainFrom = 0;  // first character not yet in a stretch
    for (std::size_t at = 0; at < subject.size(); ++at) {
        if ((static_cast<unsigned char>(subject[at]) & 0xC0) == 0x80 || !firstBytes_[static_cast<unsigned char>(subject[at])])
            continue;
        const std::size_t charAt = charAtByte[at];
        if (charAt < plainFrom) continue;
        for (const std::size_t length : lengths_) {
            if (at + length > subject.size()) continue;
            const auto found = byContent_.find(std::string_view(subject).substr(at, length));
            if (found == byContent_.end()) continue;
            const AddedToken& token = tokens_[static_cast<std::size_t>(found->second)];
            std::size_t begin = charAt, end = charAtByte[at + length];
            if (token.singleWord && ((begin > 0 && isWordCharacter(text[begin - 1].codePoint)) ||
                                     (end < text.size() && isWordCharacter(text[end].codePoint))))
                continue;
            if (token.leftStrip)
                while (begin > plainFrom && unicode::isWhiteSpace(text[begin - 1].codePoint)) --begin;
            if (token.rightStrip)
                while (end < text.size() && unicode::isWhiteSpace(text[end].codePoint)) ++end;
            if (begin > plainFrom) out.push_back({plainFrom, begin, -1});
            out.push_back({begin, end, found->second});
            plainFrom = end;
            break;
        }
    }
    if (plainFrom < text.size()) out.push_back({plainFrom, text.size(), -1});
    return out;
}

Expected<std::vector<AddedToken>> parseAddedTokens(const nlohmann::json& list)
{
    std::vector<AddedToken> tokens;
    if (list.is_null()) return tokens;
    if (!list.is_array()) return Error{"added_tokens is not a list"};
    if (list.size() > limits::maxVocabularyEntries) return Error{"added_tokens has too many entries"};
    for (const Json& item : list) {
        const std::string what = "an added token";
        if (!item.is_object()) return Error{"added_tokens has an entry that is not an object"};
        AddedToken token;
        Expected<std::string> content = stringField(item, "content", what);
        if (!content) return Error{content.error()};
        if (content->size() > limits::maxVocabularyTokenBytes) return Error{"added token " + quotedToken(*content) + " is too long"};
        token.content = *content;
        const auto id = item.find("id");
        if (id == item.end() || !id->is_number_integer() || id->get<std::int64_t>() < 0 ||
            id->get<std::int64_t>() >= static_cast<std::int64_t>(limits::maxVocabularyEntries))
            return Error{"added token " + quotedToken(token.content) + " has no valid id"};
        token.id = static_cast<std::int32_t>(id->get<std::int64_t>());
        const std::string named = "added token " + quotedToken(token.content);
        Expected<bool> special = boolField(item, "special", named, false);
        Expected<bool> single = boolField(item, "single_word", named, false);
        Expected<bool> left = boolField(item, "lstrip", named, false);
        Expected<bool> right = boolField(item, "rstrip", named, false);
        // The library's default: special tokens are matched in the typed text, others after normalisation.
        Expected<bool> normalized = boolField(item, "normalized", named, !special.ok() || !*special);
        if (!special || !single || !left || !right || !normalized)
            return Error{named + ": special, single_word, lstrip, rstrip and normalized are true or false"};
        token.special = *special;
        token.singleWord = *single;
        token.leftStrip = *left;
        token.rightStrip = *right;
        token.normalized = *normalized;
        tokens.push_back(std::move(token));
    }
    return tokens;
}

}  // namespace qkv::tokenizer_json
