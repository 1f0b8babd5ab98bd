#include "app/export_command.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "core/config/examples.hpp"
#include "core/config/validation.hpp"
#include "core/export/result_export.hpp"
#include "core/io/temporary_files.hpp"
#include "core/io/weights_file.hpp"
#include "core/pipeline/compute.hpp"

namespace qkv::app {

namespace {

struct ExportArguments {
    Config config = builtInExample();
    ExportFormat format = ExportFormat::Json;
    bool formatGiven = false;
    ExportOptions options;
    std::string out;
    std::optional<std::string> weightsFile;
    std::optional<std::string> sourceEmbeddingsFile;
    std::optional<std::string> targetEmbeddingsFile;
};

// A bad argument: one line naming it, exit status 2.
struct ArgumentError {
    std::string message;
};

template <class Integer>
Integer parseInteger(std::string_view option, std::string_view text)
{
    Integer value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size())
        throw ArgumentError{std::string(option) + ": '" + std::string(text) + "' is not a whole number"};
    return value;
}

float parseScale(std::string_view option, std::string_view text)
{
    float value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value))
        throw ArgumentError{std::string(option) + ": '" + std::string(text) + "' is not a number"};
    return value;
}

// A file or folder argument: an empty one is a bad argument, not a file that cannot be read.
std::string pathArgument(std::string_view option, std::string_view text)
{
    if (text.empty()) throw ArgumentError{std::string(option) + ": the path is empty"};
    return std::string(text);
}

std::string optionFor(ConfigField field)
{
    switch (field) {
    case ConfigField::Source: return "--source";
    case ConfigField::Target: return "--target";
    case ConfigField::Mode: return "--mode";
    case ConfigField::DModel: return "--d-model";
    case ConfigField::Heads: return "--heads";
    case ConfigField::KeyValueHeads: return "--heads";
    case ConfigField::Weights: return "--weights";
    case ConfigField::Embeddings: return "--source-embeddings/--target-embeddings";
    }
    return "export";
}

ExportArguments parseArguments(int argc, char** argv)
{
    ExportArguments args;
    for (int i = 2; i < argc; ++i) {
        const std::string_view option = argv[i];
        const auto next = [&]() -> std::string_view {
            if (i + 1 >= argc) throw ArgumentError{std::string(option) + ": needs a value"};
            return argv[++i];
        };
        if (option == "--source") args.config.sourceText = next();
        else if (option == "--target") args.config.targetText = next();
        else if (option == "--mode") {
            const std::string_view mode = next();
            if (!parseMode(mode, args.config.mode))
                throw ArgumentError{"--mode: '" + std::string(mode) + "' is not one of self, causal, cross"};
        } else if (option == "--d-model") args.config.d_model = parseInteger<Index>(option, next());
        else if (option == "--heads") args.config.headCount = parseInteger<Index>(option, next());
        else if (option == "--seed") args.config.seed = parseInteger<std::uint64_t>(option, next());
        else if (option == "--no-positional") args.config.positional = PositionalEncoding::None;
        else if (option == "--bias") args.config.withBias = true;
        else if (option == "--init") {
            const std::string_view init = next();
            if (init == "xavier") args.config.init = WeightInit::XavierUniform;
            else if (init == "normal") args.config.init = WeightInit::Normal;
            else throw ArgumentError{"--init: '" + std::string(init) + "' is not one of xavier, normal"};
        } else if (option == "--scale-q") args.config.scales.query = parseScale(option, next());
        else if (option == "--scale-k") args.config.scales.key = parseScale(option, next());
        else if (option == "--scale-v") args.config.scales.value = parseScale(option, next());
        else if (option == "--scale-o") args.config.scales.output = parseScale(option, next());
        else if (option == "--weights") args.weightsFile = pathArgument(option, next());
        else if (option == "--source-embeddings") args.sourceEmbeddingsFile = pathArgument(option, next());
        else if (option == "--target-embeddings") args.targetEmbeddingsFile = pathArgument(option, next());
        else if (option == "--format") {
            const std::string_view format = next();
            if (!parseExportFormat(format, args.format))
                throw ArgumentError{"--format: '" + std::string(format) + "' is not one of json, csv, npy"};
            args.formatGiven = true;
        } else if (option == "--out") args.out = pathArgument(option, next());
        else if (option == "--spectrum") args.options.spectrumAtAnyDk = true;
        else throw ArgumentError{"unknown argument '" + std::string(option) + "' (see qkv-studio export --help)"};
    }
    if (args.out.empty()) throw ArgumentError{"--out: an output path is required"};
    if (!args.formatGiven) throw ArgumentError{"--format: required (json, csv or npy)"};
    return args;
}

int fail(int status, const std::string& message)
{
    std::fprintf(stderr, "qkv-studio export: %s\n", message.c_str());
    return status;
}

}  // namespace

const char* exportUsage()
{
    return "Usage: qkv-studio export [options] --format json|csv|npy --out PATH\n"
           "\n"
           "Computes multi-head attention without a display and writes it for other tools.\n"
           "Defaults are the built-in example (an English source, its French target, cross mode).\n"
           "\n"
           "  --source TEXT              source sentence (keys and values in cross mode)\n"
           "  --target TEXT              target sentence (queries in cross mode)\n"
           "  --mode self|causal|cross   self: source to source; causal: target to target, masked;\n"
           "                             cross: queries from the target, keys/values from the source\n"
           "  --d-model N                model width (default 64)\n"
           "  --heads H                  number of heads h; must divide d_model (default 4)\n"
           "  --seed S                   seed of generated embeddings and weights (default 2017)\n"
           "  --init xavier|normal       weight initialisation (default xavier)\n"
           "  --bias                     add (zero-initialised) biases\n"
           "  --scale-q/-k/-v/-o X       multiply W^Q, W^K, W^V or W^O by X\n"
           "  --no-positional            no sinusoidal positional encoding\n"
           "  --weights FILE             safetensors: W_Q W_K W_V W_O [b_Q ...] or PyTorch\n"
           "                             nn.MultiheadAttention names (in_proj_weight, ...)\n"
           "  --source-embeddings FILE   .npy (n x d_model) replacing the generated source X\n"
           "  --target-embeddings FILE   .npy (n x d_model) replacing the generated target X\n"
           "  --format json|csv|npy      json: one document (docs/formats.md); csv: one row per\n"
           "                             head, query and key; npy: a folder of arrays\n"
           "  --out PATH                 output file (folder for npy), replaced atomically\n"
           "  --spectrum                 singular values of every W_i even when d_k > 1024\n"
           "                             (d_k = 4096: ~35 s and ~1.1 GiB more)\n"
           "\n"
           "Exit status: 0 written, 1 a file could not be read, computed or written, 2 bad argument;\n"
           "interrupted (SIGINT, SIGTERM): its temporary files are removed, nothing is left at --out.\n";
}

int runExportCommand(int argc, char** argv)
{
    for (int i = 2; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
            std::fputs(exportUsage(), stdout);
            return 0;
        }
    }
    ExportArguments args;
    try {
        args = parseArguments(argc, argv);
    } catch (const ArgumentError& error) {
        return fail(2, error.message);
    }
    // From here on a SIGINT/SIGTERM removes this export's temporaries before the process ends.
    removeTemporariesOnSignals();
    // A device, FIFO or foreign folder at --out is refused before minutes of computing.
    if (Status writable = checkExportTarget(args.format, args.out); !writable) return fail(1, writable.error());

    UserInputs inputs;
    ExportProvenance provenance;
    if (args.weightsFile) {
        Expected<AttentionWeights> weights = loadAttentionWeights(*args.weightsFile);
        if (!weights) return fail(1, weights.error());
        // The file decides d_model and whether there are biases.
        args.config.d_model = weights->d_model();
        args.config.withBias = weights->hasBias();
        inputs.weights = std::make_shared<const AttentionWeights>(std::move(*weights));
        provenance.weights = *args.weightsFile;
    }
    const auto loadEmbeddings = [&](const std::optional<std::string>& file, std::shared_ptr<const MatrixF>& into,
                                    std::string& record) -> std::optional<std::string> {
        if (!file) return std::nullopt;
        Expected<MatrixF> matrix = loadEmbeddingMatrix(*file);
        if (!matrix) return matrix.error();
        into = std::make_shared<const MatrixF>(std::move(*matrix));
        record = *file;
        return std::nullopt;
    };
    if (auto error = loadEmbeddings(args.sourceEmbeddingsFile, inputs.sourceEmbeddings, provenance.sourceEmbeddings))
        return fail(1, *error);
    if (auto error = loadEmbeddings(args.targetEmbeddingsFile, inputs.targetEmbeddings, provenance.targetEmbeddings))
        return fail(1, *error);

    // Configuration problems are argument problems: name the option.
    SentenceOverrides overrides;
    if (inputs.sourceEmbeddings) overrides.sourceRows = inputs.sourceEmbeddings->rows();
    if (inputs.targetEmbeddings) overrides.targetRows = inputs.targetEmbeddings->rows();
    const AnalysisPlan plan = exportAnalysisPlan(args.format, args.config, args.options);
    if (const auto issues = validateConfig(args.config, overrides, plan); !issues.empty())
        return fail(2, optionFor(issues.front().field) + ": " + issues.front().message);

    const Expected<std::shared_ptr<const Result>> result = compute(args.config, inputs);
    if (!result) return fail(1, result.error());
    if (Status written = exportResult(**result, args.format, args.out, provenance, args.options); !written)
        return fail(1, written.error());
    return 0;
}

}  // namespace qkv::app
