#pragma once
// The model's own tokens for a typed sentence, as its subword tokenizer (WordPiece for BERT,
// byte-level BPE for GPT-2) produces them: ids for the embedding tables, and labels and byte
// spans for the token chips.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.hpp"
#include "core/text/tokenizer.hpp"

namespace qkv {

struct SubwordToken {
    std::int32_t id = 0;         // row of the model's token embedding table
    std::string piece;           // the vocabulary's entry, byte for byte: "##able", "Ġcat", "[CLS]"
    std::string display;         // what a chip shows: "##able", "·cat" (a space shows as ·), "[CLS]"
    std::size_t byteBegin = 0;   // span in the typed text, [byteBegin, byteEnd); empty for an
    std::size_t byteEnd = 0;     // added [CLS] (at 0) or [SEP] (at the end)
    bool special = false;        // [CLS], [SEP], or a special token typed in the text ("[MASK]")
};

struct SubwordTokenization {
    std::vector<SubwordToken> tokens;

    std::vector<std::int32_t> ids() const;
    // One chip per token: Token{display, byteBegin, byteEnd}.
    std::vector<Token> chips() const;
};

// A stretch of the typed text: either plain text [begin, end), or one special token typed in
// it (specialIndex into the list given to splitOnSpecialTokens).
struct TextSegment {
    std::size_t begin = 0;
    std::size_t end = 0;
    int specialIndex = -1;
};

// Splits the text around exact, case-sensitive occurrences of the special tokens (leftmost
// first, the longest where several start at the same byte), as Hugging Face's tokenizers do
// for added tokens. Plain segments may be empty only when the text is.
std::vector<TextSegment> splitOnSpecialTokens(std::string_view text, const std::vector<std::string>& specials);

// The limits every subword tokenizer applies (core/common/limits.hpp): the text's size before,
// the number of tokens after.
Status checkSentenceBytes(std::string_view text);
Error tooManyTokens();

}  // namespace qkv
