#pragma once
// A model folder's SentencePiece tokenizer files, as the families ship them (Hugging Face's
// layout), read with the special tokens each family's tokenizer adds:
//   LLaMA   tokenizer.model (+ tokenizer_config.json: add_bos_token, default true;
//           add_eos_token, default false)
//   T5      spiece.model (+ tokenizer_config.json: extra_ids, default 100); </s> last
//   Marian  source.spm, target.spm and vocab.json (target_vocab.json for the target side when
//           the folder has one: MarianTokenizer's separate_vocabs); </s> last
// Each tokenizer comes with a description for the status line.

#include <string>

#include "core/common/expected.hpp"
#include "core/text/sentencepiece_tokenizer.hpp"

namespace qkv {

struct DescribedSentencePiece {
    SentencePieceTokenizer tokenizer;
    std::string description;  // "SentencePiece (BPE), 400 pieces, tokenizer.model, <s> first"
};

// LLaMA's tokenizer.model in `folder`.
Expected<DescribedSentencePiece> loadLlamaSentencePiece(const std::string& folder);
// T5's spiece.model in `folder`. A tokenizer_config.json naming another tokenizer_class
// (ALBERT and XLNet ship spiece.model too, with other special tokens) is refused.
Expected<DescribedSentencePiece> loadT5SentencePiece(const std::string& folder);

enum class MarianSide { Source, Target };
// Marian's source.spm (the sentence the encoder reads) or target.spm (the sentence the decoder
// reads), with ids from vocab.json.
Expected<DescribedSentencePiece> loadMarianSentencePiece(const std::string& folder, MarianSide side);

}  // namespace qkv
