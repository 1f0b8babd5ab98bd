#pragma once
// English sentences and their French or German translations, generated word by word from a small
// grammar whose every word is a word of the built-in lexicon (resources/lexicon/lexicon.txt; a
// test checks each one and that the gold alignment pairs words of one lexicon concept).
//
// Sentences: a subject, a verb in the present or the perfect, and for transitive verbs an object;
// each noun phrase is an article (the, a) and a noun, with an adjective half of the time.
//
//   the black cat sees a small dog      le chat noir voit un petit chien
//                                       die schwarze katze sieht einen kleinen hund
//   the cat has seen the dog            le chat a vu le chien
//                                       die katze hat den hund gesehen
//
// French: articles by gender (le, la, un, une); adjectives agree with the noun and follow it,
// except the few that precede (grand, petit, bon, mauvais, vieux, jeune, nouveau, beau, long).
// Nouns start with a consonant, so no elision (l') is needed. German: articles by gender and case
// (der, die, das; den and einen in the accusative), adjective endings after definite (weak) and
// indefinite (mixed) articles, the weak noun "knabe" -> "knaben" in the accusative, and the
// participle at the end of the clause ("hat den hund gesehen"): a crossing alignment.
// German nouns are written lower-case, as every task writes its words.
//
// Each target word has exactly one source word: "a"/"hat" come from "has", "vu"/"gesehen" from
// "seen", so every gold alignment is a source position (-1 only for <eos>).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.hpp"
#include "core/common/random.hpp"
#include "core/training/tasks.hpp"

namespace qkv {

// The longest sentence on either side: article, adjective, noun, auxiliary, participle, article,
// adjective, noun.
inline constexpr Index translationMaxWords = 8;

struct TranslationPair {
    std::vector<std::string> source;      // English words
    std::vector<std::string> target;      // French or German words
    std::vector<std::int32_t> alignment;  // per target word: the position of its source word
};

// One random sentence and its translation.
TranslationPair randomTranslation(TargetLanguage language, SplitMix64& random);
// The translation of one English sentence of the grammar ("the cat has seen the dog"), for
// tests and examples; an Error names the first word the grammar does not expect there.
Expected<TranslationPair> translateEnglish(std::string_view sentence, TargetLanguage language);

// Every word the grammar can write, English first, then the target language, each once, in a
// fixed order (the model's vocabulary is built from this list).
std::vector<std::string> translationWords(TargetLanguage language);

// How many nouns, adjectives and verbs the grammar has, for descriptions and docs/training.md.
struct TranslationGrammarSize {
    Index nouns = 0, adjectives = 0, transitiveVerbs = 0, intransitiveVerbs = 0;
};
TranslationGrammarSize translationGrammarSize();

}  // namespace qkv
