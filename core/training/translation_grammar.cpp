#include "core/training/translation_grammar.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string_view>

#include "core/training/sequence_tasks.hpp"
#include "core/training/words.hpp"

namespace qkv {

namespace {

enum class Gender { Masculine, Feminine, Neuter };
// What a noun names, so that verbs take sensible objects ("eats the bread", "meets the king").
enum NounKind : unsigned { Animate = 1u, Thing = 2u, Food = 4u, AnyKind = 7u };

struct Noun {
    std::string_view english;
    std::string_view french;
    Gender frenchGender;
    std::string_view german;            // nominative singular
    std::string_view germanAccusative;  // differs for weak nouns only
    Gender germanGender;
    unsigned kind;
};

constexpr auto M = Gender::Masculine;
constexpr auto F = Gender::Feminine;
constexpr auto N = Gender::Neuter;

constexpr std::array<Noun, 38> nouns{{
    {"cat", "chat", M, "katze", "katze", F, Animate},
    {"dog", "chien", M, "hund", "hund", M, Animate},
    {"mouse", "souris", F, "maus", "maus", F, Animate},
    {"horse", "cheval", M, "pferd", "pferd", N, Animate},
    {"fish", "poisson", M, "fisch", "fisch", M, Animate},
    {"woman", "femme", F, "frau", "frau", F, Animate},
    {"girl", "fille", F, "mädchen", "mädchen", N, Animate},
    {"boy", "garçon", M, "knabe", "knaben", M, Animate},
    {"king", "roi", M, "könig", "könig", M, Animate},
    {"queen", "reine", F, "königin", "königin", F, Animate},
    {"mother", "mère", F, "mutter", "mutter", F, Animate},
    {"father", "père", M, "vater", "vater", M, Animate},
    {"brother", "frère", M, "bruder", "bruder", M, Animate},
    {"sister", "sœur", F, "schwester", "schwester", F, Animate},
    {"teacher", "professeur", M, "lehrer", "lehrer", M, Animate},
    {"doctor", "médecin", M, "arzt", "arzt", M, Animate},
    {"house", "maison", F, "haus", "haus", N, Thing},
    {"table", "table", F, "tisch", "tisch", M, Thing},
    {"chair", "chaise", F, "stuhl", "stuhl", M, Thing},
    {"bed", "lit", M, "bett", "bett", N, Thing},
    {"door", "porte", F, "tür", "tür", F, Thing},
    {"window", "fenêtre", F, "fenster", "fenster", N, Thing},
    {"book", "livre", M, "buch", "buch", N, Thing},
    {"letter", "lettre", F, "brief", "brief", M, Thing},
    {"ball", "balle", F, "ball", "ball", M, Thing},
    {"car", "voiture", F, "auto", "auto", N, Thing},
    {"boat", "bateau", M, "boot", "boot", N, Thing},
    {"flower", "fleur", F, "blume", "blume", F, Thing},
    {"garden", "jardin", M, "garten", "garten", M, Thing},
    {"bag", "sac", M, "tasche", "tasche", F, Thing},
    {"key", "clé", F, "schlüssel", "schlüssel", M, Thing},
    {"glass", "verre", M, "glas", "glas", N, Thing},
    {"shoe", "chaussure", F, "schuh", "schuh", M, Thing},
    {"box", "boîte", F, "kiste", "kiste", F, Thing},
    {"phone", "téléphone", M, "telefon", "telefon", N, Thing},
    {"bread", "pain", M, "brot", "brot", N, Food},
    {"cheese", "fromage", M, "käse", "käse", M, Food},
    {"apple", "pomme", F, "apfel", "apfel", M, Food},
}};

struct Adjective {
    std::string_view english;
    std::string_view frenchMasculine, frenchFeminine;
    bool frenchBeforeNoun;
    std::string_view germanStem;  // + e, en, er, es
};

constexpr std::array<Adjective, 17> adjectives{{
    {"black", "noir", "noire", false, "schwarz"},
    {"white", "blanc", "blanche", false, "weiß"},
    {"red", "rouge", "rouge", false, "rot"},
    {"blue", "bleu", "bleue", false, "blau"},
    {"green", "vert", "verte", false, "grün"},
    {"yellow", "jaune", "jaune", false, "gelb"},
    {"tired", "fatigué", "fatiguée", false, "müd"},
    {"cold", "froid", "froide", false, "kalt"},
    {"big", "grand", "grande", true, "groß"},
    {"small", "petit", "petite", true, "klein"},
    {"good", "bon", "bonne", true, "gut"},
    {"bad", "mauvais", "mauvaise", true, "schlecht"},
    {"old", "vieux", "vieille", true, "alt"},
    {"young", "jeune", "jeune", true, "jung"},
    {"new", "nouveau", "nouvelle", true, "neu"},
    {"beautiful", "beau", "belle", true, "schön"},
    {"long", "long", "longue", true, "lang"},
}};

struct Verb {
    std::string_view english, englishParticiple;
    std::string_view french, frenchParticiple;  // present (il/elle), participle after "a"
    std::string_view german, germanParticiple;  // present (er/sie/es), participle after "hat"
    unsigned objects;                           // NounKind mask; 0: intransitive
};

constexpr std::array<Verb, 24> verbs{{
    {"sees", "seen", "voit", "vu", "sieht", "gesehen", AnyKind},
    {"finds", "found", "trouve", "trouvé", "findet", "gefunden", AnyKind},
    {"loves", "loved", "aime", "aimé", "liebt", "geliebt", AnyKind},
    {"draws", "drawn", "dessine", "dessiné", "zeichnet", "gezeichnet", AnyKind},
    {"chases", "chased", "chasse", "chassé", "jagt", "gejagt", Animate},
    {"catches", "caught", "attrape", "attrapé", "fängt", "gefangen", Animate | Thing},
    {"hears", "heard", "entend", "entendu", "hört", "gehört", Animate},
    {"meets", "met", "rencontre", "rencontré", "trifft", "getroffen", Animate},
    {"calls", "called", "appelle", "appelé", "ruft", "gerufen", Animate},
    {"buys", "bought", "achète", "acheté", "kauft", "gekauft", Thing | Food},
    {"sells", "sold", "vend", "vendu", "verkauft", "verkauft", Thing | Food},
    {"keeps", "kept", "garde", "gardé", "behält", "behalten", Thing | Food},
    {"takes", "taken", "prend", "pris", "nimmt", "genommen", Thing | Food},
    {"brings", "brought", "apporte", "apporté", "bringt", "gebracht", Thing | Food},
    {"shows", "shown", "montre", "montré", "zeigt", "gezeigt", Thing},
    {"opens", "opened", "ouvre", "ouvert", "öffnet", "geöffnet", Thing},
    {"eats", "eaten", "mange", "mangé", "isst", "gegessen", Food},
    {"sleeps", "slept", "dort", "dormi", "schläft", "geschlafen", 0},
    {"laughs", "laughed", "rit", "ri", "lacht", "gelacht", 0},
    {"cries", "cried", "pleure", "pleuré", "weint", "geweint", 0},
    {"sings", "sung", "chante", "chanté", "singt", "gesungen", 0},
    {"works", "worked", "travaille", "travaillé", "arbeitet", "gearbeitet", 0},
    {"plays", "played", "joue", "joué", "spielt", "gespielt", 0},
    {"eats", "eaten", "mange", "mangé", "isst", "gegessen", 0},
}};

struct NounPhrase {
    bool definite = true;
    int adjective = -1;  // index into adjectives, -1 for none
    std::size_t noun = 0;
};
struct Clause {
    NounPhrase subject;
    std::size_t verb = 0;
    bool perfect = false;  // "has seen" rather than "sees"
    NounPhrase object;     // transitive verbs only
};

// Where the words of a noun phrase stand in the English sentence.
struct PhrasePositions {
    std::int32_t article = -1, adjective = -1, noun = -1;
};
struct ClausePositions {
    PhrasePositions subject, object;
    std::int32_t auxiliary = -1, verb = -1;
};

// A sentence being written, each word with the English position it translates.
struct Words {
    std::vector<std::string> words;
    std::vector<std::int32_t> from;
    std::int32_t add(std::string_view word, std::int32_t source)
    {
        words.emplace_back(word);
        from.push_back(source);
        return static_cast<std::int32_t>(words.size()) - 1;
    }
};

bool transitive(const Verb& verb) { return verb.objects != 0; }

std::size_t randomNoun(SplitMix64& random, unsigned kinds, std::size_t except)
{
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < nouns.size(); ++i)
        if ((nouns[i].kind & kinds) != 0 && i != except) candidates.push_back(i);
    return candidates[static_cast<std::size_t>(uniformInteger(random, 0, static_cast<Index>(candidates.size()) - 1))];
}

NounPhrase randomPhrase(SplitMix64& random, unsigned kinds, std::size_t except)
{
    NounPhrase phrase;
    phrase.definite = random.uniform01() < 0.5;
    if (random.uniform01() < 0.5)
        phrase.adjective = static_cast<int>(uniformInteger(random, 0, static_cast<Index>(adjectives.size()) - 1));
    phrase.noun = randomNoun(random, kinds, except);
    return phrase;
}

Clause randomClause(SplitMix64& random)
{
    Clause clause;
    clause.verb = static_cast<std::size_t>(uniformInteger(random, 0, static_cast<Index>(verbs.size()) - 1));
    clause.perfect = random.uniform01() < 0.5;
    clause.subject = randomPhrase(random, Animate, nouns.size());
    if (transitive(verbs[clause.verb]))
        clause.object = randomPhrase(random, verbs[clause.verb].objects, clause.subject.noun);
    return clause;
}

// ---------------------------------------------------------------- English

PhrasePositions writeEnglish(const NounPhrase& phrase, Words& out)
{
    const std::string_view noun = nouns[phrase.noun].english;
    const std::string_view next = phrase.adjective >= 0 ? adjectives[static_cast<std::size_t>(phrase.adjective)].english
                                                        : noun;
    const bool vowel = next.find_first_of("aeiou") == 0;
    PhrasePositions at;
    at.article = out.add(phrase.definite ? "the" : vowel ? "an" : "a", -1);
    if (phrase.adjective >= 0) at.adjective = out.add(adjectives[static_cast<std::size_t>(phrase.adjective)].english, -1);
    at.noun = out.add(noun, -1);
    return at;
}

ClausePositions writeEnglish(const Clause& clause, Words& out)
{
    const Verb& verb = verbs[clause.verb];
    ClausePositions at;
    at.subject = writeEnglish(clause.subject, out);
    if (clause.perfect) at.auxiliary = out.add("has", -1);
    at.verb = out.add(clause.perfect ? verb.englishParticiple : verb.english, -1);
    if (transitive(verb)) at.object = writeEnglish(clause.object, out);
    return at;
}

// ---------------------------------------------------------------- French

void writeFrench(const NounPhrase& phrase, const PhrasePositions& at, Words& out)
{
    const Noun& noun = nouns[phrase.noun];
    const bool feminine = noun.frenchGender == Gender::Feminine;
    out.add(phrase.definite ? (feminine ? "la" : "le") : (feminine ? "une" : "un"), at.article);
    if (phrase.adjective < 0) {
        out.add(noun.french, at.noun);
        return;
    }
    const Adjective& adjective = adjectives[static_cast<std::size_t>(phrase.adjective)];
    const std::string_view form = feminine ? adjective.frenchFeminine : adjective.frenchMasculine;
    if (adjective.frenchBeforeNoun) out.add(form, at.adjective);
    out.add(noun.french, at.noun);
    if (!adjective.frenchBeforeNoun) out.add(form, at.adjective);
}

void writeFrench(const Clause& clause, const ClausePositions& at, Words& out)
{
    const Verb& verb = verbs[clause.verb];
    writeFrench(clause.subject, at.subject, out);
    if (clause.perfect) out.add("a", at.auxiliary);  // passé composé with avoir
    out.add(clause.perfect ? verb.frenchParticiple : verb.french, at.verb);
    if (transitive(verb)) writeFrench(clause.object, at.object, out);
}

// ---------------------------------------------------------------- German

void writeGerman(const NounPhrase& phrase, bool accusative, const PhrasePositions& at, Words& out)
{
    const Noun& noun = nouns[phrase.noun];
    const auto gender = static_cast<std::size_t>(noun.germanGender);
    // [accusative][gender]: masculine, feminine, neuter.
    static constexpr std::string_view definiteArticle[2][3] = {{"der", "die", "das"}, {"den", "die", "das"}};
    static constexpr std::string_view indefiniteArticle[2][3] = {{"ein", "eine", "ein"}, {"einen", "eine", "ein"}};
    // Adjective endings after a definite article (weak) and an indefinite one (mixed).
    static constexpr std::string_view weakEnding[2][3] = {{"e", "e", "e"}, {"en", "e", "e"}};
    static constexpr std::string_view mixedEnding[2][3] = {{"er", "e", "es"}, {"en", "e", "es"}};
    const std::size_t grammaticalCase = accusative ? 1 : 0;
    out.add(phrase.definite ? definiteArticle[grammaticalCase][gender] : indefiniteArticle[grammaticalCase][gender],
            at.article);
    if (phrase.adjective >= 0) {
        const std::string_view ending =
            phrase.definite ? weakEnding[grammaticalCase][gender] : mixedEnding[grammaticalCase][gender];
        out.add(std::string(adjectives[static_cast<std::size_t>(phrase.adjective)].germanStem) + std::string(ending),
                at.adjective);
    }
    out.add(accusative ? noun.germanAccusative : noun.german, at.noun);
}

void writeGerman(const Clause& clause, const ClausePositions& at, Words& out)
{
    const Verb& verb = verbs[clause.verb];
    writeGerman(clause.subject, false, at.subject, out);
    if (clause.perfect) {
        // Perfekt: the auxiliary second, the participle at the end of the clause.
        out.add("hat", at.auxiliary);
        if (transitive(verb)) writeGerman(clause.object, true, at.object, out);
        out.add(verb.germanParticiple, at.verb);
        return;
    }
    out.add(verb.german, at.verb);
    if (transitive(verb)) writeGerman(clause.object, true, at.object, out);
}

// ---------------------------------------------------------------- reading English back

// Reads the grammar's English: article, optional adjective, noun; "has" and a participle or a
// present form; an object for transitive verbs.
class EnglishReader {
public:
    explicit EnglishReader(std::vector<std::string> words) : words_(std::move(words)) {}

    Expected<Clause> clause()
    {
        Clause clause;
        if (Status read = phrase(clause.subject); !read) return Error{read.error()};
        clause.perfect = accept("has");
        const bool hasObject = at_ + 1 < words_.size();
        for (std::size_t v = 0; v < verbs.size(); ++v)
            if (at_ < words_.size() && transitive(verbs[v]) == hasObject &&
                words_[at_] == (clause.perfect ? verbs[v].englishParticiple : verbs[v].english))
                clause.verb = v + 1;  // one past, so that 0 means none found
        if (clause.verb == 0) return Error{unexpected("a verb")};
        --clause.verb;
        ++at_;
        if (hasObject)
            if (Status read = phrase(clause.object); !read) return Error{read.error()};
        if (at_ != words_.size()) return Error{unexpected("the end of the sentence")};
        return clause;
    }

private:
    bool accept(std::string_view word)
    {
        if (at_ >= words_.size() || words_[at_] != word) return false;
        ++at_;
        return true;
    }
    template <class Table, class Field>
    int indexIn(const Table& table, Field field)
    {
        for (std::size_t i = 0; at_ < words_.size() && i < table.size(); ++i)
            if (table[i].*field == words_[at_]) return ++at_, static_cast<int>(i);
        return -1;
    }
    Status phrase(NounPhrase& phrase)
    {
        phrase.definite = accept("the");
        if (!phrase.definite && !accept("a") && !accept("an")) return Error{unexpected("an article")};
        phrase.adjective = indexIn(adjectives, &Adjective::english);
        const int noun = indexIn(nouns, &Noun::english);
        if (noun < 0) return Error{unexpected("a noun")};
        phrase.noun = static_cast<std::size_t>(noun);
        return {};
    }
    std::string unexpected(std::string_view expected) const
    {
        return "not a sentence of the translation grammar: expected " + std::string(expected) + " at word " +
               std::to_string(at_ + 1) + (at_ < words_.size() ? " ('" + words_[at_] + "')" : " (the sentence ended)");
    }

    std::vector<std::string> words_;
    std::size_t at_ = 0;
};

TranslationPair translate(const Clause& clause, TargetLanguage language)
{
    Words english, target;
    const ClausePositions at = writeEnglish(clause, english);
    if (language == TargetLanguage::French)
        writeFrench(clause, at, target);
    else
        writeGerman(clause, at, target);
    return TranslationPair{std::move(english.words), std::move(target.words), std::move(target.from)};
}

void addAll(std::vector<std::string>& words, std::initializer_list<std::string_view> list)
{
    for (std::string_view word : list) words.emplace_back(word);
}

}  // namespace

TranslationPair randomTranslation(TargetLanguage language, SplitMix64& random)
{
    return translate(randomClause(random), language);
}

Expected<TranslationPair> translateEnglish(std::string_view sentence, TargetLanguage language)
{
    const std::vector<std::string_view> views = splitWords(sentence);
    const std::vector<std::string> words(views.begin(), views.end());
    Expected<Clause> clause = EnglishReader(words).clause();
    if (!clause) return Error{clause.error()};
    TranslationPair pair = translate(*clause, language);
    // "a apple" reads, but the grammar writes "an apple": only its own sentences are accepted.
    if (pair.source != words) return Error{"not a sentence of the translation grammar: 'a' or 'an' does not fit the next word"};
    return pair;
}

std::vector<std::string> translationWords(TargetLanguage language)
{
    std::vector<std::string> words;
    addAll(words, {"the", "a", "an", "has"});
    for (const Noun& noun : nouns) addAll(words, {noun.english});
    for (const Adjective& adjective : adjectives) addAll(words, {adjective.english});
    for (const Verb& verb : verbs) addAll(words, {verb.english, verb.englishParticiple});
    if (language == TargetLanguage::French) {
        addAll(words, {"le", "la", "un", "une", "a"});
        for (const Noun& noun : nouns) addAll(words, {noun.french});
        for (const Adjective& adjective : adjectives)
            addAll(words, {adjective.frenchMasculine, adjective.frenchFeminine});
        for (const Verb& verb : verbs) addAll(words, {verb.french, verb.frenchParticiple});
    } else {
        addAll(words, {"der", "die", "das", "den", "ein", "eine", "einen", "hat"});
        for (const Noun& noun : nouns) addAll(words, {noun.german, noun.germanAccusative});
        for (const Adjective& adjective : adjectives)
            for (std::string_view ending : {"e", "en", "er", "es"})
                words.push_back(std::string(adjective.germanStem) + std::string(ending));
        for (const Verb& verb : verbs) addAll(words, {verb.german, verb.germanParticiple});
    }
    // Each word once, first occurrence kept (the order is the vocabulary's).
    std::vector<std::string> distinct;
    for (std::string& word : words)
        if (std::find(distinct.begin(), distinct.end(), word) == distinct.end()) distinct.push_back(std::move(word));
    return distinct;
}

TranslationGrammarSize translationGrammarSize()
{
    TranslationGrammarSize size;
    size.nouns = static_cast<Index>(nouns.size());
    size.adjectives = static_cast<Index>(adjectives.size());
    for (const Verb& verb : verbs) ++(transitive(verb) ? size.transitiveVerbs : size.intransitiveVerbs);
    return size;
}

}  // namespace qkv
