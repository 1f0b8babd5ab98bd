#pragma once
// The Unicode facts BERT's basic tokenizer and GPT-2's pre-token pattern rely on.
//
// General categories, per-character lower case and accent stripping come from tables generated
// by make_unicode_tables.py from Python's unicodedata (Unicode 14.0 with Debian 12's Python
// 3.11; unicodeVersion() says which). Characters assigned in later Unicode versions count as
// unassigned (category Cn): BERT's cleaning drops them and GPT-2's pattern treats them as
// "other", as Python with the same Unicode database would.

#include <string_view>

namespace qkv::unicode {

// The Unicode version the tables were generated from, e.g. "14.0.0".
std::string_view unicodeVersion();

bool isLetter(char32_t c);            // L*  (regex \p{L})
bool isNumber(char32_t c);            // N*  (regex \p{N})
bool isPunctuation(char32_t c);       // P*
bool isNonspacingMark(char32_t c);    // Mn  (what accent stripping removes)
bool isOther(char32_t c);             // C*  (Cc Cf Cs Co Cn)
bool isSpaceSeparator(char32_t c);    // Zs
// The White_Space property (PropList.txt): what regex \s matches in Oniguruma and in the
// `regex` module, and what str.split() / Rust's char::is_whitespace split on (less U+001C..1F,
// which the cleaning step has removed by then).
bool isWhiteSpace(char32_t c);

// BERT's _is_chinese_char: the CJK Unified Ideographs blocks (not kana, not Hangul).
bool isCjkIdeograph(char32_t c);

// Appends the lower case of one character (str.lower() of that character alone: U+0130 gives
// two characters; Greek final sigma, which needs the next character, is not applied). Returns
// how many characters were appended.
int appendLowerCase(char32_t c, char32_t out[3]);

// Appends NFD(c) without its Mn marks (Hangul syllables decompose into their jamo; a character
// that is Mn itself gives nothing). Returns how many characters were appended (0 to 3).
int appendAccentStripped(char32_t c, char32_t out[3]);

}  // namespace qkv::unicode
