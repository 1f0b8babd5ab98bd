#include "app/train_arguments.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string_view>
#include <utility>

#include "app/export_arguments.hpp"

namespace qkv::app {

namespace {

// The ranges TrainingRun::create accepts (core/training/training_run.cpp), checked here as well
// so that a mistake is named by its option before any file is touched.
constexpr Index kMinDModel = 4, kMaxDModel = 1024;
constexpr Index kMaxLayers = 12;
constexpr long kMaxSteps = 10'000'000;
constexpr Index kMaxBatch = 4096;
constexpr double kMaxLearningRate = 1.0;

template <class Integer>
Integer parseCount(std::string_view option, std::string_view text, Integer low, Integer high)
{
    const auto value = parseInteger<Integer>(option, text);
    if (value < low || value > high)
        throw ArgumentError{std::string(option) + ": must be between " + std::to_string(low) + " and " +
                            std::to_string(high) + " (it is " + std::string(text) + ")"};
    return value;
}

using Setter = std::function<void(TrainArguments&, std::string_view option, std::string_view value)>;

const std::vector<std::pair<std::string_view, Setter>>& valueOptions()
{
    static const std::vector<std::pair<std::string_view, Setter>> options = {
        {"--task", [](TrainArguments& a, auto o, auto v) { a.task = parseChoice(o, v, kTaskKindNames); }},
        {"--data", [](TrainArguments& a, auto o, auto v) { a.dataFile = nonEmptyPath(o, v); }},
        {"--language", [](TrainArguments& a, auto o, auto v) { a.language = parseChoice(o, v, kTargetLanguageNames); }},
        {"--variant", [](TrainArguments& a, auto o, auto v) { a.variants = parseChoice(o, v, kTrainVariantNames); }},
        {"--d-model",
         [](TrainArguments& a, auto o, auto v) { a.d_model = parseCount<Index>(o, v, kMinDModel, kMaxDModel); }},
        // h against d_model once both are known (one may be the task's default).
        {"--heads", [](TrainArguments& a, auto o, auto v) { a.headCount = parseInteger<Index>(o, v); }},
        {"--layers", [](TrainArguments& a, auto o, auto v) { a.layers = parseCount<Index>(o, v, 1, kMaxLayers); }},
        {"--steps", [](TrainArguments& a, auto o, auto v) { a.steps = parseCount<long>(o, v, 1, kMaxSteps); }},
        {"--batch", [](TrainArguments& a, auto o, auto v) { a.batch = parseCount<Index>(o, v, 1, kMaxBatch); }},
        {"--lr",
         [](TrainArguments& a, auto o, auto v) {
             a.learningRate = parseNumber<double>(o, v);
             if (!(*a.learningRate > 0.0 && *a.learningRate <= kMaxLearningRate))
                 throw ArgumentError{std::string(o) + ": must be above 0 and at most 1 (it is " + std::string(v) + ")"};
         }},
        {"--seed", [](TrainArguments& a, auto o, auto v) { a.seed = parseInteger<std::uint64_t>(o, v); }},
        {"--out", [](TrainArguments& a, auto o, auto v) { a.out = nonEmptyPath(o, v); }},
    };
    return options;
}

}  // namespace

TrainArguments parseTrainArguments(int argc, char** argv)
{
    TrainArguments args;
    const auto& options = valueOptions();
    for (int i = 2; i < argc; ++i) {
        const std::string_view option = argv[i];
        const auto found =
            std::find_if(options.begin(), options.end(), [&](const auto& o) { return o.first == option; });
        if (found == options.end())
            throw ArgumentError{"unknown argument '" + std::string(option) + "' (see qkv-studio train --help)"};
        found->second(args, option, optionValue(argc, argv, i));
    }
    if (!args.task) throw ArgumentError{"--task: required (" + allowedNames(kTaskKindNames) + ")"};
    if (args.dataFile && *args.task != TaskKind::Translate)
        throw ArgumentError{"--data: goes with --task translate (the other tasks generate their data)"};
    if (args.language && *args.task != TaskKind::Translate)
        throw ArgumentError{"--language: goes with --task translate"};
    if (args.language && args.dataFile)
        throw ArgumentError{"--language: not used with --data (the pairs file holds both languages)"};
    if (args.out.empty()) throw ArgumentError{"--out: an output folder is required"};
    return args;
}

std::vector<TrainingSettings> trainingSettings(const TrainArguments& args)
{
    TrainingSettings settings = TrainingSettings::defaultsFor(*args.task);
    if (args.dataFile) {
        // Absolute: the session names the file, and whoever opens it may be in another folder.
        std::error_code ignored;
        const std::filesystem::path absolute = std::filesystem::absolute(*args.dataFile, ignored);
        settings.task.pairsFile = absolute.empty() ? std::filesystem::path(*args.dataFile) : absolute.lexically_normal();
    }
    if (args.language) settings.task.language = *args.language;
    if (args.d_model) settings.d_model = *args.d_model;
    if (args.headCount) settings.headCount = *args.headCount;
    if (args.layers) settings.layers = *args.layers;
    if (args.steps) settings.steps = *args.steps;
    if (args.batch) settings.batch = *args.batch;
    if (args.learningRate) settings.optimizer.learningRate = *args.learningRate;
    if (args.seed) settings.seed = settings.task.seed = *args.seed;

    const Index d = settings.d_model, h = settings.headCount;
    if (h < 1 || h > d)
        throw ArgumentError{"--heads: must be between 1 and d_model = " + std::to_string(d) + " (it is " +
                            std::to_string(h) + ")"};
    // h not dividing d_model: the option given is the one to change (--heads when both were).
    if (d % h != 0)
        throw ArgumentError{std::string(args.headCount || !args.d_model ? "--heads" : "--d-model") + ": h = " +
                            std::to_string(h) + " does not divide d_model = " + std::to_string(d) +
                            ": each head gets d_k = d_model / h columns"};

    std::vector<TrainingSettings> variants;
    for (const ScoreForm form : {ScoreForm::Factored, ScoreForm::Full}) {
        const bool wanted = args.variants == TrainVariants::Both ||
                            (form == ScoreForm::Factored) == (args.variants == TrainVariants::Factored);
        if (!wanted) continue;
        variants.push_back(settings);
        variants.back().variant = form;
    }
    return variants;
}

}  // namespace qkv::app
