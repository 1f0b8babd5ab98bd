#pragma once
// WordPiece as Hugging Face's BertTokenizer applies it: basic tokenization
// (bert_basic_tokenizer.hpp), then each word split greedily, longest match first, into
// vocabulary pieces, continuation pieces written "##piece" (Wu et al. 2016, section 4.1;
// BERT, Devlin et al. 2019, section 3). A word with a part no piece matches, or longer than
// maxInputCharsPerWord characters, becomes [UNK] as a whole. The model input is
// [CLS] tokens [SEP].

#include <cstddef>
#include <optional>
#include <string_view>

#include "core/common/expected.hpp"
#include "core/text/subword_tokens.hpp"
#include "core/text/wordpiece_vocab.hpp"

namespace qkv {

struct WordPieceOptions {
    bool lowerCase = true;                   // do_lower_case (uncased models)
    std::optional<bool> stripAccents;        // strip_accents; unset: the same as lowerCase
    bool splitCjkIdeographs = true;          // tokenize_chinese_chars
    bool addClassAndSeparator = true;        // [CLS] first and [SEP] last, as the model expects
    bool keepTypedSpecialTokens = true;      // "[MASK]" typed in the text is the [MASK] token
    std::size_t maxInputCharsPerWord = 100;  // max_input_chars_per_word
};

// The tokens of `text` (UTF-8; malformed bytes are dropped like U+FFFD). Pieces display as
// themselves ("##able"). Fails when the text is larger than limits::maxSentenceBytes, when the
// result would have more than limits::maxTokens tokens (never a truncated result), or when
// [CLS]/[SEP] are asked for and the vocabulary lacks them.
Expected<SubwordTokenization> wordPieceTokenize(const WordPieceVocab& vocab, std::string_view text,
                                                const WordPieceOptions& options = {});

}  // namespace qkv
