// The generated tasks: the shape of their examples, determinism, and held-out examples that the
// training stream never repeats.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "core/training/sequence_tasks.hpp"
#include "core/training/tasks.hpp"

namespace qkv {
namespace {

TaskData makeTask(TaskKind kind, std::uint64_t seed = 7, Index heldOut = 64)
{
    TaskSettings settings;
    settings.kind = kind;
    settings.seed = seed;
    settings.heldOutCount = heldOut;
    Expected<TaskData> data = TaskData::create(settings);
    EXPECT_TRUE(data.ok()) << data.error();
    return std::move(data).value();
}

// Decoder input and output of a sequence-to-sequence example: <bos> y and y <eos>.
void expectSequenceToSequenceShape(const TaskExample& example)
{
    const SequencePair& ids = example.ids;
    ASSERT_EQ(ids.targetInput.size(), ids.targetOutput.size());
    ASSERT_EQ(example.alignment.size(), ids.targetInput.size());
    ASSERT_FALSE(ids.targetInput.empty());
    EXPECT_EQ(ids.targetInput.front(), Vocabulary::bos);
    EXPECT_EQ(ids.targetOutput.back(), Vocabulary::eos);
    EXPECT_EQ(example.alignment.back(), -1);
    for (std::size_t t = 1; t < ids.targetInput.size(); ++t) EXPECT_EQ(ids.targetInput[t], ids.targetOutput[t - 1]);
    // A gold source position holds the word the decoder is about to write.
    for (std::size_t t = 0; t < example.alignment.size(); ++t) {
        if (example.alignment[t] >= 0) {
            EXPECT_EQ(ids.source.at(static_cast<std::size_t>(example.alignment[t])), ids.targetOutput[t]);
        }
    }
}

std::vector<std::int32_t> outputWords(const TaskExample& example)
{
    return {example.ids.targetOutput.begin(), example.ids.targetOutput.end() - 1};
}

TEST(SymbolTasks, HaveSixteenSymbolsAndSequencesOfFourToTwelve)
{
    for (TaskKind kind : {TaskKind::Reverse, TaskKind::Copy, TaskKind::Sort}) {
        const TaskData data = makeTask(kind);
        EXPECT_EQ(data.vocabulary().size(), 3 + 16);
        EXPECT_EQ(data.vocabulary().token(3), "a");
        EXPECT_EQ(data.vocabulary().token(18), "p");
        EXPECT_TRUE(data.isSequenceToSequence());
        EXPECT_EQ(data.maxSequenceLength(), 13);
        ASSERT_EQ(data.heldOut().size(), 64u);
        std::set<std::size_t> lengths;
        for (std::uint64_t i = 0; i < 300; ++i) {
            const TaskExample example = data.trainingExample(i);
            expectSequenceToSequenceShape(example);
            const std::size_t n = example.ids.source.size();
            lengths.insert(n);
            EXPECT_EQ(example.ids.targetInput.size(), n + 1);
            for (std::int32_t id : example.ids.source) EXPECT_TRUE(id >= 3 && id < 19);
        }
        EXPECT_EQ(*lengths.begin(), 4u);
        EXPECT_EQ(*lengths.rbegin(), 12u);
        EXPECT_EQ(lengths.size(), 9u) << "every length from 4 to 12 occurs";
    }
}

TEST(SymbolTasks, ReverseCopyAndSortWriteWhatTheirNamesSay)
{
    for (std::uint64_t i = 0; i < 200; ++i) {
        const TaskExample reversed = makeTask(TaskKind::Reverse).trainingExample(i);
        std::vector<std::int32_t> expected = reversed.ids.source;
        std::reverse(expected.begin(), expected.end());
        EXPECT_EQ(outputWords(reversed), expected);
        const auto n = static_cast<std::int32_t>(expected.size());
        for (std::int32_t t = 0; t < n; ++t) EXPECT_EQ(reversed.alignment[static_cast<std::size_t>(t)], n - 1 - t);
    }
    const TaskData copy = makeTask(TaskKind::Copy);
    const TaskData sort = makeTask(TaskKind::Sort);
    int unaligned = 0;
    for (std::uint64_t i = 0; i < 200; ++i) {
        const TaskExample copied = copy.trainingExample(i);
        EXPECT_EQ(outputWords(copied), copied.ids.source);
        for (std::size_t t = 0; t + 1 < copied.alignment.size(); ++t)
            EXPECT_EQ(copied.alignment[t], static_cast<std::int32_t>(t));

        const TaskExample sorted = sort.trainingExample(i);
        expectSequenceToSequenceShape(sorted);
        std::vector<std::int32_t> expected = sorted.ids.source;
        std::sort(expected.begin(), expected.end());
        EXPECT_EQ(outputWords(sorted), expected);
        for (std::size_t t = 0; t + 1 < sorted.alignment.size(); ++t) {
            const auto repeats = std::count(expected.begin(), expected.end(), expected[t]);
            EXPECT_EQ(sorted.alignment[t] < 0, repeats > 1) << "a repeated symbol has no single source";
            unaligned += sorted.alignment[t] < 0;
        }
    }
    EXPECT_GT(unaligned, 0) << "some sorted sequences repeat a symbol";
}

TEST(InductionTask, RepeatsARandomBlockAndLabelsTheSecondCopy)
{
    const TaskData data = makeTask(TaskKind::Induction);
    EXPECT_FALSE(data.isSequenceToSequence());
    EXPECT_EQ(data.vocabulary().size(), 3 + 26);
    EXPECT_EQ(data.maxSequenceLength(), 2 * 16 + 1);
    std::set<Index> periods;
    std::set<std::int32_t> tokensSeen;
    int repeats = 0;
    for (std::uint64_t i = 0; i < 300; ++i) {
        const TaskExample example = data.trainingExample(i);
        const Index L = example.period;
        periods.insert(L);
        const std::vector<std::int32_t>& tokens = example.ids.targetInput;
        ASSERT_EQ(static_cast<Index>(tokens.size()), 2 * L + 1);
        EXPECT_TRUE(example.ids.source.empty());
        EXPECT_EQ(tokens[0], Vocabulary::bos);
        const std::set<std::int32_t> block(tokens.begin() + 1, tokens.begin() + 1 + L);
        repeats += static_cast<Index>(block.size()) < L;
        tokensSeen.insert(block.begin(), block.end());
        for (Index t = 1; t <= L; ++t) EXPECT_EQ(tokens[static_cast<std::size_t>(t)], tokens[static_cast<std::size_t>(t + L)]);
        for (Index t = 0; t <= 2 * L; ++t) {
            const std::int32_t label = example.ids.targetOutput[static_cast<std::size_t>(t)];
            if (t >= L + 1 && t <= 2 * L - 1) {
                EXPECT_EQ(label, tokens[static_cast<std::size_t>(t + 1)]);
                // The token after the current token's first occurrence, t - L + 1, is the answer.
                EXPECT_EQ(label, tokens[static_cast<std::size_t>(t - L + 1)]);
            } else {
                EXPECT_EQ(label, -1) << "no loss at position " << t;
            }
        }
    }
    EXPECT_EQ(*periods.begin(), 8);
    EXPECT_EQ(*periods.rbegin(), 16);
    EXPECT_EQ(tokensSeen.size(), 26u);
    EXPECT_EQ(*tokensSeen.begin(), 3);
    EXPECT_GT(repeats, 100) << "tokens are drawn with replacement, so most blocks repeat one";
}

TEST(TaskData, IsDeterministicInTheSeed)
{
    for (TaskKind kind : {TaskKind::Reverse, TaskKind::Induction, TaskKind::Translate}) {
        const TaskData a = makeTask(kind, 11), b = makeTask(kind, 11), c = makeTask(kind, 12);
        ASSERT_EQ(a.heldOut().size(), b.heldOut().size());
        for (std::size_t i = 0; i < a.heldOut().size(); ++i) {
            EXPECT_EQ(a.heldOut()[i].ids.source, b.heldOut()[i].ids.source);
            EXPECT_EQ(a.heldOut()[i].ids.targetInput, b.heldOut()[i].ids.targetInput);
        }
        int different = 0;
        for (std::uint64_t i = 0; i < 20; ++i) {
            EXPECT_EQ(a.trainingExample(i).ids.targetInput, b.trainingExample(i).ids.targetInput);
            different += a.trainingExample(i).ids.targetInput != c.trainingExample(i).ids.targetInput;
            different += a.trainingExample(i).ids.targetInput != a.trainingExample(i + 1).ids.targetInput;
        }
        EXPECT_GT(different, 30) << "another seed or index draws other examples";
    }
}

TEST(TaskData, HeldOutExamplesAreDistinct)
{
    for (TaskKind kind : {TaskKind::Reverse, TaskKind::Copy, TaskKind::Sort, TaskKind::Induction, TaskKind::Translate}) {
        const TaskData data = makeTask(kind, 3, 256);
        std::set<std::pair<std::vector<std::int32_t>, std::vector<std::int32_t>>> seen;
        for (const TaskExample& example : data.heldOut())
            EXPECT_TRUE(seen.insert({example.ids.source, example.ids.targetInput}).second);
        EXPECT_EQ(seen.size(), 256u);
    }
}

TEST(TaskData, TrainingNeverRepeatsAHeldOutExample)
{
    // 100,000 held-out reverse examples include about a sixth of all 65,536 sequences of length 4,
    // so without the check about 1 training example in 60 would be a held-out one.
    const TaskData data = makeTask(TaskKind::Reverse, 5, maxHeldOutCount);
    std::set<std::vector<std::int32_t>> heldOut;
    for (const TaskExample& example : data.heldOut()) heldOut.insert(example.ids.source);
    ASSERT_EQ(heldOut.size(), static_cast<std::size_t>(maxHeldOutCount));
    std::size_t shortOnes = 0, heldOutShort = 0;
    for (const auto& source : heldOut) heldOutShort += source.size() == 4;
    for (std::uint64_t i = 0; i < 20000; ++i) {
        const TaskExample example = data.trainingExample(i);
        shortOnes += example.ids.source.size() == 4;
        ASSERT_FALSE(heldOut.contains(example.ids.source)) << "training example " << i << " is held out";
    }
    EXPECT_GT(heldOutShort, 9000u);
    EXPECT_GT(shortOnes, 1500u);
}

TEST(TaskData, RefusesAHeldOutCountOutOfRange)
{
    TaskSettings settings;
    for (Index count : {Index{0}, maxHeldOutCount + 1}) {
        settings.heldOutCount = count;
        const Expected<TaskData> data = TaskData::create(settings);
        ASSERT_FALSE(data.ok());
        EXPECT_NE(data.error().find("held-out examples must be between 1 and 100,000"), std::string::npos) << data.error();
    }
}

TEST(TaskData, DescribesItself)
{
    EXPECT_EQ(makeTask(TaskKind::Reverse).description(), "reverse 4-12 of 16 symbols");
    EXPECT_EQ(makeTask(TaskKind::Sort).description(), "sort 4-12 of 16 symbols");
    EXPECT_EQ(makeTask(TaskKind::Induction).description(), "induction: 8-16 tokens of 26, repeated");
    EXPECT_EQ(makeTask(TaskKind::Translate).description(),
              "translate English to French (38 nouns, 17 adjectives, 24 verbs)");
}

}  // namespace
}  // namespace qkv
