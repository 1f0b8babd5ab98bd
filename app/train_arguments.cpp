#include "app/train_arguments.hpp"

#include <algorithm>
#include <functional>
#include <string_view>
#include <utility>

#include "app/export_arguments.hpp"

namespace qkv::app {

namespace {

// What a desktop run is for: beyond these a run takes hours (the spec's own limits cover the
// model's sizes).
constexpr long kMaxSteps = 100'000'000;
constexpr Index kMaxBatch = 4096;
constexpr double kMaxLearningRate = 10.0;

template <class Integer>
Integer parseCount(std::string_view option, std::string_view text, Integer high)
{
    const auto value = parseInteger<Integer>(option, text);
    if (value < 1 || value > high)
        throw ArgumentError{std::string(option) + ": must be between 1 and " + std::to_string(high) + " (it is " +
                            std::string(text) + ")"};
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
        // The sizes' ranges are ModelSpec::problem's, checked once the task's defaults are known.
        {"--d-model", [](TrainArguments& a, auto o, auto v) { a.d_model = parseInteger<Index>(o, v); }},
        {"--heads", [](TrainArguments& a, auto o, auto v) { a.headCount = parseInteger<Index>(o, v); }},
        {"--layers", [](TrainArguments& a, auto o, auto v) { a.layers = parseInteger<Index>(o, v); }},
        {"--steps", [](TrainArguments& a, auto o, auto v) { a.steps = parseCount<long>(o, v, kMaxSteps); }},
        {"--batch", [](TrainArguments& a, auto o, auto v) { a.batch = parseCount<Index>(o, v, kMaxBatch); }},
        {"--lr",
         [](TrainArguments& a, auto o, auto v) {
             a.learningRate = parseNumber<double>(o, v);
             if (!(*a.learningRate > 0.0 && *a.learningRate <= kMaxLearningRate))
                 throw ArgumentError{std::string(o) + ": must be above 0 and at most 10 (it is " + std::string(v) + ")"};
         }},
        {"--seed", [](TrainArguments& a, auto o, auto v) { a.seed = parseInteger<std::uint64_t>(o, v); }},
        {"--out", [](TrainArguments& a, auto o, auto v) { a.out = nonEmptyPath(o, v); }},
    };
    return options;
}

// ModelSpec::problem for one option's value with everything else valid, so its message is
// about that option.
void checkSize(std::string_view option, const ModelSpec& probe)
{
    if (const std::string problem = probe.problem(); !problem.empty())
        throw ArgumentError{std::string(option) + ": " + problem};
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
    if (args.dataFile) settings.task.pairsFile = *args.dataFile;
    if (args.language) settings.task.language = *args.language;
    if (args.d_model) settings.d_model = *args.d_model;
    if (args.headCount) settings.headCount = *args.headCount;
    if (args.layers) settings.layers = *args.layers;
    if (args.steps) settings.steps = *args.steps;
    if (args.batch) settings.batch = *args.batch;
    if (args.learningRate) settings.optimizer.learningRate = *args.learningRate;
    if (args.seed) settings.seed = settings.task.seed = *args.seed;

    ModelSpec probe;
    probe.vocabularySize = 4;
    probe.headCount = 1;
    probe.d_model = settings.d_model;
    checkSize("--d-model", probe);
    probe.headCount = settings.headCount;
    // h not dividing d_model: the option given is the one to change (--heads when both were).
    checkSize(args.headCount || !args.d_model ? "--heads" : "--d-model", probe);
    probe.encoderLayers = probe.decoderLayers = settings.layers;
    checkSize("--layers", probe);

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
