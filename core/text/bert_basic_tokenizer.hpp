#pragma once
// BERT's basic tokenization (Hugging Face BasicTokenizer / BertNormalizer + BertPreTokenizer),
// with byte spans back into the typed text:
//   1. clean: drop U+0000, U+FFFD and control/format/unassigned characters (category C*, but
//      not \t \n \r); whitespace becomes a word break;
//   2. every CJK ideograph is a word of its own;
//   3. split on whitespace (the White_Space property);
//   4. uncased models: lower-case, then strip accents (NFD, drop Mn marks);
//   5. every punctuation character is a word of its own (ASCII ! to /, : to @, [ to `, { to ~,
//      and Unicode P*).
// Step 4 follows the fast tokenizer: one character at a time, with no NFC first (the Python
// BasicTokenizer recomposes with NFC, which changes nothing for uncased models and only typed
// combining accents for cased ones) and no Greek final sigma.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace qkv {

struct BertBasicOptions {
    bool lowerCase = true;           // do_lower_case
    bool stripAccents = true;        // strip_accents (Hugging Face: follows do_lower_case unless set)
    bool splitCjkIdeographs = true;  // tokenize_chinese_chars
};

// One word after basic tokenization: its normalised text, and for each of its characters the
// character's byte offset in `text` and the span of the typed text it came from.
struct BasicWord {
    std::string text;                      // normalised UTF-8
    std::vector<std::size_t> charOffsets;  // byte offset of each character in `text`, then text.size()
    std::vector<std::size_t> sourceBegin;  // per character: span in the typed text
    std::vector<std::size_t> sourceEnd;

    std::size_t charCount() const { return sourceBegin.size(); }
};

// Words of text[begin, end) (spans count from the start of `text`). Stops after `maxWords`
// words (the caller then reports the token limit); returns at most maxWords + 1 words.
std::vector<BasicWord> bertBasicTokenize(std::string_view text, std::size_t begin, std::size_t end,
                                         const BertBasicOptions& options, std::size_t maxWords);

// BERT's _is_punctuation: the ASCII ranges above, plus Unicode P*.
bool isBertPunctuation(char32_t c);

}  // namespace qkv
