#pragma once
// BERT's vocab.txt: one token per line, the token's id is its line number (from 0). Continuation
// pieces start with "##" ("##able"); the special tokens are [UNK], [CLS], [SEP] (and [PAD],
// [MASK]).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.hpp"
#include "core/text/vocabulary_files.hpp"

namespace qkv {

struct WordPieceVocab {
    std::vector<std::string> tokens;  // id -> token; an empty line keeps its id and holds ""
    TokenIdMap ids;                   // token -> id (empty lines are not in it)
    std::int32_t unknownId = -1;      // [UNK]
    std::int32_t classId = -1;        // [CLS], or -1 when the file has none
    std::int32_t separatorId = -1;    // [SEP], or -1 when the file has none
    std::size_t longestTokenBytes = 0;

    std::optional<std::int32_t> id(std::string_view token) const;
    // The special tokens the file has among [UNK] [SEP] [PAD] [CLS] [MASK]: typed in the text,
    // they stay whole (Hugging Face's BertTokenizer does the same).
    std::vector<std::string> specialTokens() const;
};

// `text` is the whole file. Refuses: an empty file, a line that is not UTF-8, a line longer than
// limits::maxVocabularyTokenBytes, a token listed twice (naming both lines), more than
// limits::maxVocabularyEntries lines, no [UNK] line, and no [CLS] or [SEP] line when
// `requireClsSep` (the model input needs both). Lines end with "\n" or "\r\n". Every message
// starts with "<sourceName>: ".
Expected<WordPieceVocab> parseWordPieceVocab(std::string_view text, std::string_view sourceName,
                                             bool requireClsSep = true);

// Reads the file (which must be a regular file of at most limits::maxTokenizerFileBytes) and
// parses it.
Expected<WordPieceVocab> loadWordPieceVocab(const std::string& path, bool requireClsSep = true);

}  // namespace qkv
