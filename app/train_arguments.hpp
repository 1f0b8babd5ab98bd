#pragma once
// `qkv-studio train`'s command line: which task, which variant(s), how big, how long, where to.
// Every option is checked here, before any file is touched (exit status 2 naming the option).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/argument_values.hpp"
#include "core/common/enum_names.hpp"
#include "core/training/training_run.hpp"

namespace qkv::app {

// --variant: one way of forming a head's scores (core/trainable/model_spec.hpp), or both of them on
// the same data and seed.
enum class TrainVariants { Factored, Full, Both };
inline constexpr std::array<EnumName<TrainVariants>, 3> kTrainVariantNames{{
    {TrainVariants::Factored, "factored"},
    {TrainVariants::Full, "full"},
    {TrainVariants::Both, "both"},
}};

struct TrainArguments {
    std::optional<TaskKind> task;            // --task (required)
    std::optional<std::string> dataFile;     // --data PAIRS.tsv (translate only)
    std::optional<TargetLanguage> language;  // --language (translate without --data)
    TrainVariants variants = TrainVariants::Factored;
    std::optional<Index> d_model, headCount, layers, batch;
    std::optional<long> steps;
    std::optional<double> learningRate;
    std::optional<std::uint64_t> seed;
    std::string out;                         // --out DIR (required)
};

// Throws ArgumentError for an unknown option, a missing or malformed value, --data or --language
// without --task translate, a missing --task or --out. Values are checked against the training
// limits by trainingSettings, once the task's defaults fill in what was not given.
TrainArguments parseTrainArguments(int argc, char** argv);

// The settings of each variant to train, factored before full: the task's defaults
// (TrainingSettings::defaultsFor) with the options given; --seed seeds both the data and the
// weights, so the variants see the same examples in the same order. Throws ArgumentError naming
// the option of the first field out of its limits (core/training/training_limits.hpp):
// "--heads: h must divide d_model 96; 5 does not".
std::vector<TrainingSettings> trainingSettings(const TrainArguments& args);

}  // namespace qkv::app
