#pragma once
// The command line's description of a session (shared by `export` and `figure`: one table of
// options), parsed into a Session (the one thing both the app and the command line compute
// from), and the export command's own arguments: where and how to write it.

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "app/argument_values.hpp"
#include "core/checkpoint/checkpoint.hpp"
#include "core/config/config.hpp"
#include "core/config/validation.hpp"
#include "core/export/result_export.hpp"
#include "core/session/session.hpp"

namespace qkv::app {

// --session, the settings (--source ... --scale-o, --bias, --no-positional), the files
// (--weights, --source-embeddings, --target-embeddings) and the head options (--preset ...).
struct SessionArguments {
    std::optional<std::string> sessionFile;
    std::optional<std::string> weightsFile;
    // --layer NAME|INDEX: the checkpoint layer of --weights (docs/checkpoints.md), or the trained
    // model's layer of a --session.
    std::optional<std::string> layer;
    // --heads as given: h for a checkpoint whose config.json does not say it.
    std::optional<Index> headCount;
    std::optional<std::string> sourceEmbeddingsFile;
    std::optional<std::string> targetEmbeddingsFile;
    // Settings given on the command line, applied in order over the session (or the built-in
    // example) once the files are read.
    std::vector<std::function<void(Config&)>> settings;
    // Which of them a checkpoint layer also decides: they stand unless the checkpoint fixes them
    // (then a note says which option was not used).
    std::set<LayerSetting> layerSettingsGiven;
    std::optional<std::string> presets;  // NAME, or 1=NAME,3=NAME
    double presetSharpness = defaultPresetSharpness;
    std::optional<Index> lowRank;
    std::optional<std::string> ablate;  // 2,3
    std::optional<EmbeddingKind> embeddings;
    std::optional<float> tokenScale;
};

// `export --format session`: the session itself instead of a computed result (the result
// formats are kExportFormatNames).
inline constexpr std::string_view kSessionFormatName = "session";

struct ExportArguments : SessionArguments {
    std::string format;  // a name of kExportFormatNames, or kSessionFormatName
    std::string out;
    ExportOptions options;    // --spectrum
    bool listLayers = false;  // --list-layers: print the checkpoint's (or trained model's) layers
    // --generate N [--temperature T] [--seed S]: a causal LM's prompt continued N tokens before
    // the whole model is written (--layer all). --seed is also the session's own (its generated
    // weights), read by parseSessionOption as well.
    std::optional<Index> generate;
    std::optional<double> temperature;
    std::optional<std::uint64_t> seed;
    // --circuits K: every head's QK and OV top K over the vocabulary for the prompt's distinct
    // tokens, and its OV eigenvalues and copying score, in the whole-model export (--layer all;
    // core/circuits/head_circuits.hpp).
    std::optional<Index> circuits;
    // --corrupt TEXT --answer A --wrong B: activation patching between the prompt and TEXT (as
    // many tokens), measured by logit(A) - logit(B) at the last position (core/pipeline/patching.hpp);
    // --logit-lens: what each layer would predict (core/pipeline/logit_lens.hpp). Whole-model
    // export of a causal language model only.
    std::optional<std::string> corrupt;
    std::optional<std::string> answer;
    std::optional<std::string> wrong;
    bool logitLens = false;
};

// If argv[i] is a session option, parses it (and its value, advancing i) into `args` and
// returns true; false for any other argument. Throws ArgumentError for a missing or
// malformed value.
bool parseSessionOption(SessionArguments& args, int argc, char** argv, int& i);
// The value after argv[i] (advancing i); throws ArgumentError "OPTION: needs a value".
std::string_view optionValue(int argc, char** argv, int& i);

// Throws ArgumentError for an unknown option, a missing or malformed value, or a missing
// --format / --out.
ExportArguments parseExportArguments(int argc, char** argv);

// Applies --preset/--preset-sharpness/--low-rank, --ablate, --embeddings and --token-scale to
// `config` (whose d_model and h are final). Throws ArgumentError naming the option.
void applyHeadOptions(const SessionArguments& args, Config& config);

// The attention layers --weights holds, one "index\tname\tkind\th\tg\td_model" line each.
// Throws ReadError.
std::string checkpointLayerListing(const SessionArguments& args);
// The trained model's attention layers in the --session file, in the same lines. Throws
// ReadError, or ArgumentError when the session holds no trained model.
std::string trainedLayerListing(const SessionArguments& args);

// The session the arguments describe: --session (or the built-in example), then the settings
// given on the command line, then the files, then presets and ablations. Throws ArgumentError
// or ReadError.
Session sessionFromArguments(const SessionArguments& args);
// "--heads: ..." for the first of the problems validation found in the session's configuration
// (ComputeRequest::issues, which count the memory the export's analyses add), or empty.
std::string configurationProblem(const Session& session, const std::vector<ValidationIssue>& issues);

// The option a validation issue belongs to ("--heads", "--preset", ...).
std::string optionFor(ConfigField field);
// The option that sets what a checkpoint layer also decides ("--positional", "--bias", ...).
std::string optionFor(LayerSetting setting);

}  // namespace qkv::app
