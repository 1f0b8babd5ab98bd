#pragma once
// The generated symbol tasks (reverse, copy, sort) and the induction task: their alphabets and
// one random example each. TaskData (tasks.hpp) draws held-out and training examples from here.
//
//   reverse  x_1 .. x_n -> x_n .. x_1   gold alignment of output word j: source position n-1-j
//   copy     x_1 .. x_n -> x_1 .. x_n   gold alignment j
//   sort     x_1 .. x_n -> ascending    gold alignment: the word's source position when the symbol
//                                       occurs once in the source, else -1 (no single source)
//   induction  <bos> x_1 .. x_L x_1 .. x_L, each x_i drawn uniformly (with replacement); at
//              position t of the second copy (t = L+1 .. 2L-1) the label is the next token,
//              x_{t-L+1}, which an induction head finds right after the current token's first
//              occurrence (key t - L + 1). No label elsewhere: the first copy is random and the
//              copy's start is not predictable without knowing L. Tokens repeat within a block,
//              so the previous token alone does not always say where to look: the model has to
//              know which token came just before each key, which is what makes a clean
//              previous-token head worth learning (with distinct tokens a blurred one suffices;
//              docs/training.md).

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/random.hpp"
#include "core/training/tasks.hpp"

namespace qkv {

// Reverse, copy and sort: sequences of 4-12 symbols from an alphabet of 16 ("a" .. "p").
inline constexpr Index symbolAlphabetSize = 16;
inline constexpr Index symbolMinLength = 4;
inline constexpr Index symbolMaxLength = 12;
// Induction: a block of 8-16 tokens of an alphabet of 26 ("a" .. "z"), twice.
inline constexpr Index inductionAlphabetSize = 26;
inline constexpr Index inductionMinPeriod = 8;
inline constexpr Index inductionMaxPeriod = 16;

// A uniform integer in [low, high].
Index uniformInteger(SplitMix64& random, Index low, Index high);

// Adds `count` one-letter symbols "a", "b", ... (count <= 26) and returns the first one's id;
// the symbols' ids are consecutive, so sorting ids sorts the symbols alphabetically.
std::int32_t addLetterSymbols(Vocabulary& vocabulary, Index count);

// A sequence-to-sequence example from the source ids, the output words' ids and, for each
// output word, the source position it comes from (-1 for none): targetInput = <bos> y,
// targetOutput = y <eos>, alignment = that list followed by -1 for <eos>.
TaskExample sequenceToSequenceExample(std::vector<std::int32_t> source, const std::vector<std::int32_t>& target,
                                      const std::vector<std::int32_t>& targetAlignment);

// One random reverse, copy or sort example over the symbols firstSymbol .. firstSymbol + 15.
TaskExample symbolTaskExample(TaskKind kind, std::int32_t firstSymbol, SplitMix64& random);
// One random induction example over the tokens firstToken .. firstToken + 25.
TaskExample inductionExample(std::int32_t firstToken, SplitMix64& random);

}  // namespace qkv
