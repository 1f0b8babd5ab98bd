// Lexicon::parse: the format, every refusal with its line, and a seeded mutation fuzz.
#include <cstdint>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "core/common/random.hpp"
#include "core/embedding/lexicon.hpp"

namespace qkv {
namespace {

constexpr const char* header = "@languages: en, fr, de\n";

Expected<Lexicon> parse(const std::string& text) { return Lexicon::parse(text, "test.txt"); }

TEST(LexiconParser, ReadsConceptsLanguagesQuotesAndComments)
{
    const std::string text = std::string("# a comment line\n") + header +
                             "@elision fr: l' = le, qu' = que\n"
                             "@clitics en: 's, 're = are\n"
                             "\n"
                             "the | en: the | fr: le, la, les | de: der, die, das   # trailing comment\n"
                             "cat | en: cat, cats | fr: chat, chats | de: Katze, Katzen\n"
                             "are | en: are, is\n"
                             "que | fr: que\n"
                             "\",\" | *: \",\", \"|\", \"#\"\n"
                             "« | *: «, \"\"\"\"\n"
                             "mai | fr: mai | de: Mai | en:\n";
    const Expected<Lexicon> parsed = parse(text);
    ASSERT_TRUE(parsed.ok()) << parsed.error();
    const Lexicon& lexicon = *parsed;
    EXPECT_EQ(lexicon.conceptCount(), 7u);
    ASSERT_EQ(lexicon.languages(), (std::vector<std::string>{"en", "fr", "de"}));
    const int en = 0, fr = 1, de = 2;
    const int cat = lexicon.findConcept("cat");
    ASSERT_GE(cat, 0);
    EXPECT_EQ(lexicon.lookup("Katzen", de).conceptIndex, cat);       // case-insensitive
    EXPECT_EQ(lexicon.lookup("chats", fr).conceptIndex, cat);
    EXPECT_FALSE(lexicon.lookup("chats", en).found());                // French words only in French
    EXPECT_EQ(lexicon.lookup("die", de).conceptIndex, lexicon.findConcept("the"));  // comment stripped
    EXPECT_EQ(lexicon.lookupNeutral(",").conceptIndex, lexicon.findConcept(","));
    EXPECT_EQ(lexicon.lookupNeutral("|").conceptIndex, lexicon.findConcept(","));
    EXPECT_EQ(lexicon.lookupNeutral("#").conceptIndex, lexicon.findConcept(","));
    EXPECT_EQ(lexicon.lookupNeutral("\"").conceptIndex, lexicon.findConcept("«"));  // "" is one quote
    EXPECT_EQ(lexicon.conceptAt(static_cast<std::size_t>(cat)).line, 7u);

    // Elision: the word after the prefix carries the meaning; the prefix's full word is known.
    const LexiconMatch elided = lexicon.lookup("l'chat", fr);
    EXPECT_EQ(elided.conceptIndex, cat);
    EXPECT_EQ(elided.form, "chat");
    EXPECT_EQ(elided.affix.text, "l'");
    EXPECT_EQ(elided.affix.conceptIndex, lexicon.findConcept("the"));
    EXPECT_EQ(lexicon.lookup("l\xE2\x80\x99" "chat", fr).conceptIndex, cat);  // typographic apostrophe
    EXPECT_FALSE(lexicon.lookup("l'chat", en).found());                        // French rule only
    // Clitics: the word before the suffix carries the meaning.
    EXPECT_EQ(lexicon.lookup("cat's", en).conceptIndex, cat);
    EXPECT_EQ(lexicon.lookup("cat're", en).affix.conceptIndex, lexicon.findConcept("are"));
    EXPECT_FALSE(lexicon.lookup("'s", en).found());  // nothing before the clitic
}

TEST(LexiconParser, AcceptsCrLfAByteOrderMarkAndTheSameSpellingInTwoLanguages)
{
    const std::string text = "\xEF\xBB\xBF@languages: en, de\r\n"
                             "die | en: die, died\r\n"
                             "the | en: the | de: die, der\r\n";
    const Expected<Lexicon> parsed = parse(text);
    ASSERT_TRUE(parsed.ok()) << parsed.error();
    EXPECT_EQ(parsed->lookup("die", 0).conceptIndex, parsed->findConcept("die"));
    EXPECT_EQ(parsed->lookup("die", 1).conceptIndex, parsed->findConcept("the"));
}

struct BadLexicon {
    const char* what;
    std::string text;
    std::vector<std::string> expected;  // substrings of the message
};

TEST(LexiconParser, RefusesBadTextNamingTheSourceAndTheLine)
{
    const std::string h = header;
    const std::vector<BadLexicon> cases = {
        {"duplicate id", h + "cat | en: cat\ncat | fr: chat\n", {"line 3", "'cat' is already defined on line 2"}},
        {"no '|'", h + "en: cat, cats\n", {"line 2", "no '|' on this line"}},
        {"no id", h + " | en: cat\n", {"line 2", "no concept id"}},
        {"unknown tag", h + "cat | en: cat | es: gato\n", {"line 2", "unknown language tag 'es'", "en, fr, de"}},
        {"word in two concepts", h + "cat | en: cat\nkitten | en: kitten, cat\n",
         {"line 3", "en word 'cat' already belongs to concept 'cat' (line 2)"}},
        {"* word also in a language", h + ". | *: .\nstop | en: stop, .\n", {"line 3", "'.'", "concept '.'"}},
        {"language word also under *", h + "stop | en: stop\n. | *: ., stop\n", {"line 3", "'stop'"}},
        {"over-long line", h + "cat | en: cat, " + std::string(5000, 'x') + "\n", {"line 2", "5015 bytes long", "4096"}},
        {"id not a word", h + "feline | en: cat\n", {"line 2", "'feline' is not one of its words"}},
        {"two tokens", h + "of | fr: de la\n", {"line 2", "'de la' is 2 tokens", "'de', 'la'"}},
        {"punctuation inside a word", h + "cat | en: cat!\n", {"line 2", "'cat!' is 2 tokens"}},
        {"invalid UTF-8", h + "cat | en: c\xC3t\n", {"line 2", "not valid UTF-8"}},
        {"control character", h + "cat | en: c\x01t\n", {"line 2", "control character"}},
        {"concept first", "cat | en: cat\n" + h, {"line 1", "before the '@languages"}},
        {"no languages", "# nothing\n", {"test.txt:", "no '@languages"}},
        {"languages twice", h + h, {"line 2", "twice"}},
        {"bad tag name", "@languages: en, FR\n", {"line 1", "'FR' is not a language tag"}},
        {"unterminated quote", h + "\",\" | *: \",\n", {"line 2", "not closed"}},
        {"text after quote", h + "x | *: \",\"x\n", {"line 2", "after a closing quote"}},
        {"empty word", h + "cat | en: cat,, cats\n", {"line 2", "empty word"}},
        {"trailing comma", h + "cat | en: cat,\n", {"line 2", "empty word"}},
        {"empty field", h + "cat | en: cat | | fr: chat\n", {"line 2", "empty field"}},
        {"missing tag", h + "cat | cat, cats\n", {"line 2", "no language tag"}},
        {"tag twice", h + "cat | en: cat | en: cats\n", {"line 2", "'en:' appears twice"}},
        {"unknown directive", h + "@synonyms en: a = b\n", {"line 2", "unknown directive '@synonyms'"}},
        {"bad elision", h + "@elision fr: l\n", {"line 2", "elided prefix"}},
        {"bad clitic", h + "@clitics en: s'\n", {"line 2", "clitic suffix"}},
        {"elision of an unknown word", h + "@elision fr: l' = le\nchat | fr: chat\n", {"line 2", "no concept lists 'le' under fr"}},
        {"elision for an unknown language", h + "@elision it: l' = lo\n", {"line 2", "unknown language tag 'it'"}},
    };
    for (const BadLexicon& bad : cases) {
        const Expected<Lexicon> parsed = parse(bad.text);
        ASSERT_FALSE(parsed.ok()) << bad.what;
        EXPECT_EQ(parsed.error().rfind("test.txt", 0), 0u) << bad.what << ": " << parsed.error();
        for (const std::string& part : bad.expected)
            EXPECT_NE(parsed.error().find(part), std::string::npos)
                << bad.what << ": expected '" << part << "' in: " << parsed.error();
    }
}

TEST(LexiconParser, RefusesAHugeTextWithoutReadingIt)
{
    const std::string huge(maxLexiconBytes + 1, 'a');
    const Expected<Lexicon> parsed = parse(huge);
    ASSERT_FALSE(parsed.ok());
    EXPECT_NE(parsed.error().find("the limit is"), std::string::npos) << parsed.error();
    // Just under the size limit, one giant line: refused at line 1, not tokenized.
    const Expected<Lexicon> longLine = parse(std::string(maxLexiconBytes - 1, 'a'));
    ASSERT_FALSE(longLine.ok());
    EXPECT_NE(longLine.error().find("line 1:"), std::string::npos) << longLine.error();
}

// Random byte edits of the built-in text: every mutant parses or is refused with a message;
// nothing crashes, hangs or throws, and a mutant that parses still answers lookups.
TEST(LexiconParser, SeededMutationsOfTheBuiltInTextNeverCrash)
{
    const std::string original(Lexicon::builtInText());
    ASSERT_FALSE(original.empty());
    const std::vector<Token> sentence = tokenize("Le chat noir s'est assis sur le tapis, weil sie müde war.");
    SplitMix64 random(20240607);
    const auto below = [&](std::size_t n) { return static_cast<std::size_t>(random.next() % (n == 0 ? 1 : n)); };
    // Bytes that matter to the format, plus arbitrary ones.
    const std::string interesting = "|,:#\"'@*\n\r\t \xC3\xA9\xE2\x80\x99\x80\xFF";
    std::size_t accepted = 0, refused = 0;
    constexpr int iterations = 1500;
    for (int iteration = 0; iteration < iterations; ++iteration) {
        std::string text = original;
        const std::size_t edits = 1 + below(6);
        for (std::size_t e = 0; e < edits && !text.empty(); ++e) {
            const std::size_t at = below(text.size());
            const char byte = random.next() % 2 == 0 ? interesting[below(interesting.size())]
                                                     : static_cast<char>(random.next() & 0xFF);
            switch (below(5)) {
            case 0: text[at] = byte; break;
            case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), byte); break;
            case 2: text.erase(at, 1 + below(8)); break;
            case 3: text.insert(at, text.substr(below(text.size()), below(200))); break;  // duplicate a run
            default: text.resize(at); break;                                           // truncate
            }
        }
        const Expected<Lexicon> parsed = Lexicon::parse(text, "mutant.txt");
        if (parsed.ok()) {
            ++accepted;
            for (const TokenMeaning& meaning : parsed->meanings(sentence)) EXPECT_FALSE(meaning.key.empty());
        } else {
            ++refused;
            EXPECT_EQ(parsed.error().rfind("mutant.txt", 0), 0u) << parsed.error();
        }
    }
    std::printf("[ measured ] %d mutants of the built-in lexicon: %zu parsed, %zu refused with a message\n",
                iterations, accepted, refused);
    EXPECT_EQ(accepted + refused, static_cast<std::size_t>(iterations));
    EXPECT_GT(refused, 0u);  // the mutations do reach the error paths
}

}  // namespace
}  // namespace qkv
