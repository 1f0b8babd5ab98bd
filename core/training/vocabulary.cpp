#include "core/training/vocabulary.hpp"

#include <array>

#include "core/text/utf8.hpp"
#include "core/training/words.hpp"

namespace qkv {

namespace {

constexpr std::array<std::string_view, 3> specialTokens{"<pad>", "<bos>", "<eos>"};
// The most tokens a model the app trains may have (ModelSpec::problem says the same).
constexpr std::size_t maxVocabularyTokens = std::size_t{1} << 16;

}  // namespace

Vocabulary::Vocabulary()
{
    for (std::string_view special : specialTokens) add(special);
}

std::int32_t Vocabulary::add(std::string_view token)
{
    if (const std::optional<std::int32_t> id = find(token)) return *id;
    const auto id = static_cast<std::int32_t>(tokens_.size());
    tokens_.emplace_back(token);
    ids_.emplace(tokens_.back(), id);
    return id;
}

std::optional<std::int32_t> Vocabulary::find(std::string_view token) const
{
    const auto found = ids_.find(std::string(token));
    if (found == ids_.end()) return std::nullopt;
    return found->second;
}

Expected<std::vector<std::int32_t>> Vocabulary::encode(std::string_view sentence) const
{
    std::vector<std::int32_t> ids;
    for (const std::string_view word : splitWords(sentence)) {
        const std::optional<std::int32_t> id = find(word);
        if (!id)
            return Error{"'" + std::string(word) + "' is not in this model's vocabulary (" + std::to_string(size()) +
                         " tokens)"};
        ids.push_back(*id);
    }
    return ids;
}

std::string Vocabulary::decode(const std::vector<std::int32_t>& ids) const
{
    std::string text;
    for (std::int32_t id : ids) {
        if (!text.empty()) text += ' ';
        text += id >= 0 && id < size() ? token(id) : "<" + std::to_string(id) + "?>";
    }
    return text;
}

Expected<Vocabulary> Vocabulary::fromTokens(std::vector<std::string> tokens)
{
    if (tokens.size() < specialTokens.size())
        return Error{"a vocabulary needs at least the tokens <pad>, <bos> and <eos> (it has " +
                     std::to_string(tokens.size()) + ")"};
    if (tokens.size() > maxVocabularyTokens)
        return Error{"a vocabulary may have at most " + std::to_string(maxVocabularyTokens) + " tokens (it has " +
                     std::to_string(tokens.size()) + ")"};
    for (std::size_t i = 0; i < specialTokens.size(); ++i)
        if (tokens[i] != specialTokens[i])
            return Error{"token " + std::to_string(i) + " of a vocabulary must be " + std::string(specialTokens[i]) +
                         " (it is '" + tokens[i] + "')"};
    Vocabulary vocabulary;
    for (std::size_t i = specialTokens.size(); i < tokens.size(); ++i) {
        const std::string& token = tokens[i];
        const std::string where = "token " + std::to_string(i) + " of the vocabulary";
        if (token.empty()) return Error{where + " is empty"};
        if (utf8::firstInvalidByte(token) != token.size()) return Error{where + " is not UTF-8 text"};
        for (char c : token)
            if (isWordSeparator(c)) return Error{where + " ('" + token + "') contains white space, so no sentence can hold it"};
        if (vocabulary.find(token)) return Error{where + " ('" + token + "') appears twice"};
        vocabulary.add(token);
    }
    return vocabulary;
}

}  // namespace qkv
