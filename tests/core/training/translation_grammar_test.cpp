// The translation grammar: real French and German word order and agreement, every word a word of
// the built-in lexicon, and gold alignments that pair words of one lexicon concept.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/embedding/lexicon.hpp"
#include "core/training/tasks.hpp"
#include "core/training/translation_grammar.hpp"

namespace qkv {
namespace {

std::string joined(const std::vector<std::string>& words)
{
    std::string text;
    for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
    return text;
}

std::string translated(const char* english, TargetLanguage language)
{
    const Expected<TranslationPair> pair = translateEnglish(english, language);
    return pair.ok() ? joined(pair->target) : "error: " + pair.error();
}

TEST(TranslationGrammar, FrenchAdjectivesFollowTheNounExceptTheFewThatPrecede)
{
    EXPECT_EQ(translated("the black cat sees a small dog", TargetLanguage::French), "le chat noir voit un petit chien");
    EXPECT_EQ(translated("a white mouse finds the red ball", TargetLanguage::French),
              "une souris blanche trouve la balle rouge");
    EXPECT_EQ(translated("the old queen has bought a new car", TargetLanguage::French),
              "la vieille reine a acheté une nouvelle voiture");
    EXPECT_EQ(translated("a beautiful girl sleeps", TargetLanguage::French), "une belle fille dort");
}

TEST(TranslationGrammar, GermanArticlesAndAdjectivesFollowGenderAndCase)
{
    EXPECT_EQ(translated("the black cat sees a small dog", TargetLanguage::German),
              "die schwarze katze sieht einen kleinen hund");
    EXPECT_EQ(translated("a black dog sees the small cat", TargetLanguage::German),
              "ein schwarzer hund sieht die kleine katze");
    EXPECT_EQ(translated("the old horse finds a red ball", TargetLanguage::German),
              "das alte pferd findet einen roten ball");
    EXPECT_EQ(translated("a young girl loves the good dog", TargetLanguage::German),
              "ein junges mädchen liebt den guten hund");
    EXPECT_EQ(translated("the king meets a boy", TargetLanguage::German), "der könig trifft einen knaben");
}

TEST(TranslationGrammar, TheGermanPerfectPutsTheParticipleLastSoAlignmentsCross)
{
    const Expected<TranslationPair> pair = translateEnglish("the cat has seen the dog", TargetLanguage::German);
    ASSERT_TRUE(pair.ok()) << pair.error();
    EXPECT_EQ(joined(pair->target), "die katze hat den hund gesehen");
    EXPECT_EQ(pair->alignment, (std::vector<std::int32_t>{0, 1, 2, 4, 5, 3}));
    EXPECT_EQ(translated("the cat has seen the dog", TargetLanguage::French), "le chat a vu le chien");
    EXPECT_EQ(translated("the woman has slept", TargetLanguage::German), "die frau hat geschlafen");
}

TEST(TranslationGrammar, ReadsOnlyItsOwnSentences)
{
    EXPECT_EQ(translated("the cat", TargetLanguage::French),
              "error: not a sentence of the translation grammar: expected a verb at word 3 (the sentence ended)");
    EXPECT_EQ(translated("the zebra sleeps", TargetLanguage::French),
              "error: not a sentence of the translation grammar: expected a noun at word 2 ('zebra')");
    EXPECT_NE(translated("a apple sleeps", TargetLanguage::French).find("does not fit"), std::string::npos);
    EXPECT_EQ(translated("an apple sleeps", TargetLanguage::French), "une pomme dort");
}

// The concept a word has in a language of the built-in lexicon; -1 when it is not a word of it.
int conceptOf(const std::string& word, const char* language)
{
    const Lexicon& lexicon = Lexicon::builtIn();
    const LexiconMatch match = lexicon.lookup(word, lexicon.languageIndex(language));
    // Only whole words count: an elided or clitic form would be a word the lexicon reads differently.
    return match.affix.text.empty() && match.form == normaliseLexiconWord(word) ? match.conceptIndex : -1;
}

TEST(TranslationGrammar, EveryWordIsALexiconWordOfItsLanguage)
{
    ASSERT_TRUE(Lexicon::builtInStatus().ok()) << Lexicon::builtInStatus().error();
    for (TargetLanguage language : {TargetLanguage::French, TargetLanguage::German}) {
        const char* tag = language == TargetLanguage::French ? "fr" : "de";
        const std::vector<std::string> words = translationWords(language);
        bool inTarget = false;
        for (const std::string& word : words) {
            // The list is English first; "le"/"der" start the target language's words.
            inTarget = inTarget || word == "le" || word == "der";
            EXPECT_GE(conceptOf(word, inTarget ? tag : "en"), 0) << "'" << word << "' (" << (inTarget ? tag : "en") << ")";
        }
        EXPECT_TRUE(inTarget);
    }
}

TEST(TranslationGrammar, GoldAlignmentsPairWordsOfOneLexiconConcept)
{
    for (TargetLanguage language : {TargetLanguage::French, TargetLanguage::German}) {
        const char* tag = language == TargetLanguage::French ? "fr" : "de";
        SplitMix64 random(42);
        int crossing = 0;
        for (int i = 0; i < 3000; ++i) {
            const TranslationPair pair = randomTranslation(language, random);
            ASSERT_EQ(pair.alignment.size(), pair.target.size());
            ASSERT_LE(pair.source.size(), static_cast<std::size_t>(translationMaxWords));
            ASSERT_LE(pair.target.size(), static_cast<std::size_t>(translationMaxWords));
            for (std::size_t t = 0; t < pair.target.size(); ++t) {
                const std::int32_t s = pair.alignment[t];
                ASSERT_TRUE(s >= 0 && s < static_cast<std::int32_t>(pair.source.size()));
                const std::string& source = pair.source[static_cast<std::size_t>(s)];
                const int target = conceptOf(pair.target[t], tag);
                EXPECT_GE(target, 0) << pair.target[t];
                EXPECT_EQ(target, conceptOf(source, "en")) << joined(pair.source) << " -> " << joined(pair.target)
                                                           << ": '" << pair.target[t] << "' <- '" << source << "'";
                if (t > 0 && pair.alignment[t - 1] > s) ++crossing;
            }
            // Each source word is translated exactly once.
            std::vector<int> uses(pair.source.size(), 0);
            for (std::int32_t s : pair.alignment) ++uses[static_cast<std::size_t>(s)];
            for (int use : uses) EXPECT_EQ(use, 1) << joined(pair.source) << " -> " << joined(pair.target);
        }
        EXPECT_GT(crossing, 300) << tag << ": adjectives (French) and participles (German) cross";
    }
}

TEST(TranslateTask, BuildsItsVocabularyAndExamplesFromTheGrammar)
{
    TaskSettings settings;
    settings.kind = TaskKind::Translate;
    settings.language = TargetLanguage::German;
    const Expected<TaskData> data = TaskData::create(settings);
    ASSERT_TRUE(data.ok()) << data.error();
    EXPECT_EQ(data->vocabulary().size(), 3 + static_cast<std::int32_t>(translationWords(TargetLanguage::German).size()));
    EXPECT_EQ(data->maxSequenceLength(), translationMaxWords + 1);
    for (std::uint64_t i = 0; i < 50; ++i) {
        const TaskExample example = data->trainingExample(i);
        const std::size_t n = example.ids.targetOutput.size() - 1;
        EXPECT_EQ(example.ids.targetOutput[n], Vocabulary::eos);
        EXPECT_EQ(example.alignment[n], -1);
        for (std::size_t t = 0; t < n; ++t) EXPECT_GE(example.alignment[t], 0);
    }
}

}  // namespace
}  // namespace qkv
