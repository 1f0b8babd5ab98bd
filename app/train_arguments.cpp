#include "app/train_arguments.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string_view>
#include <utility>

#include "app/export_arguments.hpp"
#include "core/training/training_limits.hpp"

namespace qkv::app {

namespace {

// The option of the field a problem is about (the training limits name the fields; the option of
// each is theirs too). h not dividing d_model: the option given is the one to change (--heads
// when both were).
std::string optionOf(TrainingField field, const TrainArguments& args)
{
    if (field == TrainingField::Heads && !args.headCount && args.d_model)
        return std::string(trainingLimit(TrainingField::DModel).option);
    return std::string(trainingLimit(field).option);
}

using Setter = std::function<void(TrainArguments&, std::string_view option, std::string_view value)>;

const std::vector<std::pair<std::string_view, Setter>>& valueOptions()
{
    static const std::vector<std::pair<std::string_view, Setter>> options = {
        {"--task", [](TrainArguments& a, auto o, auto v) { a.task = parseChoice(o, v, kTaskKindNames); }},
        {"--data", [](TrainArguments& a, auto o, auto v) { a.dataFile = nonEmptyPath(o, v); }},
        {"--language", [](TrainArguments& a, auto o, auto v) { a.language = parseChoice(o, v, kTargetLanguageNames); }},
        {"--variant", [](TrainArguments& a, auto o, auto v) { a.variants = parseChoice(o, v, kTrainVariantNames); }},
        // The sizes are checked against the training limits once all are known (trainingSettings:
        // h against d_model, either of which may be the task's default).
        {"--d-model", [](TrainArguments& a, auto o, auto v) { a.d_model = parseInteger<Index>(o, v); }},
        {"--heads", [](TrainArguments& a, auto o, auto v) { a.headCount = parseInteger<Index>(o, v); }},
        {"--layers", [](TrainArguments& a, auto o, auto v) { a.layers = parseInteger<Index>(o, v); }},
        {"--steps", [](TrainArguments& a, auto o, auto v) { a.steps = parseInteger<long>(o, v); }},
        {"--batch", [](TrainArguments& a, auto o, auto v) { a.batch = parseInteger<Index>(o, v); }},
        {"--lr", [](TrainArguments& a, auto o, auto v) { a.learningRate = parseNumber<double>(o, v); }},
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

    if (const std::optional<FieldProblem> problem = firstFieldProblem(settings))
        throw ArgumentError{optionOf(problem->field, args) + ": " + problem->message};

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
