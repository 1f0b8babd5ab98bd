#pragma once
// A model's own tokenizer, found beside its checkpoint: BERT's vocab.txt (WordPiece) or GPT-2's
// vocab.json + merges.txt (byte-level BPE). One object the app keeps and asks for the tokens of
// each typed sentence.

#include <string>
#include <string_view>
#include <variant>

#include "core/common/expected.hpp"
#include "core/text/byte_level_bpe_tokenizer.hpp"
#include "core/text/subword_tokens.hpp"
#include "core/text/wordpiece_tokenizer.hpp"

namespace qkv {

struct WordPieceTokenizer {
    WordPieceVocab vocab;
    WordPieceOptions options;
};

struct ByteLevelBpeTokenizer {
    ByteLevelBpe bpe;
    ByteLevelBpeOptions options;
};

class SubwordTokenizer {
public:
    explicit SubwordTokenizer(WordPieceTokenizer wordPiece) : model_(std::move(wordPiece)) {}
    explicit SubwordTokenizer(ByteLevelBpeTokenizer bpe) : model_(std::move(bpe)) {}

    Expected<SubwordTokenization> encode(std::string_view text) const;

    bool isWordPiece() const { return std::holds_alternative<WordPieceTokenizer>(model_); }
    const WordPieceTokenizer* wordPiece() const { return std::get_if<WordPieceTokenizer>(&model_); }
    const ByteLevelBpeTokenizer* byteLevelBpe() const { return std::get_if<ByteLevelBpeTokenizer>(&model_); }
    // Rows the token embedding table must have at least (the largest id + 1).
    std::size_t vocabularySize() const;
    // For a status line: "WordPiece, 30522 tokens, lower-cased (tokenizer_config.json)".
    const std::string& description() const { return description_; }
    void setDescription(std::string text) { description_ = std::move(text); }

private:
    std::variant<WordPieceTokenizer, ByteLevelBpeTokenizer> model_;
    std::string description_;
};

// Looks in `folder` for vocab.json + merges.txt (byte-level BPE) or vocab.txt (WordPiece). For
// WordPiece, do_lower_case, strip_accents and tokenize_chinese_chars come from
// tokenizer_config.json when the folder has one; without it, lower-casing is on exactly when no
// token outside [brackets] has an upper-case letter (uncased vocabularies have none; cased ones
// have thousands), and the description says it was guessed. Fails with a message naming the
// folder when it has none of these files, or naming the file that is wrong.
Expected<SubwordTokenizer> loadSubwordTokenizer(const std::string& folder);

// Whether `folder` has tokenizer files loadSubwordTokenizer would try (cheap; reads nothing).
bool hasSubwordTokenizerFiles(const std::string& folder);

}  // namespace qkv
