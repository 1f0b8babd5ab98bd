// TaskData: the vocabulary, the held-out set and the training stream of every task. The
// examples themselves come from sequence_tasks.cpp, translation_grammar.cpp and
// sentence_pairs_file.cpp.
#include "core/training/tasks.hpp"

#include <algorithm>
#include <cmath>

#include "core/training/number_text.hpp"
#include "core/training/sentence_pairs_file.hpp"
#include "core/training/sequence_tasks.hpp"
#include "core/training/translation_grammar.hpp"

namespace qkv {

namespace {

// A seed for one purpose, one index: unrelated streams for nearby seeds and indices.
std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t value)
{
    SplitMix64 mixer(seed ^ (value * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull));
    mixer.next();
    return mixer.next();
}
// Salts that keep the held-out draw, the training stream and the split of a file apart.
constexpr std::uint64_t heldOutSalt = 0x68656C642D6F7574ull;   // "held-out"
constexpr std::uint64_t trainingSalt = 0x747261696E696E67ull;  // "training"
constexpr std::uint64_t splitSalt = 0x73706C6974706169ull;     // "splitpai"
// The most tokens a model the app trains may have (ModelSpec::problem has the same limit).
constexpr std::int32_t maxTaskVocabulary = 1 << 16;

// Equal keys exactly when the examples have equal ids.
std::string exampleKey(const SequencePair& ids)
{
    std::string key;
    const auto append = [&key](const std::vector<std::int32_t>& part) {
        key.append(reinterpret_cast<const char*>(part.data()), part.size() * sizeof(std::int32_t));
        key += '|';
    };
    append(ids.source);
    append(ids.targetInput);
    append(ids.targetOutput);
    return key;
}

Index positionsRead(const TaskExample& example)
{
    return std::max<Index>(static_cast<Index>(example.ids.source.size()),
                           static_cast<Index>(example.ids.targetInput.size()));
}

std::vector<std::int32_t> idsOf(const Vocabulary& vocabulary, const std::vector<std::string>& words)
{
    std::vector<std::int32_t> ids;
    ids.reserve(words.size());
    for (const std::string& word : words) ids.push_back(*vocabulary.find(word));  // every task word was added
    return ids;
}

}  // namespace

Expected<TaskData> TaskData::create(const TaskSettings& settings)
{
    if (settings.heldOutCount < 1 || settings.heldOutCount > maxHeldOutCount)
        return Error{"the number of held-out examples must be between 1 and " +
                     withThousandsSeparators(maxHeldOutCount) + " (it is " + std::to_string(settings.heldOutCount) +
                     ")"};
    TaskData data;
    data.settings_ = settings;
    switch (settings.kind) {
    case TaskKind::Reverse:
    case TaskKind::Copy:
    case TaskKind::Sort:
        data.firstSymbol_ = addLetterSymbols(data.vocabulary_, symbolAlphabetSize);
        data.maxLength_ = symbolMaxLength + 1;  // <bos> + the longest output
        break;
    case TaskKind::Induction:
        data.firstSymbol_ = addLetterSymbols(data.vocabulary_, inductionAlphabetSize);
        data.maxLength_ = 2 * inductionMaxPeriod + 1;
        break;
    case TaskKind::Translate:
        if (!settings.pairsFile.empty()) {
            if (Status read = data.readPairs(); !read) return Error{read.error()};
            return data;
        }
        for (const std::string& word : translationWords(settings.language)) data.vocabulary_.add(word);
        data.maxLength_ = translationMaxWords + 1;
        break;
    }
    data.drawHeldOut();
    return data;
}

TaskExample TaskData::drawExample(SplitMix64& random) const
{
    switch (settings_.kind) {
    case TaskKind::Induction:
        return inductionExample(firstSymbol_, random);
    case TaskKind::Translate: {
        const TranslationPair pair = randomTranslation(settings_.language, random);
        return sequenceToSequenceExample(idsOf(vocabulary_, pair.source), idsOf(vocabulary_, pair.target),
                                         pair.alignment);
    }
    default:
        return symbolTaskExample(settings_.kind, firstSymbol_, random);
    }
}

void TaskData::drawHeldOut()
{
    SplitMix64 random(mixSeed(settings_.seed, heldOutSalt));
    // Every generated task has far more distinct examples than maxHeldOutCount; the bound on
    // draws only guards against a task added later that has not.
    const Index maxDraws = 100 * settings_.heldOutCount + 1000;
    for (Index draw = 0; draw < maxDraws && static_cast<Index>(heldOut_.size()) < settings_.heldOutCount; ++draw) {
        TaskExample example = drawExample(random);
        if (heldOutKeys_.insert(exampleKey(example.ids)).second) heldOut_.push_back(std::move(example));
    }
}

TaskExample TaskData::trainingExample(std::uint64_t index) const
{
    const std::uint64_t seed = mixSeed(mixSeed(settings_.seed, trainingSalt), index);
    if (!trainingPool_.empty()) return trainingPool_[seed % trainingPool_.size()];
    // Redraw while the example is a held-out one. This ends: the held-out set is a vanishing
    // part of every generated task's examples (at most 100,000 of more than 10^12).
    SplitMix64 random(seed);
    for (;;) {
        TaskExample example = drawExample(random);
        if (!heldOutKeys_.contains(exampleKey(example.ids))) return example;
    }
}

Status TaskData::readPairs()
{
    const std::string name = settings_.pairsFile.string();
    Expected<std::vector<SentencePairLine>> lines = readSentencePairs(settings_.pairsFile);
    if (!lines) return Error{lines.error()};

    // Distinct pairs in file order; every word of the file in the vocabulary, in file order.
    std::vector<TaskExample> pairs;
    std::unordered_set<std::string> seen;
    for (const SentencePairLine& line : *lines) {
        for (const auto* side : {&line.source, &line.target})
            for (const std::string& word : *side) vocabulary_.add(word);
        TaskExample example = sequenceToSequenceExample(idsOf(vocabulary_, line.source),
                                                        idsOf(vocabulary_, line.target),
                                                        sameWordAlignment(line.source, line.target));
        if (seen.insert(exampleKey(example.ids)).second) pairs.push_back(std::move(example));
    }
    if (vocabulary_.size() > maxTaskVocabulary)
        return Error{name + ": has " + withThousandsSeparators(vocabulary_.size() - 3) +
                     " different words; a model can learn at most " + withThousandsSeparators(maxTaskVocabulary - 3)};
    if (pairs.size() < 2)
        return Error{name + ": needs at least two different sentence pairs, one to learn from and one held out (it has " +
                     std::to_string(pairs.size()) + ")"};

    // A deterministic shuffle (Fisher-Yates), then the first tenth is held out.
    SplitMix64 random(mixSeed(settings_.seed, splitSalt));
    for (std::size_t i = pairs.size() - 1; i > 0; --i)
        std::swap(pairs[i], pairs[static_cast<std::size_t>(uniformInteger(random, 0, static_cast<Index>(i)))]);
    const auto count = static_cast<Index>(pairs.size());
    const Index held = std::clamp<Index>(std::llround(0.1 * static_cast<double>(count)), 1,
                                         std::min(settings_.heldOutCount, count - 1));
    for (Index i = 0; i < count; ++i) {
        maxLength_ = std::max(maxLength_, positionsRead(pairs[static_cast<std::size_t>(i)]));
        // The distinct pairs are split, so no training pair equals a held-out one.
        (i < held ? heldOut_ : trainingPool_).push_back(std::move(pairs[static_cast<std::size_t>(i)]));
    }
    return {};
}

std::string TaskData::description() const
{
    const std::string name(nameOf(kTaskKindNames, settings_.kind));
    switch (settings_.kind) {
    case TaskKind::Induction:
        return "induction: " + std::to_string(inductionMinPeriod) + "-" + std::to_string(inductionMaxPeriod) +
               " tokens of " + std::to_string(inductionAlphabetSize) + ", repeated";
    case TaskKind::Translate: {
        if (!settings_.pairsFile.empty())
            return "translate " + settings_.pairsFile.filename().string() + " (" +
                   withThousandsSeparators(static_cast<long long>(heldOut_.size() + trainingPool_.size())) +
                   " pairs, " + withThousandsSeparators(static_cast<long long>(heldOut_.size())) + " held out)";
        const TranslationGrammarSize size = translationGrammarSize();
        return std::string("translate English to ") +
               (settings_.language == TargetLanguage::French ? "French" : "German") + " (" +
               std::to_string(size.nouns) + " nouns, " + std::to_string(size.adjectives) + " adjectives, " +
               std::to_string(size.transitiveVerbs + size.intransitiveVerbs) + " verbs)";
    }
    default:
        return name + " " + std::to_string(symbolMinLength) + "-" + std::to_string(symbolMaxLength) + " of " +
               std::to_string(symbolAlphabetSize) + " symbols";
    }
}

}  // namespace qkv
