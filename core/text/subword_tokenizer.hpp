#pragma once
// A model's own tokenizer, found beside its checkpoint: tokenizer.json (the fast tokenizers'
// file, read whole: core/text/tokenizer_json), BERT's vocab.txt (WordPiece), GPT-2's
// vocab.json + merges.txt (byte-level BPE), or a SentencePiece model (LLaMA's tokenizer.model,
// T5's spiece.model, Marian's source.spm / target.spm with vocab.json). One object the app keeps
// (copies are cheap: a SentencePiece model is shared) and asks for the tokens of each typed
// sentence.

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/common/expected.hpp"
#include "core/text/byte_level_bpe_tokenizer.hpp"
#include "core/text/sentencepiece_tokenizer.hpp"
#include "core/text/subword_tokens.hpp"
#include "core/text/tokenizer_json/fast_tokenizer.hpp"
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
    explicit SubwordTokenizer(SentencePieceTokenizer sentencePiece) : model_(std::move(sentencePiece)) {}
    explicit SubwordTokenizer(FastTokenizer fast) : model_(std::move(fast)) {}

    Expected<SubwordTokenization> encode(std::string_view text) const;

    bool isWordPiece() const { return std::holds_alternative<WordPieceTokenizer>(model_); }
    const WordPieceTokenizer* wordPiece() const { return std::get_if<WordPieceTokenizer>(&model_); }
    const ByteLevelBpeTokenizer* byteLevelBpe() const { return std::get_if<ByteLevelBpeTokenizer>(&model_); }
    bool isSentencePiece() const { return std::holds_alternative<SentencePieceTokenizer>(model_); }
    const SentencePieceTokenizer* sentencePiece() const { return std::get_if<SentencePieceTokenizer>(&model_); }
    const FastTokenizer* fast() const { return std::get_if<FastTokenizer>(&model_); }
    // Splits words into WordPiece pieces ("##able"), from vocab.txt or a tokenizer.json: what
    // BERT's input expects.
    bool readsWordPieces() const { return isWordPiece() || (fast() && fast()->modelType() == "WordPiece"); }
    // How one vocabulary entry is shown alone, as the chips show it: "Ġcat" and "▁cat" as "·cat".
    std::string displayPiece(std::string_view piece) const;
    // Pieces put back into text (what Hugging Face's decode gives without cleaning up): byte
    // symbols as their bytes, "▁" as a space, WordPiece's "##" joined to the piece before and
    // any other piece after a space, as every word of a word-level vocabulary. Generated tokens become text a prompt can hold.
    std::string decodePieces(const std::vector<std::string>& pieces) const;
    // Rows the token embedding table must have at least (the largest id + 1).
    std::size_t vocabularySize() const;
    // For a status line: "WordPiece, 30522 tokens, lower-cased (tokenizer_config.json)",
    // "SentencePiece (BPE), 32000 pieces, tokenizer.model, <s> first".
    const std::string& description() const { return description_; }
    void setDescription(std::string text) { description_ = std::move(text); }

private:
    std::variant<WordPieceTokenizer, ByteLevelBpeTokenizer, SentencePieceTokenizer, FastTokenizer> model_;
    std::string description_;
};

// Looks in `folder` for tokenizer.json first, as transformers' fast tokenizers do: its reader is
// the one for the model (LLaMA 3, Qwen3 and Gemma 3 ship nothing else, and Qwen's vocab.json and
// merges.txt do not say its pre-tokenizer). When tokenizer.json is refused (a part not
// supported, a corrupt file) and the folder has other tokenizer files, those are read and the
// description says why tokenizer.json was not. Then, in this order, for source.spm without
// merges.txt (Marian: the source side,
// ids from vocab.json), vocab.json + merges.txt (byte-level BPE), vocab.txt (WordPiece), tokenizer.model
// (LLaMA) or spiece.model (T5); sentencepiece_folder.hpp says what each SentencePiece family
// reads and adds. For
// WordPiece, do_lower_case, strip_accents and tokenize_chinese_chars come from
// tokenizer_config.json when the folder has one; without it, lower-casing is on exactly when no
// token outside [brackets] has an upper-case letter (uncased vocabularies have none; cased ones
// have thousands), and the description says it was guessed. Fails with a message naming the
// folder when it has none of these files, or naming the file that is wrong.
Expected<SubwordTokenizer> loadSubwordTokenizer(const std::string& folder);

// Whether `folder` has tokenizer files loadSubwordTokenizer would try (cheap; reads nothing).
bool hasSubwordTokenizerFiles(const std::string& folder);

// An encoder-decoder model's two tokenizers: the source sentence's (encoder input) and the
// target sentence's (decoder input).
struct SourceTargetTokenizers {
    SubwordTokenizer source;
    SubwordTokenizer target;
};

// Marian (a folder with source.spm and no merges.txt): source.spm for the source, target.spm
// for the target, both with ids from vocab.json (target_vocab.json for the target when the
// folder has one). Any other folder (BART's byte-level BPE, T5's spiece.model): the one
// tokenizer loadSubwordTokenizer finds, for both sides. Fails as loadSubwordTokenizer does, or
// when target.spm is missing.
Expected<SourceTargetTokenizers> loadSourceTargetTokenizers(const std::string& folder);

}  // namespace qkv
