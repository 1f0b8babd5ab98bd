#pragma once
// Meaning embeddings: a word and its translations share a vector.
//
// For a token whose concept is c, read as a word of language L (lexicon.hpp):
//     x = sqrt(1 - alpha^2) m(c) + alpha l(L),      alpha = meaningLanguageWeight = 0.3
// m(c) and l(L) have independent N(0, 1) entries drawn from (seed, c) and (seed, L), so x's
// entries are N(0, 1) too, like word embeddings. A word and its translation share m(c) and
// differ only in l(L): their cosine similarity is about 1 - alpha^2 = 0.91 (measured at
// d_model 512 over the built-in lexicon: docs/lexicon.md). l(L) is one vector for a whole
// sentence, so as a key it adds the same amount to every score of a query row, which softmax
// ignores. Punctuation and other "*" words take the sentence's language; numbers and unknown
// words are exactly their word vector (tokenEmbeddings), without a language part.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/matrix.hpp"
#include "core/embedding/lexicon.hpp"
#include "core/text/tokenizer.hpp"

namespace qkv {

inline constexpr double meaningLanguageWeight = 0.3;  // alpha

// m(c), 1 x d_model: N(0, 1) entries from the stream hashWithSeed("concept:" + id, seed).
RowVectorF conceptVector(std::string_view conceptId, Index d_model, std::uint64_t seed);
// l(L), 1 x d_model: N(0, 1) entries from the stream hashWithSeed("language:" + tag, seed).
RowVectorF languageVector(std::string_view languageTag, Index d_model, std::uint64_t seed);

// n x d_model, one row per token as above, with the built-in lexicon (Lexicon::builtIn()).
// Deterministic: same tokens and seed, same bits.
MatrixF meaningEmbeddings(const std::vector<Token>& tokens, Index d_model, std::uint64_t seed);
MatrixF meaningEmbeddings(const std::vector<Token>& tokens, Index d_model, std::uint64_t seed, const Lexicon& lexicon);

// For each token its concept id, or lowerCase(text) for numbers and unknown words: two tokens
// get the same key exactly when meaningEmbeddings gives them the same concept vector (the
// "same meaning" relation that presets, tests and the app use). Keys of one sentence only need
// that sentence; compare keys across sentences freely.
std::vector<std::string> meaningKeys(const std::vector<Token>& tokens);
std::vector<std::string> meaningKeys(const std::vector<Token>& tokens, const Lexicon& lexicon);

// Whether each token is outside the lexicon (MeaningKind::Unknown): meaning embeddings give it
// its own word vector, made from its spelling, so its closeness to any other word, a
// translation included, is chance.
std::vector<bool> outsideLexicon(const std::vector<Token>& tokens);
std::vector<bool> outsideLexicon(const std::vector<Token>& tokens, const Lexicon& lexicon);

}  // namespace qkv
