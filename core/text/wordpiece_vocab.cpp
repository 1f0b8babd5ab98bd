#include "core/text/wordpiece_vocab.hpp"

#include <algorithm>

#include "core/io/file_bytes.hpp"
#include "core/text/utf8.hpp"
#include "core/text/vocabulary_files.hpp"

namespace qkv {

namespace {

constexpr std::string_view kUnknown = "[UNK]";
constexpr std::string_view kClass = "[CLS]";
constexpr std::string_view kSeparator = "[SEP]";

}  // namespace

std::optional<std::int32_t> WordPieceVocab::id(std::string_view token) const
{
    const auto it = ids.find(token);
    if (it == ids.end()) return std::nullopt;
    return it->second;
}

std::vector<std::string> WordPieceVocab::specialTokens() const
{
    std::vector<std::string> out;
    for (std::string_view special : {"[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]"})
        if (ids.contains(special)) out.emplace_back(special);
    return out;
}

Expected<WordPieceVocab> parseWordPieceVocab(std::string_view text, std::string_view sourceName, bool requireClsSep)
{
    const std::string source(sourceName);
    if (text.empty()) return Error{source + ": is empty; a vocabulary lists one token per line"};

    WordPieceVocab vocab;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t lineNumber = vocab.tokens.size() + 1;  // as an editor counts
        const std::size_t newline = text.find('\n', at);
        std::string_view token =
            text.substr(at, newline == std::string_view::npos ? std::string_view::npos : newline - at);
        at = newline == std::string_view::npos ? text.size() : newline + 1;
        if (token.ends_with('\r')) token.remove_suffix(1);

        if (vocab.tokens.size() >= limits::maxVocabularyEntries)
            return Error{source + ": has more than " + std::to_string(limits::maxVocabularyEntries) +
                         " lines, more than any vocabulary this program reads"};
        if (token.size() > limits::maxVocabularyTokenBytes)
            return Error{source + ": line " + std::to_string(lineNumber) + " is " + std::to_string(token.size()) +
                         " bytes long; a token may have at most " + std::to_string(limits::maxVocabularyTokenBytes) +
                         " (is this a vocab.txt?)"};
        const std::size_t bad = utf8::firstInvalidByte(token);
        if (bad != token.size())
            return Error{source + ": line " + std::to_string(lineNumber) + " is not UTF-8 text (byte " +
                         std::to_string(bad + 1) + " of the line)"};

        const auto id = static_cast<std::int32_t>(vocab.tokens.size());
        if (!token.empty()) {
            const auto [it, inserted] = vocab.ids.emplace(std::string(token), id);
            if (!inserted)
                return Error{source + ": line " + std::to_string(lineNumber) + " repeats the token " +
                             quotedToken(token) + " of line " + std::to_string(it->second + 1) +
                             "; each token must be listed once"};
        }
        vocab.longestTokenBytes = std::max(vocab.longestTokenBytes, token.size());
        vocab.tokens.emplace_back(token);
    }

    const auto required = [&](std::string_view special, std::int32_t& slot) -> Status {
        const auto id = vocab.id(special);
        if (!id) return Error{source + ": has no " + std::string(special) + " line; BERT's vocab.txt has one"};
        slot = *id;
        return {};
    };
    if (Status s = required(kUnknown, vocab.unknownId); !s) return Error{s.error()};
    if (const auto id = vocab.id(kClass)) vocab.classId = *id;
    if (const auto id = vocab.id(kSeparator)) vocab.separatorId = *id;
    if (requireClsSep) {
        if (Status s = required(kClass, vocab.classId); !s) return Error{s.error()};
        if (Status s = required(kSeparator, vocab.separatorId); !s) return Error{s.error()};
    }
    return vocab;
}

Expected<WordPieceVocab> loadWordPieceVocab(const std::string& path, bool requireClsSep)
{
    auto bytes = readFileBytes(path, limits::maxTokenizerFileBytes, "a vocabulary");
    if (!bytes) return Error{bytes.error()};
    return parseWordPieceVocab(*bytes, path, requireClsSep);
}

}  // namespace qkv
