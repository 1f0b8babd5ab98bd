#pragma once
// Splits a sentence into word and punctuation tokens.
//
// Words are runs of letters, digits, marks and apostrophes-inside-words; each punctuation or
// symbol character is a token of its own; each CJK ideograph, kana or emoji is a token of its
// own (as BERT's basic tokenizer does). UTF-8 aware: a multi-byte character is never split,
// and a malformed byte becomes a one-byte token "\xEF\xBF\xBD" (U+FFFD) with its original span.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace qkv {

struct Token {
    std::string text;        // the token's UTF-8 text (malformed bytes become U+FFFD)
    std::size_t byteBegin;   // span in the input: [byteBegin, byteEnd)
    std::size_t byteEnd;
};

// Empty or whitespace-only input gives no tokens.
std::vector<Token> tokenize(std::string_view utf8);

// How many sentences tokenize() and SubwordTokenizer::encode() have cut in this process, on any
// thread. One edit cuts each changed sentence once (core/pipeline/compute_request.hpp); the
// tests hold the app to that with this count.
std::uint64_t sentenceCutCount();
void countSentenceCut();

// Lower-cases ASCII, Latin-1 Supplement, Latin Extended-A, Greek and Cyrillic letters; other
// characters pass through. Generated embeddings key on this (docs/architecture.md, "Numerical conventions").
std::string lowerCase(std::string_view utf8);

// The same text with every malformed UTF-8 byte replaced by U+FFFD; valid text is unchanged.
std::string sanitizeUtf8(std::string_view bytes);

}  // namespace qkv
