// Lexicon lookups, language guessing and the per-token meanings (the parser is in
// lexicon_parser.cpp). The rules are documented in docs/lexicon.md.
#include "core/embedding/lexicon.hpp"

#include <algorithm>

#include "core/embedding/builtin_lexicon_text.hpp"

namespace qkv {

namespace {

constexpr std::string_view rightSingleQuote = "\xE2\x80\x99";  // ’, typed by phones and word processors

bool isNumber(std::string_view text)
{
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

LexiconMatch find(const std::unordered_map<std::string, int>& table, const std::string& word)
{
    const auto found = table.find(word);
    if (found == table.end()) return {};
    return LexiconMatch{found->second, word, {}};
}

struct BuiltInLexicon {
    Lexicon lexicon;
    Status status;
};

const BuiltInLexicon& builtInLexicon()
{
    // A function-local static: parsed on first use, exactly once, even with many threads.
    static const BuiltInLexicon state = [] {
        Expected<Lexicon> parsed = Lexicon::parse(builtInLexiconText(), "resources/lexicon/lexicon.txt");
        if (!parsed) return BuiltInLexicon{Lexicon{}, Status{Error{parsed.error()}}};
        return BuiltInLexicon{std::move(parsed).value(), Status{}};
    }();
    return state;
}

}  // namespace

std::string normaliseLexiconWord(std::string_view text)
{
    std::string word = lowerCase(text);
    for (std::size_t at = word.find(rightSingleQuote); at != std::string::npos; at = word.find(rightSingleQuote, at + 1))
        word.replace(at, rightSingleQuote.size(), "'");
    return word;
}

bool LanguageGuess::evidence() const
{
    return std::any_of(hits.begin(), hits.end(), [](std::size_t count) { return count > 0; });
}

const Lexicon& Lexicon::builtIn() { return builtInLexicon().lexicon; }
const Status& Lexicon::builtInStatus() { return builtInLexicon().status; }
std::string_view Lexicon::builtInText() { return builtInLexiconText(); }

int Lexicon::languageIndex(std::string_view tag) const
{
    const auto found = std::find(languages_.begin(), languages_.end(), tag);
    return found == languages_.end() ? -1 : static_cast<int>(found - languages_.begin());
}

int Lexicon::findConcept(std::string_view id) const
{
    const auto found = conceptById_.find(normaliseLexiconWord(id));
    return found == conceptById_.end() ? -1 : found->second;
}

const std::vector<LexiconAffix>& Lexicon::elisions(int language) const
{
    static const std::vector<LexiconAffix> none;
    return language >= 0 && language < static_cast<int>(elisions_.size()) ? elisions_[static_cast<std::size_t>(language)] : none;
}

const std::vector<LexiconAffix>& Lexicon::clitics(int language) const
{
    static const std::vector<LexiconAffix> none;
    return language >= 0 && language < static_cast<int>(clitics_.size()) ? clitics_[static_cast<std::size_t>(language)] : none;
}

LexiconMatch Lexicon::lookup(std::string_view tokenText, int language) const
{
    if (language < 0 || language >= static_cast<int>(languages_.size())) return {};
    const auto& table = wordsByLanguage_[static_cast<std::size_t>(language)];
    const std::string word = normaliseLexiconWord(tokenText);
    if (LexiconMatch whole = find(table, word); whole.found()) return whole;
    // "l'accord": the word after the elided prefix carries the meaning.
    for (const LexiconAffix& affix : elisions(language)) {
        if (word.size() <= affix.text.size() || !word.starts_with(affix.text)) continue;
        if (LexiconMatch rest = find(table, word.substr(affix.text.size())); rest.found()) {
            rest.affix = affix;
            return rest;
        }
    }
    // "it's": the word before the clitic carries the meaning.
    for (const LexiconAffix& affix : clitics(language)) {
        if (word.size() <= affix.text.size() || !word.ends_with(affix.text)) continue;
        if (LexiconMatch rest = find(table, word.substr(0, word.size() - affix.text.size())); rest.found()) {
            rest.affix = affix;
            return rest;
        }
    }
    return {};
}

LexiconMatch Lexicon::lookupNeutral(std::string_view tokenText) const
{
    return find(neutralWords_, normaliseLexiconWord(tokenText));
}

LanguageGuess Lexicon::guessLanguage(const std::vector<Token>& tokens) const
{
    LanguageGuess guess;
    guess.hits.assign(languages_.size(), 0);
    for (const Token& token : tokens)
        for (std::size_t language = 0; language < languages_.size(); ++language)
            if (lookup(token.text, static_cast<int>(language)).found()) ++guess.hits[language];
    // max_element keeps the first of equal counts: ties go to the language declared first.
    if (!languages_.empty())
        guess.language = static_cast<int>(std::max_element(guess.hits.begin(), guess.hits.end()) - guess.hits.begin());
    return guess;
}

std::vector<TokenMeaning> Lexicon::meanings(const std::vector<Token>& tokens) const
{
    return meanings(tokens, guessLanguage(tokens));
}

std::vector<TokenMeaning> Lexicon::meanings(const std::vector<Token>& tokens, const LanguageGuess& guess) const
{
    const auto asConcept = [&](LexiconMatch match, MeaningKind kind, int language) {
        TokenMeaning meaning;
        meaning.key = concepts_[static_cast<std::size_t>(match.conceptIndex)].id;
        meaning.kind = kind;
        meaning.conceptIndex = match.conceptIndex;
        meaning.language = language;
        meaning.match = std::move(match);
        return meaning;
    };
    std::vector<TokenMeaning> result;
    result.reserve(tokens.size());
    for (const Token& token : tokens) {
        if (LexiconMatch match = lookup(token.text, guess.language); match.found()) {
            result.push_back(asConcept(std::move(match), MeaningKind::Word, guess.language));
            continue;
        }
        if (LexiconMatch match = lookupNeutral(token.text); match.found()) {
            result.push_back(asConcept(std::move(match), MeaningKind::Neutral, guess.language));
            continue;
        }
        bool found = false;
        for (int language = 0; language < static_cast<int>(languages_.size()) && !found; ++language) {
            if (language == guess.language) continue;
            if (LexiconMatch match = lookup(token.text, language); match.found()) {
                result.push_back(asConcept(std::move(match), MeaningKind::Word, language));
                found = true;
            }
        }
        if (found) continue;
        // Not a concept: the key is exactly what word embeddings hash (tokenEmbeddings).
        TokenMeaning meaning;
        meaning.key = lowerCase(token.text);
        meaning.kind = isNumber(token.text) ? MeaningKind::Number : MeaningKind::Unknown;
        result.push_back(std::move(meaning));
    }
    return result;
}

std::string Lexicon::describe(const TokenMeaning& meaning) const
{
    switch (meaning.kind) {
    case MeaningKind::Number: return meaning.key + " (a number: the same in every language)";
    case MeaningKind::Unknown: return meaning.key + " (not in the lexicon: its own word vector)";
    case MeaningKind::Neutral: return meaning.key + " (any language)";
    case MeaningKind::Word: break;
    }
    std::string text = meaning.key + " (";
    if (meaning.language >= 0 && meaning.language < static_cast<int>(languages_.size()))
        text += languages_[static_cast<std::size_t>(meaning.language)] + ": ";
    const LexiconAffix& affix = meaning.match.affix;
    if (affix.text.empty()) return text + meaning.match.form + ")";
    const bool elided = affix.text.back() == '\'';
    text += elided ? affix.text + " + " + meaning.match.form : meaning.match.form + " + " + affix.text;
    if (!affix.fullWord.empty()) text += "; " + affix.text + " = " + affix.fullWord;
    return text + ")";
}

}  // namespace qkv
