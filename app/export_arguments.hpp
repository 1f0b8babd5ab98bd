#pragma once
// The export command's arguments, parsed into a Session (the one thing both the app and the
// command line compute from) plus where and how to write it.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/config/validation.hpp"
#include "core/export/result_export.hpp"
#include "core/session/session.hpp"

namespace qkv::app {

// A bad argument: one line naming the option, exit status 2.
struct ArgumentError {
    std::string message;
};

struct ExportArguments {
    std::string format;  // json, csv, npy or session
    std::string out;
    std::optional<std::string> sessionFile;
    std::optional<std::string> weightsFile;
    std::optional<std::string> sourceEmbeddingsFile;
    std::optional<std::string> targetEmbeddingsFile;
    // Settings given on the command line, applied in order over the session (or the built-in
    // example) once the files are read.
    std::vector<std::function<void(Config&)>> settings;
    std::optional<std::string> presets;  // NAME, or 1=NAME,3=NAME
    double presetSharpness = defaultPresetSharpness;
    std::optional<Index> lowRank;
    std::optional<std::string> ablate;   // 2,3
    std::optional<EmbeddingKind> embeddings;
    std::optional<float> tokenScale;
    ExportOptions options;  // --spectrum
};

// Throws ArgumentError for an unknown option, a missing or malformed value, or a missing
// --format / --out.
ExportArguments parseExportArguments(int argc, char** argv);

// Applies --preset/--preset-sharpness/--low-rank, --ablate, --embeddings and --token-scale to
// `config` (whose d_model and h are final). Throws ArgumentError naming the option.
void applyHeadOptions(const ExportArguments& args, Config& config);

// The option a validation issue belongs to ("--heads", "--preset", ...).
std::string optionFor(ConfigField field);

}  // namespace qkv::app
