#pragma once
// SentencePiece tokenizers (Kudo & Richardson, 2018) as LLaMA, T5 and Marian ship them: a
// .model file (tokenizer.model, spiece.model, source.spm / target.spm) run by Debian's
// libsentencepiece (sentencepiece::SentencePieceProcessor; nothing of SentencePiece is
// re-implemented here), plus what Hugging Face's tokenizers add around it:
//   - LLaMA (LlamaTokenizer): <s> first (tokenizer_config.json add_bos_token, default true),
//     </s> last only when add_eos_token says so;
//   - T5 (T5Tokenizer): </s> last; 100 sentinels <extra_id_0..99> after the model's pieces
//     (<extra_id_N> has the id pieceCount + extraIds - 1 - N);
//   - Marian (MarianTokenizer): the model's pieces mapped to ids through vocab.json, the
//     vocabulary source and target share (not the .spm model's own ids; a piece vocab.json
//     lacks is <unk>'s id), </s> last, and a language code ">>fr<<" at the start of the text
//     one token.
// Special tokens typed in the text ("</s>", "<unk>", "<extra_id_0>") are those tokens, and the
// stretches between them are encoded one by one (the slow tokenizers' legacy behaviour: each
// stretch gets its own "▁" prefix).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.hpp"
#include "core/text/subword_tokens.hpp"
#include "core/text/vocabulary_files.hpp"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace qkv {

// A loaded .model file. Copies share one immutable processor (its Encode is const).
class SentencePieceModel {
public:
    // Reads the file (a regular file of at most limits::maxTokenizerFileBytes, refused without
    // opening when it is a FIFO or a device) and hands its bytes to the library. A file the
    // library refuses (not a SentencePiece model, truncated, corrupt) fails with a message naming
    // the file and the library's reason; nothing aborts.
    static Expected<SentencePieceModel> load(const std::string& path);
    // The same from the file's bytes, already read; `path` names them in messages.
    static Expected<SentencePieceModel> fromBytes(std::string_view bytes, const std::string& path);

    const std::string& path() const { return path_; }
    // "unigram", "BPE", "word" or "char" (the trainer's model_type recorded in the file).
    const std::string& kind() const { return kind_; }
    std::size_t pieceCount() const;
    // The model's own id of `piece`, or -1 when the model has no such piece.
    std::int32_t id(std::string_view piece) const;
    std::string piece(std::int32_t id) const;  // empty when out of range
    std::int32_t bosId() const;                // -1 when the model has none
    std::int32_t eosId() const;
    // The pieces typed text is split on: control symbols (<s>, </s>, <pad>) and <unk>.
    std::vector<std::string> specialPieces() const;
    const sentencepiece::SentencePieceProcessor& processor() const { return *processor_; }

private:
    SentencePieceModel() = default;

    std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor_;
    std::string path_;
    std::string kind_;
};

// What Hugging Face adds around the model's pieces, per family (see the top of this file).
struct SentencePieceOptions {
    bool addBos = false;               // <s> first (LLaMA)
    bool addEos = false;               // </s> last (T5, Marian)
    std::int32_t extraIds = 0;         // T5's <extra_id_N> sentinels after the model's pieces
    bool languageCode = false;         // Marian: ">>xx<<" at the start is one token
};

// Marian's vocab.json: piece -> id, shared by source.spm and target.spm.
struct SentencePieceVocab {
    TokenIdMap ids;
    std::size_t idCount = 0;  // the largest id + 1
    std::string path;
};

struct SentencePieceTokenizer {
    SentencePieceModel model;
    SentencePieceOptions options;
    // Marian: ids through vocab.json; null: the model's own ids.
    std::shared_ptr<const SentencePieceVocab> vocab;
};

// Reads vocab.json (one flat object of "piece": id pairs). Requires "</s>" and "<unk>" (Marian
// appends the one and maps unknown pieces to the other); ids are unique, below
// limits::maxVocabularyEntries.
Expected<SentencePieceVocab> loadSentencePieceVocab(const std::string& path);

// The tokens of `text`: pieces as the model spells them ("▁cat", "<0xE7>"), shown as themselves;
// spans are the library's byte spans in the text (a byte-fallback piece of a character split
// across several pieces: the last one spans the character, the others are empty at its start).
// An added <s> spans [0, 0), an added </s> [size, size). Fails when the text is larger than
// limits::maxSentenceBytes, gives more than limits::maxTokens tokens, or the library fails.
Expected<SubwordTokenization> sentencePieceTokenize(const SentencePieceTokenizer& tokenizer, std::string_view text);

// Rows the token embedding table must have: vocab.json's largest id + 1 (Marian), or the
// model's pieces plus the extra ids.
std::size_t sentencePieceVocabularySize(const SentencePieceTokenizer& tokenizer);

}  // namespace qkv
