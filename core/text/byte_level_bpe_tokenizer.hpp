#pragma once
// GPT-2's tokenizer: pre-tokenization (gpt2_pretokenizer.hpp), each piece's UTF-8 bytes written
// as byte symbols, then BPE merges by rank inside each piece (openai/gpt-2 encoder.py bpe()).
// GPT-2 adds no special tokens around the text.

#include <string>
#include <cstdint>
#include <string_view>

#include "core/common/expected.hpp"
#include "core/text/byte_level_bpe_vocab.hpp"
#include "core/text/subword_tokens.hpp"

namespace qkv {

struct ByteLevelBpeOptions {
    bool keepTypedSpecialTokens = true;  // "<|endoftext|>" typed in the text is that token
    // RoBERTa and BART (their tokenizers' add_special_tokens): <s> first and </s> last, with
    // these ids from vocab.json; -1: nothing added (GPT-2).
    std::int32_t beginId = -1;
    std::int32_t endId = -1;
};

// The tokens of `text`. Malformed UTF-8 bytes are read as U+FFFD (its three bytes go to the
// BPE). Each token keeps its vocabulary piece ("Ġcat") and shows as text (displayPiece); its
// span covers the characters its bytes belong to. Fails when the text is larger than
// limits::maxSentenceBytes or gives more than limits::maxTokens tokens (never truncated).
Expected<SubwordTokenization> byteLevelBpeTokenize(const ByteLevelBpe& bpe, std::string_view text,
                                                   const ByteLevelBpeOptions& options = {});

// The bytes a piece of byte symbols stands for ("Ġcat" -> " cat"); a piece with a character
// that is no byte symbol (an added token such as "<|endoftext|>") as it is.
std::string pieceBytes(std::string_view piece);

// What a chip shows for a piece of byte symbols: the bytes decoded as UTF-8, a space shown as
// "·" (U+00B7), a newline as "↵" and a tab as "→"; other control bytes, and bytes of a character
// split across tokens, as "<0xF0>" (the notation of byte-fallback tokenizers). A piece that is
// not made of byte symbols (a special token) shows as itself.
std::string displayPiece(std::string_view piece);

// The same for text that is already UTF-8 (a SentencePiece-style piece with its "▁" turned
// back into a space): a space as "·", a newline as "↵", a tab as "→", other control characters
// and malformed bytes as "<0x07>".
std::string visibleText(std::string_view text);

}  // namespace qkv
