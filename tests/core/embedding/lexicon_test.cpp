// The built-in lexicon (resources/lexicon/lexicon.txt): size, coverage of every example
// sentence, inflections, elision and contractions, language guessing and ambiguity.
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "core/config/examples.hpp"
#include "core/embedding/lexicon.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

const Lexicon& lexicon() { return Lexicon::builtIn(); }
int language(const char* tag) { return lexicon().languageIndex(tag); }

// The concept id a word has when read as `tag`, or "" when it has none.
std::string conceptOf(const std::string& word, const char* tag)
{
    const LexiconMatch match = lexicon().lookup(word, language(tag));
    return match.found() ? lexicon().conceptAt(static_cast<std::size_t>(match.conceptIndex)).id : std::string();
}

std::vector<std::string> keysOf(const std::string& sentence)
{
    std::vector<std::string> keys;
    for (const TokenMeaning& meaning : lexicon().meanings(tokenize(sentence))) keys.push_back(meaning.key);
    return keys;
}

TEST(BuiltInLexicon, ParsesAndHasAtLeast300Concepts)
{
    ASSERT_TRUE(Lexicon::builtInStatus().ok()) << Lexicon::builtInStatus().error();
    EXPECT_EQ(lexicon().languages(), (std::vector<std::string>{"en", "fr", "de"}));
    EXPECT_GE(lexicon().conceptCount(), 300u);
    std::size_t words = 0;
    for (std::size_t c = 0; c < lexicon().conceptCount(); ++c)
        for (const auto& list : lexicon().conceptAt(c).words) words += list.size();
    std::printf("[ measured ] built-in lexicon: %zu concepts, %zu language words\n", lexicon().conceptCount(), words);
}

TEST(BuiltInLexicon, IsParsedOnceAndSharedByThreads)
{
    const Lexicon* seen[4] = {};
    std::vector<std::thread> threads;
    for (auto& slot : seen) threads.emplace_back([&slot] { slot = &Lexicon::builtIn(); });
    for (std::thread& thread : threads) thread.join();
    for (const Lexicon* address : seen) EXPECT_EQ(address, &Lexicon::builtIn());
}

struct Example {
    std::string sentence;
    const char* language;
};

// The sentences of the built-in example, the cat-and-mat and European Economic Area sentences in
// English, French and German that meaning embeddings are demonstrated with, and the README's.
std::vector<Example> exampleSentences()
{
    std::vector<Example> examples = {
        {builtInExample().sourceText, "en"},
        {builtInExample().targetText, "fr"},
        {"The cat sat on the mat because it was tired.", "en"},
        {"Le chat s'est assis sur le tapis parce qu'il était fatigué.", "fr"},
        {"The black cat sat on the mat.", "en"},
        {"Le chat noir s'est assis sur le tapis.", "fr"},
        {"Die schwarze Katze saß auf der Matte.", "de"},
        {"The black cat sat on the mat because it was tired.", "en"},
        {"Le chat noir s'est assis sur le tapis parce qu'il était fatigué.", "fr"},
        {"Die schwarze Katze saß auf der Matte, weil sie müde war.", "de"},
        {"The dog saw the cat and the cat saw the dog.", "en"},
        {"The agreement on the European Economic Area was signed in August 1992.", "en"},
        {"L'accord sur la zone économique européenne a été signé en août 1992.", "fr"},
        {"Das Abkommen über den Europäischen Wirtschaftsraum wurde im August 1992 unterzeichnet.", "de"},
    };
    // The README's example commands: --source "..." --target "...".
    std::ifstream readme(std::string(qkv::testDataDir()) + "/../../README.md");
    std::stringstream text;
    text << readme.rdbuf();
    const std::string content = text.str();
    // A command that reads a model (a trained session, or a checkpoint's whole model with
    // --layer all or --embeddings model) uses that model's own vocabulary, not the lexicon.
    const std::regex quoted("--(source|target) \"([^\"]*)\"");
    std::istringstream lines(content);
    for (std::string line; std::getline(lines, line);) {
        if (line.find("--session") != std::string::npos || line.find("--layer all") != std::string::npos ||
            line.find("--embeddings model") != std::string::npos)
            continue;
        for (auto it = std::sregex_iterator(line.begin(), line.end(), quoted); it != std::sregex_iterator(); ++it)
            examples.push_back({(*it)[2].str(), (*it)[1].str() == "source" ? "en" : "fr"});
    }
    return examples;
}

TEST(BuiltInLexicon, KnowsEveryWordOfTheExampleSentences)
{
    const std::vector<Example> examples = exampleSentences();
    ASSERT_GT(examples.size(), 14u) << "the README's example commands were not found";
    for (const Example& example : examples) {
        const std::vector<Token> tokens = tokenize(example.sentence);
        const LanguageGuess guess = lexicon().guessLanguage(tokens);
        EXPECT_EQ(guess.language, language(example.language)) << example.sentence;
        const std::vector<TokenMeaning> meanings = lexicon().meanings(tokens, guess);
        for (std::size_t t = 0; t < tokens.size(); ++t) {
            const TokenMeaning& meaning = meanings[t];
            EXPECT_NE(meaning.kind, MeaningKind::Unknown) << "'" << tokens[t].text << "' in: " << example.sentence;
            if (meaning.kind == MeaningKind::Word) {  // a word of the sentence's own language
                EXPECT_EQ(meaning.language, language(example.language))
                    << tokens[t].text << " in: " << example.sentence;
            }
            if (meaning.kind == MeaningKind::Number) {
                EXPECT_EQ(tokens[t].text, "1992");
            }
        }
    }
}

TEST(BuiltInLexicon, TranslationsOfTheExamplesShareTheirConcepts)
{
    // Hand-aligned: the concept every token should have (what a translator would pair up).
    EXPECT_EQ(keysOf("The black cat sat on the mat."),
              (std::vector<std::string>{"the", "black", "cat", "sit", "on", "the", "mat", "."}));
    EXPECT_EQ(keysOf("Le chat noir s'est assis sur le tapis."),
              (std::vector<std::string>{"the", "cat", "black", "be", "sit", "on", "the", "mat", "."}));
    EXPECT_EQ(keysOf("Die schwarze Katze saß auf der Matte, weil sie müde war."),
              (std::vector<std::string>{"the", "black", "cat", "sit", "on", "the", "mat", ",", "because", "it", "tired",
                                        "be", "."}));
    EXPECT_EQ(keysOf("The cat sat on the mat because it was tired."),
              (std::vector<std::string>{"the", "cat", "sit", "on", "the", "mat", "because", "it", "be", "tired", "."}));
    EXPECT_EQ(
        keysOf("Le chat s'est assis sur le tapis parce qu'il était fatigué."),
        (std::vector<std::string>{"the", "cat", "be", "sit", "on", "the", "mat", "because", "it", "be", "tired", "."}));
    EXPECT_EQ(keysOf("The agreement on the European Economic Area was signed in August 1992."),
              (std::vector<std::string>{"the", "agreement", "on", "the", "european", "economic", "area", "be", "sign",
                                        "in", "august", "1992", "."}));
    EXPECT_EQ(keysOf("L'accord sur la zone économique européenne a été signé en août 1992."),
              (std::vector<std::string>{"agreement", "on", "the", "area", "economic", "european", "have", "be", "sign",
                                        "in", "august", "1992", "."}));
    EXPECT_EQ(keysOf("Das Abkommen über den Europäischen Wirtschaftsraum wurde im August 1992 unterzeichnet."),
              (std::vector<std::string>{"the", "agreement", "about", "the", "european", "area", "be", "in", "august",
                                        "1992", "sign", "."}));
}

TEST(BuiltInLexicon, InflectedFormsShareTheirConcept)
{
    const struct {
        const char* tag;
        const char* concept_;
        std::vector<std::string> forms;
    } families[] = {
        {"en", "the", {"the", "The", "THE"}},
        {"fr", "the", {"le", "la", "les", "Le", "LES"}},
        {"de", "the", {"der", "die", "das", "den", "dem", "des", "Die"}},
        {"en", "a", {"a", "an"}},
        {"fr", "a", {"un", "une"}},
        {"de", "a", {"ein", "eine", "einen", "einem", "einer", "eines"}},
        {"en", "cat", {"cat", "cats"}},
        {"fr", "cat", {"chat", "chats", "chatte"}},
        {"de", "cat", {"Katze", "Katzen", "Kater"}},
        {"en", "sit", {"sit", "sits", "sat", "sitting"}},
        {"fr", "sit", {"assis", "assise", "assises", "asseoir"}},
        {"de", "sit", {"sitzen", "sitzt", "saß", "saßen", "gesessen"}},
        {"en", "be", {"be", "am", "is", "are", "was", "were", "been"}},
        {"fr", "be", {"être", "suis", "est", "sont", "était", "été", "sera", "ÉTAIT"}},
        {"de", "be", {"sein", "bin", "ist", "sind", "war", "waren", "gewesen", "wurde"}},
        {"en", "have", {"have", "has", "had"}},
        {"fr", "have", {"avoir", "ai", "a", "avons", "ont", "avait", "eu"}},
        {"de", "have", {"haben", "habe", "hat", "hatte", "gehabt"}},
        {"en", "can", {"can", "could"}},
        {"fr", "can", {"pouvoir", "peux", "peut", "pouvait", "pu"}},
        {"de", "can", {"können", "kann", "konnte", "KÖNNEN"}},
        {"de", "will", {"werden", "wird", "würde"}},
        {"fr", "black", {"noir", "noire", "noirs", "noires"}},
        {"de", "black", {"schwarz", "schwarze", "schwarzen", "schwarzer", "schwarzes", "schwarzem"}},
        {"fr", "tired", {"fatigué", "fatiguée", "fatigués", "fatiguées", "FATIGUÉ"}},
        {"de", "about", {"über", "Über", "ÜBER"}},
        {"de", "apple", {"Apfel", "Äpfel", "ÄPFEL"}},
        {"en", "it", {"it", "he", "him", "she", "her"}},
        {"fr", "it", {"il", "elle", "lui"}},
        {"de", "it", {"er", "sie", "es", "ihn", "ihm"}},
        {"en", "i", {"I", "me", "myself"}},
        {"fr", "i", {"je", "me", "moi"}},
        {"de", "i", {"ich", "mich", "mir"}},
    };
    for (const auto& family : families) {
        ASSERT_GE(lexicon().findConcept(family.concept_), 0) << family.concept_;
        for (const std::string& form : family.forms)
            EXPECT_EQ(conceptOf(form, family.tag), family.concept_) << family.tag << " '" << form << "'";
    }
}

TEST(BuiltInLexicon, ElidedFrenchWordsMeanTheWordAfterTheApostrophe)
{
    const int fr = language("fr");
    const struct {
        const char* token;
        const char* concept_;
        const char* prefixConcept;  // the concept of the elided word itself
    } cases[] = {
        {"l'accord", "agreement", "the"},
        {"L'accord", "agreement", "the"},
        {"qu'il", "it", "that"},
        {"s'est", "be", "it"},
        {"j'ai", "have", "i"},
        {"n'est", "be", "not"},
        {"c'est", "be", "this"},
        {"d'un", "a", "of"},
        {"m'appelle", "call", "i"},
        {"t'aime", "love", "you"},
        {"jusqu'ici", "here", "until"},
        {"l\xE2\x80\x99homme", "man", "the"},
    };
    for (const auto& c : cases) {
        const LexiconMatch match = lexicon().lookup(c.token, fr);
        ASSERT_TRUE(match.found()) << c.token;
        EXPECT_EQ(lexicon().conceptAt(static_cast<std::size_t>(match.conceptIndex)).id, c.concept_) << c.token;
        ASSERT_GE(match.affix.conceptIndex, 0) << c.token;
        EXPECT_EQ(lexicon().conceptAt(static_cast<std::size_t>(match.affix.conceptIndex)).id, c.prefixConcept)
            << c.token;
    }
    // Whole forms listed in the lexicon win over the elision rule.
    EXPECT_EQ(conceptOf("jusqu'à", "fr"), "until");
    EXPECT_EQ(conceptOf("aujourd'hui", "fr"), "today");
    EXPECT_EQ(conceptOf("quelqu'un", "fr"), "someone");
    // "l'" alone is the article: the prefix's full word is le.
    ASSERT_FALSE(lexicon().elisions(fr).empty());
    bool sawL = false;
    for (const LexiconAffix& affix : lexicon().elisions(fr))
        if (affix.text == "l'") {
            sawL = true;
            EXPECT_EQ(affix.conceptIndex, lexicon().findConcept("the"));
        }
    EXPECT_TRUE(sawL);
    // English clitics: the word before carries the meaning; n't forms are listed as "not".
    EXPECT_EQ(conceptOf("it's", "en"), "it");
    EXPECT_EQ(conceptOf("cat's", "en"), "cat");
    EXPECT_EQ(conceptOf("we're", "en"), "we");
    EXPECT_EQ(conceptOf("isn't", "en"), "not");
    EXPECT_EQ(conceptOf("don't", "en"), "not");
}

TEST(BuiltInLexicon, ContractionsMeanTheirPreposition)
{
    EXPECT_EQ(conceptOf("im", "de"), "in");
    EXPECT_EQ(conceptOf("ins", "de"), "in");
    EXPECT_EQ(conceptOf("am", "de"), "at");
    EXPECT_EQ(conceptOf("beim", "de"), "at");
    EXPECT_EQ(conceptOf("zum", "de"), "to");
    EXPECT_EQ(conceptOf("zur", "de"), "to");
    EXPECT_EQ(conceptOf("vom", "de"), "of");
    EXPECT_EQ(conceptOf("au", "fr"), "to");
    EXPECT_EQ(conceptOf("aux", "fr"), "to");
    EXPECT_EQ(conceptOf("du", "fr"), "of");
    EXPECT_EQ(conceptOf("des", "fr"), "of");
}

TEST(BuiltInLexicon, GuessesTheLanguageAndResolvesAmbiguousSpellings)
{
    const auto guessOf = [](const char* sentence) {
        const LanguageGuess guess = lexicon().guessLanguage(tokenize(sentence));
        return lexicon().languages()[static_cast<std::size_t>(guess.language)];
    };
    const auto keyOf = [](const char* sentence, std::size_t token) { return keysOf(sentence).at(token); };

    EXPECT_EQ(guessOf("die Katze"), "de");
    EXPECT_EQ(keyOf("die Katze", 0), "the");
    EXPECT_EQ(guessOf("they die"), "en");
    EXPECT_EQ(keyOf("they die", 1), "die");
    EXPECT_EQ(keyOf("the war was long", 1), "war");     // en: war
    EXPECT_EQ(keyOf("sie war müde", 1), "be");          // de: was
    EXPECT_EQ(keyOf("a cat", 0), "a");                  // en: article
    EXPECT_EQ(keyOf("il a un chat", 1), "have");        // fr: has
    EXPECT_EQ(keyOf("an apple", 0), "a");               // en: article
    EXPECT_EQ(keyOf("il y a un an", 4), "year");        // fr: year
    EXPECT_EQ(keyOf("das Bild an der Wand", 2), "at");  // de: at
    EXPECT_EQ(keyOf("the man in the house", 2), "in");
    EXPECT_EQ(keyOf("der Mann in dem Haus", 2), "in");
    EXPECT_EQ(keyOf("I will go", 1), "will");      // en: future
    EXPECT_EQ(keyOf("er will gehen", 1), "want");  // de: wants
    EXPECT_EQ(keyOf("on the mat", 0), "on");       // en: preposition
    EXPECT_EQ(keyOf("on voit le chat", 0), "we");  // fr: pronoun

    // A word found only in another language keeps that language's concept.
    const std::vector<TokenMeaning> mixed = lexicon().meanings(tokenize("the Katze"));
    EXPECT_EQ(mixed[1].key, "cat");
    EXPECT_EQ(mixed[1].language, language("de"));

    // Ties go to the language declared first (en, fr, de); no hits at all: no evidence.
    const LanguageGuess tie = lexicon().guessLanguage(tokenize("die"));
    EXPECT_EQ(tie.language, language("en"));
    EXPECT_EQ(tie.hits[static_cast<std::size_t>(language("en"))], tie.hits[static_cast<std::size_t>(language("de"))]);
    EXPECT_TRUE(tie.evidence());
    const LanguageGuess none = lexicon().guessLanguage(tokenize("Zorblax 42 !"));
    EXPECT_FALSE(none.evidence());
    EXPECT_EQ(none.language, 0);
}

TEST(BuiltInLexicon, PunctuationNumbersAndUnknownWords)
{
    const std::vector<Token> tokens = tokenize("Le Zorblax, 1992 !");
    const std::vector<TokenMeaning> meanings = lexicon().meanings(tokens);
    ASSERT_EQ(meanings.size(), 5u);
    EXPECT_EQ(meanings[1].kind, MeaningKind::Unknown);
    EXPECT_EQ(meanings[1].key, "zorblax");  // lowerCase(text): what word embeddings hash
    EXPECT_EQ(meanings[1].language, -1);
    EXPECT_EQ(meanings[2].kind, MeaningKind::Neutral);
    EXPECT_EQ(meanings[2].language, language("fr"));  // punctuation takes the sentence's language
    EXPECT_EQ(meanings[3].kind, MeaningKind::Number);
    EXPECT_EQ(meanings[3].key, "1992");
    EXPECT_EQ(meanings[4].key, "!");
    // Listed digits are concepts: "2" means two, like deux and zwei.
    EXPECT_EQ(keysOf("2 deux zwei two"), (std::vector<std::string>{"two", "two", "two", "two"}));
    // describe() says it in words.
    EXPECT_EQ(lexicon().describe(meanings[0]), "the (fr: le)");
    EXPECT_EQ(lexicon().describe(lexicon().meanings(tokenize("qu'il"))[0]), "it (fr: qu' + il; qu' = que)");
    EXPECT_NE(lexicon().describe(meanings[1]).find("not in the lexicon"), std::string::npos);
}

TEST(BuiltInLexicon, ConceptIdsNeverLookLikeUnknownWords)
{
    // Each id is one of its own words, so a token spelled like an id is always found (perhaps
    // as another language's word), never unknown: concept keys and unknown-word keys (their
    // lower-cased text) cannot collide.
    for (std::size_t c = 0; c < lexicon().conceptCount(); ++c) {
        const std::string& id = lexicon().conceptAt(c).id;
        const std::vector<TokenMeaning> meanings = lexicon().meanings({Token{id, 0, id.size()}});
        ASSERT_EQ(meanings.size(), 1u);
        EXPECT_GE(meanings[0].conceptIndex, 0) << id;
    }
}

}  // namespace
}  // namespace qkv
