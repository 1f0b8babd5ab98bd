#pragma once
// The lexicon behind meaning embeddings: words of several languages
// mapped to shared concepts, so that "chat", "Katze" and "cat" get one concept vector.
//
// The text format (resources/lexicon/lexicon.txt, docs/lexicon.md), one concept per line:
//   cat | en: cat, cats | fr: chat, chats, chatte | de: Katze, Katzen, Kater
//   .   | *: .                     (*: the same word in every language)
//   @languages: en, fr, de         (the tags, in the order that breaks ties)
//   @elision fr: l' = le, qu' = que, ...   ("l'accord" means accord)
//   @clitics en: 's, 're = are, ...         ("it's" means it)
// A word belongs to at most one concept per language; a concept's id is one of its words.
//
// Immutable once parsed, so one Lexicon is safely shared by every thread.

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/expected.hpp"
#include "core/text/tokenizer.hpp"

namespace qkv {

// Parser limits: a hostile or huge text is refused with a message, never a crash or a hang.
inline constexpr std::size_t maxLexiconBytes = 8u << 20;  // 8 MiB
inline constexpr std::size_t maxLexiconLineBytes = 4096;

struct LexiconConcept {
    std::string id;                               // normalised (lower case), one of its words
    std::size_t line = 0;                         // 1-based line in the source text
    std::vector<std::vector<std::string>> words;  // per language (Lexicon::languages()), normalised
    std::vector<std::string> neutralWords;        // "*": the same in every language
};

// An elided prefix (French "l'") or a clitic suffix (English "'s") set aside before lookup.
struct LexiconAffix {
    std::string text;       // normalised, with its apostrophe: "l'", "'re"
    std::string fullWord;   // "le", "are"; empty when none was given
    int conceptIndex = -1;  // the concept of fullWord, -1 when none
    std::size_t line = 0;   // where it was declared
};

// How one token text was found.
struct LexiconMatch {
    int conceptIndex = -1;
    std::string form;    // the lexicon word that matched: "est" for "s'est"
    LexiconAffix affix;  // the elision or clitic set aside (text empty when none)

    bool found() const { return conceptIndex >= 0; }
};

// What a token of a sentence means.
enum class MeaningKind {
    Word,     // a lexicon word of a language
    Neutral,  // a "*" word (punctuation, digits): the same in every language
    Number,   // digits only and not in the lexicon: its own meaning, the same in every language
    Unknown,  // not in the lexicon: falls back to its own word vector
};

struct TokenMeaning {
    // The concept id (Word, Neutral), or lowerCase(text) (Number, Unknown). Two tokens have the
    // same key exactly when meaning embeddings give them the same concept vector.
    std::string key;
    MeaningKind kind = MeaningKind::Unknown;
    int conceptIndex = -1;  // -1 for Number and Unknown
    // Whose language vector is added: the word's language (Word), the sentence's guessed
    // language (Neutral), -1 (Number, Unknown: no language part).
    int language = -1;
    LexiconMatch match;  // how it was found (Word, Neutral)
};

// The language a sentence is in, by majority of lexicon hits.
struct LanguageGuess {
    int language = -1;              // index into Lexicon::languages(); -1 when there are none
    std::vector<std::size_t> hits;  // per language: tokens found as a word of that language
    bool evidence() const;          // false when no token was found in any language
};

class Lexicon {
public:
    Lexicon() = default;  // empty: no languages, no concepts; every token is unknown

    // Parses the text format. Errors name `sourceName` and the line: a duplicate concept id, a
    // line without a concept, an unknown language tag, a word listed for two concepts of one
    // language, an over-long line, invalid UTF-8, a word the tokenizer would split.
    static Expected<Lexicon> parse(std::string_view text, std::string_view sourceName);

    // resources/lexicon/lexicon.txt, compiled in; parsed once, thread-safe. If that file no
    // longer parses, an empty lexicon (and builtInStatus() says why).
    static const Lexicon& builtIn();
    static const Status& builtInStatus();
    // The built-in lexicon's text, as compiled into the library.
    static std::string_view builtInText();

    const std::vector<std::string>& languages() const { return languages_; }
    int languageIndex(std::string_view tag) const;  // -1 when not declared
    std::size_t conceptCount() const { return concepts_.size(); }
    const LexiconConcept& conceptAt(std::size_t index) const { return concepts_[index]; }
    int findConcept(std::string_view id) const;  // by id (case-insensitive); -1 when absent

    // The concept of a token text read as a word of `language`: the whole form first, then
    // with one of the language's elided prefixes or clitic suffixes set aside. Case-insensitive;
    // ’ reads as '. conceptIndex == -1 when not found.
    LexiconMatch lookup(std::string_view tokenText, int language) const;
    // The concept of a "*" word (same in every language); conceptIndex == -1 when not found.
    LexiconMatch lookupNeutral(std::string_view tokenText) const;
    // The elided prefixes and clitic suffixes of a language.
    const std::vector<LexiconAffix>& elisions(int language) const;
    const std::vector<LexiconAffix>& clitics(int language) const;

    // Counts, per language, the tokens found as its words; the most hits wins, ties go to the
    // language declared first. With no hits at all: the first language, evidence() false.
    LanguageGuess guessLanguage(const std::vector<Token>& tokens) const;
    // Each token's meaning within its sentence: a word of the guessed language first (so "die"
    // is the article in a German sentence and the verb in an English one), then a "*" word,
    // then a word of another language (in declared order), then a number, else unknown.
    std::vector<TokenMeaning> meanings(const std::vector<Token>& tokens) const;
    std::vector<TokenMeaning> meanings(const std::vector<Token>& tokens, const LanguageGuess& guess) const;

    // One line for people: "cat (fr: chat)", "be (fr: est, from s'est; s' = se)",
    // ". (any language)", "1992 (a number)", "not in the lexicon".
    std::string describe(const TokenMeaning& meaning) const;

private:
    friend class LexiconBuilder;

    std::vector<std::string> languages_;
    std::vector<LexiconConcept> concepts_;
    std::unordered_map<std::string, int> conceptById_;
    std::vector<std::unordered_map<std::string, int>> wordsByLanguage_;  // word -> concept
    std::unordered_map<std::string, int> neutralWords_;
    std::vector<std::vector<LexiconAffix>> elisions_;  // per language, longest first
    std::vector<std::vector<LexiconAffix>> clitics_;   // per language, longest first
};

// The lookup spelling of a word or token: lowerCase, with ’ (U+2019) read as '.
std::string normaliseLexiconWord(std::string_view text);

}  // namespace qkv
