#pragma once
// The training tasks and their data, generated in the app. Training and held-out sets are
// disjoint: the held-out examples are drawn first and the training stream skips any of them.
//
//   reverse    encoder-decoder: 4-12 random symbols -> the same symbols reversed
//   copy       encoder-decoder: -> the same symbols (cross-attention learns the diagonal)
//   sort       encoder-decoder: -> the symbols in ascending order
//   translate  encoder-decoder: English -> French or German, word by word from the built-in
//              lexicon in each language's word order ("the black cat" -> "le chat noir"), or
//              the user's pairs from a UTF-8 TSV file (source TAB target per line)
//   induction  decoder only: random tokens repeated twice; loss on the second copy
//
// A seq2seq example: source = the input ids; targetInput = <bos> y_1 .. y_n; targetOutput =
// y_1 .. y_n <eos>. The gold alignment says, for decoder position t, which source position holds
// the word it is about to write (-1 for none, e.g. <eos>).

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/common/enum_names.hpp"
#include "core/common/expected.hpp"
#include "core/common/random.hpp"
#include "core/trainable/model_forward.hpp"
#include "core/training/vocabulary.hpp"

namespace qkv {

enum class TaskKind { Reverse, Copy, Sort, Translate, Induction };
inline constexpr std::array<EnumName<TaskKind>, 5> kTaskKindNames{{
    {TaskKind::Reverse, "reverse"},
    {TaskKind::Copy, "copy"},
    {TaskKind::Sort, "sort"},
    {TaskKind::Translate, "translate"},
    {TaskKind::Induction, "induction"},
}};
enum class TargetLanguage { French, German };
inline constexpr std::array<EnumName<TargetLanguage>, 2> kTargetLanguageNames{{
    {TargetLanguage::French, "fr"},
    {TargetLanguage::German, "de"},
}};

struct TaskExample {
    SequencePair ids;
    std::vector<std::int32_t> alignment;  // targetInput.size() entries: gold source position or -1
    Index period = 0;                     // induction: L, the length of the repeated block
};

struct TaskSettings {
    TaskKind kind = TaskKind::Reverse;
    TargetLanguage language = TargetLanguage::French;
    std::filesystem::path pairsFile;  // translate: the user's TSV instead of generated sentences
    std::uint64_t seed = 0;
    Index heldOutCount = 256;  // 1 .. maxHeldOutCount
};
inline constexpr Index maxHeldOutCount = 100000;

// Everything a run draws its data from. Deterministic in the settings' seed.
//
// Generated tasks (reverse, copy, sort, induction, translate from the grammar) are streams: the
// held-out set is heldOutCount distinct examples drawn first, and training example i is drawn
// from its own seed (seed, i), redrawn while it equals a held-out example. A file of pairs is
// finite: its distinct pairs are shuffled by the seed and 10% of them held out (at least 1, at
// most heldOutCount); training example i is a pair of the rest, chosen by (seed, i).
class TaskData {
public:
    // Fails with a message naming the file and line for a bad TSV (not UTF-8, no tab, empty
    // side, too long, too many lines; sentence_pairs_file.hpp), never throws.
    static Expected<TaskData> create(const TaskSettings& settings);

    const TaskSettings& settings() const { return settings_; }
    const Vocabulary& vocabulary() const { return vocabulary_; }
    const std::vector<TaskExample>& heldOut() const { return heldOut_; }
    // Training example number `index` of the stream (deterministic in seed and index; never
    // one of the held-out examples).
    TaskExample trainingExample(std::uint64_t index) const;
    bool isSequenceToSequence() const { return settings_.kind != TaskKind::Induction; }
    // The most positions either stack reads: the longest source or targetInput (with <bos>).
    Index maxSequenceLength() const { return maxLength_; }
    // A short description for people: "reverse 4-12 of 16 symbols".
    std::string description() const;

private:
    // One random example of a generated task.
    TaskExample drawExample(SplitMix64& random) const;
    void drawHeldOut();
    Status readPairs();

    TaskSettings settings_;
    Vocabulary vocabulary_;
    std::vector<TaskExample> heldOut_;
    std::vector<TaskExample> trainingPool_;  // a file of pairs; empty for generated streams
    std::unordered_set<std::string> heldOutKeys_;
    std::int32_t firstSymbol_ = 0;           // symbol and induction tasks: the first symbol's id
    Index maxLength_ = 0;
};

}  // namespace qkv
