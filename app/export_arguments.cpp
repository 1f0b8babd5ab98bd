#include "app/export_arguments.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string_view>

#include "core/checkpoint/checkpoint.hpp"
#include "core/checkpoint/model_input_loading.hpp"
#include "core/common/limits.hpp"
#include "core/config/examples.hpp"
#include "core/io/file_bytes.hpp"
#include "core/io/weights_file.hpp"
#include "core/pipeline/input_validation.hpp"
#include "core/pipeline/layer_input.hpp"
#include "core/pipeline/trained_layer.hpp"
#include "core/presets/head_presets.hpp"
#include "core/session/apply_weights.hpp"

namespace qkv::app {

namespace {

// A head number as people type it (from 1), checked against h.
Index parseHead(std::string_view option, std::string_view text, Index headCount)
{
    const Index head = parseInteger<Index>(option, text);
    if (head < 1 || head > headCount)
        throw ArgumentError{std::string(option) + ": head " + std::string(text) +
                            " does not exist; heads are numbered 1 to " + std::to_string(headCount)};
    return head - 1;
}

HeadPresetKind parsePreset(std::string_view text)
{
    if (const auto kind = parseName(kHeadPresetNames, text)) return *kind;
    throw ArgumentError{"--preset: '" + std::string(text) + "' is not a preset (" + allowedNames(kHeadPresetNames) +
                        ")"};
}

// Every option that takes a value: its name and what it does to the arguments.
using Setter = std::function<void(SessionArguments&, std::string_view option, std::string_view value)>;
using ConfigSetter = std::function<void(Config&, std::string_view option, std::string_view value)>;

// `decidedByLayer`: the setting a checkpoint layer also decides, if any.
// --head-dim: a whole number, or "auto" for d_k = d_model / h (the paper; the default).
Index parseHeadDim(std::string_view option, std::string_view text)
{
    if (text == "auto") return 0;
    const auto d_k = parseInteger<Index>(option, text);
    if (d_k < 1) throw ArgumentError{std::string(option) + ": d_k must be at least 1 (or auto for d_model / h)"};
    return d_k;
}

Setter setting(ConfigSetter set, std::optional<LayerSetting> decidedByLayer = std::nullopt)
{
    return [set = std::move(set), decidedByLayer](SessionArguments& args, std::string_view option,
                                                  std::string_view value) {
        // Checked now (so a typo is reported at once), applied once the session is known.
        Config probe;
        set(probe, option, value);
        if (decidedByLayer) args.layerSettingsGiven.insert(*decidedByLayer);
        args.settings.push_back(
            [set, option = std::string(option), value = std::string(value)](Config& c) { set(c, option, value); });
    };
}

// The text of --source-file / --target-file: the whole file, at most limits::maxSentenceBytes.
std::string sentenceFile(std::string_view option, std::string_view path)
{
    Expected<std::string> text = readFileBytes(std::string(path), limits::maxSentenceBytes, "a sentence");
    if (!text) throw ReadError{std::string(option) + ": " + text.error()};
    return std::move(*text);
}

const std::vector<std::pair<std::string_view, Setter>>& valueOptions()
{
    static const std::vector<std::pair<std::string_view, Setter>> options = {
        {"--source", setting([](Config& c, auto, auto v) { c.sourceText = v; })},
        {"--target", setting([](Config& c, auto, auto v) { c.targetText = v; })},
        // A long prompt does not fit one argument (Linux takes 128 KiB per argument).
        {"--source-file", setting([](Config& c, auto o, auto v) { c.sourceText = sentenceFile(o, v); })},
        {"--target-file", setting([](Config& c, auto o, auto v) { c.targetText = sentenceFile(o, v); })},
        {"--mode", setting([](Config& c, auto o, auto v) { c.mode = parseChoice(o, v, kAttentionModeNames); },
                           LayerSetting::Mode)},
        {"--d-model",
         setting([](Config& c, auto o, auto v) { c.d_model = parseInteger<Index>(o, v); }, LayerSetting::DModel)},
        {"--heads",
         [](SessionArguments& a, auto o, auto v) {
             static const Setter setHeads = setting(
                 [](Config& c, auto o2, auto v2) { c.headCount = parseInteger<Index>(o2, v2); }, LayerSetting::Heads);
             setHeads(a, o, v);
             a.headCount = parseInteger<Index>(o, v);
         }},
        {"--head-dim", setting([](Config& c, auto o, auto v) { c.headDim = parseHeadDim(o, v); }, LayerSetting::HeadDim)},
        {"--kv-heads", setting([](Config& c, auto o, auto v) { c.keyValueHeadCount = parseInteger<Index>(o, v); },
                               LayerSetting::KeyValueHeads)},
        {"--seed", setting([](Config& c, auto o, auto v) { c.seed = parseInteger<std::uint64_t>(o, v); })},
        {"--init", setting([](Config& c, auto o, auto v) { c.init = parseChoice(o, v, kWeightInitNames); })},
        {"--positional",
         setting([](Config& c, auto o, auto v) { c.positional = parseChoice(o, v, kPositionalEncodingNames); },
                 LayerSetting::Positional)},
        {"--sliding-window", setting([](Config& c, auto o, auto v) {
             const auto w = parseInteger<Index>(o, v);
             if (w < 0) throw ArgumentError{std::string(o) + ": a window of at least 1 key, or 0 for none"};
             c.conventions.slidingWindow = w;
         })},
        {"--rope-base",
         setting([](Config& c, auto o, auto v) { c.conventions.ropeBase = parseNumber<double>(o, v); }, LayerSetting::RopeBase)},
        {"--scale-q", setting([](Config& c, auto o, auto v) { c.scales.query = parseNumber<float>(o, v); })},
        {"--scale-k", setting([](Config& c, auto o, auto v) { c.scales.key = parseNumber<float>(o, v); })},
        {"--scale-v", setting([](Config& c, auto o, auto v) { c.scales.value = parseNumber<float>(o, v); })},
        {"--scale-o", setting([](Config& c, auto o, auto v) { c.scales.output = parseNumber<float>(o, v); })},
        {"--session", [](SessionArguments& a, auto o, auto v) { a.sessionFile = nonEmptyPath(o, v); }},
        {"--weights", [](SessionArguments& a, auto o, auto v) { a.weightsFile = nonEmptyPath(o, v); }},
        {"--layer",
         [](SessionArguments& a, auto o, auto v) {
             if (v.empty()) throw ArgumentError{std::string(o) + ": needs a layer name or index"};
             a.layer = std::string(v);
         }},
        {"--source-embeddings",
         [](SessionArguments& a, auto o, auto v) { a.sourceEmbeddingsFile = nonEmptyPath(o, v); }},
        {"--target-embeddings",
         [](SessionArguments& a, auto o, auto v) { a.targetEmbeddingsFile = nonEmptyPath(o, v); }},
        {"--preset", [](SessionArguments& a, auto, auto v) { a.presets = std::string(v); }},
        {"--preset-sharpness",
         [](SessionArguments& a, auto o, auto v) {
             a.presetSharpness = parseNumber<double>(o, v);
             if (a.presetSharpness <= 0.0) throw ArgumentError{"--preset-sharpness: must be above 0"};
         }},
        {"--low-rank", [](SessionArguments& a, auto o, auto v) { a.lowRank = parseInteger<Index>(o, v); }},
        {"--ablate", [](SessionArguments& a, auto, auto v) { a.ablate = std::string(v); }},
        {"--embeddings",
         [](SessionArguments& a, auto o, auto v) { a.embeddings = parseChoice(o, v, kEmbeddingKindNames); }},
        {"--token-scale",
         [](SessionArguments& a, auto o, auto v) {
             a.tokenScale = parseNumber<float>(o, v);
             if (*a.tokenScale <= 0.0f) throw ArgumentError{"--token-scale: must be above 0"};
         }},
    };
    return options;
}

}  // namespace

bool parseSessionOption(SessionArguments& args, int argc, char** argv, int& i)
{
    const std::string_view option = argv[i];
    if (option == "--no-positional") {  // kept from the first release: --positional none
        args.settings.push_back([](Config& c) { c.positional = PositionalEncoding::None; });
        args.layerSettingsGiven.insert(LayerSetting::Positional);
        return true;
    }
    if (option == "--bias") {
        args.settings.push_back([](Config& c) { c.withBias = true; });
        args.layerSettingsGiven.insert(LayerSetting::Bias);
        return true;
    }
    const auto& options = valueOptions();
    const auto found = std::find_if(options.begin(), options.end(), [&](const auto& o) { return o.first == option; });
    if (found == options.end()) return false;
    found->second(args, option, optionValue(argc, argv, i));
    return true;
}

std::string_view optionValue(int argc, char** argv, int& i)
{
    const std::string_view option = argv[i];
    if (i + 1 >= argc) throw ArgumentError{std::string(option) + ": needs a value"};
    return argv[++i];
}

namespace {

// --rows, --cols: "A:B", half-open from 0 (core/common/position_span.hpp).
PositionSpan parseSpanOption(std::string_view option, std::string_view text)
{
    Expected<PositionSpan> span = parsePositionSpan(text, SpanForm::SpanOnly);
    if (!span) throw ArgumentError{std::string(option) + ": " + span.error()};
    return *span;
}

// --corrupt, --answer and --wrong go together, and with --logit-lens in the whole-model export.
void checkPatchingArguments(const ExportArguments& args)
{
    const bool wholeModel = (args.weightsFile || args.sessionFile) && args.layer && *args.layer == "all";
    if (args.corrupt || args.answer || args.wrong) {
        if (!args.corrupt || !args.answer || !args.wrong)
            throw ArgumentError{std::string(!args.corrupt  ? "--corrupt"
                                            : !args.answer ? "--answer"
                                                           : "--wrong") +
                                ": patching needs all three of --corrupt TEXT (the corrupted prompt), --answer A and "
                                "--wrong B (one token each)"};
        if (!wholeModel)
            throw ArgumentError{
                "--corrupt: patching goes in the whole-model export (--weights MODEL --embeddings "
                "model --layer all, or --session TRAINED --layer all)"};
        if (args.generate) throw ArgumentError{"--corrupt: patching reads the prompt as typed; leave out --generate"};
    }
    if (args.logitLens && !wholeModel)
        throw ArgumentError{
            "--logit-lens: goes in the whole-model export (--weights MODEL --embeddings model "
            "--layer all, or --session TRAINED --layer all)"};
}

}  // namespace

ExportArguments parseExportArguments(int argc, char** argv)
{
    ExportArguments args;
    for (int i = 2; i < argc; ++i) {
        const std::string_view option = argv[i];
        if (option == "--format") {
            const std::string_view v = optionValue(argc, argv, i);
            if (v != kSessionFormatName && !parseName(kExportFormatNames, v))
                throw ArgumentError{"--format: '" + std::string(v) + "' is not one of " +
                                    allowedNames(kExportFormatNames) + ", " + std::string(kSessionFormatName)};
            args.format = v;
        } else if (option == "--out") {
            args.out = nonEmptyPath(option, optionValue(argc, argv, i));
        } else if (option == "--list-layers") {
            args.listLayers = true;
        } else if (option == "--spectrum") {  // singular values even when d_k > 1024 (docs/formats.md, Limits)
            args.options.spectrumAtAnyDk = true;
        } else if (option == "--pool") {
            args.options.pool = parseInteger<Index>(option, optionValue(argc, argv, i));
            if (args.options.pool < 1) throw ArgumentError{"--pool: the number of blocks N must be at least 1"};
        } else if (option == "--rows") {
            args.options.rows = parseSpanOption(option, optionValue(argc, argv, i));
        } else if (option == "--cols") {
            args.options.cols = parseSpanOption(option, optionValue(argc, argv, i));
        } else if (option == "--generate") {
            args.generate = parseInteger<Index>(option, optionValue(argc, argv, i));
            if (*args.generate < 1) throw ArgumentError{"--generate: the number of tokens N must be at least 1"};
        } else if (option == "--circuits") {
            args.circuits = parseInteger<Index>(option, optionValue(argc, argv, i));
            if (*args.circuits < 1)
                throw ArgumentError{"--circuits: K, the tokens listed per prompt token, must be at least 1"};
        } else if (option == "--corrupt" || option == "--answer" || option == "--wrong") {
            std::optional<std::string>& text = option == "--corrupt"  ? args.corrupt
                                               : option == "--answer" ? args.answer
                                                                      : args.wrong;
            text = std::string(optionValue(argc, argv, i));
            if (text->empty()) throw ArgumentError{std::string(option) + ": needs a text"};
        } else if (option == "--logit-lens") {
            args.logitLens = true;
        } else if (option == "--temperature") {
            args.temperature = parseNumber<double>(option, optionValue(argc, argv, i));
            if (*args.temperature < 0.0) throw ArgumentError{"--temperature: must be 0 (greedy) or more"};
        } else if (option == "--max-cells") {
            args.options.maxCells = parseInteger<std::int64_t>(option, optionValue(argc, argv, i));
            if (args.options.maxCells < 1) throw ArgumentError{"--max-cells: must be at least 1"};
        } else if (!parseSessionOption(args, argc, argv, i)) {
            throw ArgumentError{"unknown argument '" + std::string(option) + "' (see qkv-studio export --help)"};
        } else if (option == "--seed") {
            // The session's seed (its generated weights), and with --generate the sampling's.
            args.seed = parseInteger<std::uint64_t>(option, argv[i]);
        }
    }
    if (args.layer && !args.weightsFile && !args.sessionFile)
        throw ArgumentError{"--layer: goes with --weights FILE (a checkpoint) or --session FILE (a trained model)"};
    if (args.temperature && !args.generate) throw ArgumentError{"--temperature: goes with --generate N"};
    if (args.generate && ((!args.weightsFile && !args.sessionFile) || !args.layer || *args.layer != "all"))
        throw ArgumentError{
            "--generate: continues a causal language model's prompt in the whole-model export "
            "(--weights MODEL --embeddings model --layer all, or --session TRAINED --layer all)"};
    if (args.circuits && ((!args.weightsFile && !args.sessionFile) || !args.layer || *args.layer != "all"))
        throw ArgumentError{
            "--circuits: every head's circuits go in the whole-model export "
            "(--weights MODEL --embeddings model --layer all, or --session TRAINED --layer all)"};
    checkPatchingArguments(args);
    if (args.listLayers) {
        if (!args.weightsFile && !args.sessionFile)
            throw ArgumentError{
                "--list-layers: goes with --weights FILE (a checkpoint) or --session FILE (a trained "
                "model)"};
        return args;
    }
    if (args.format.empty())
        throw ArgumentError{"--format: required (" + allowedNames(kExportFormatNames) + " or " +
                            std::string(kSessionFormatName) + ")"};
    if (args.out.empty()) throw ArgumentError{"--out: an output path is required"};
    return args;
}

void applyHeadOptions(const SessionArguments& args, Config& config)
{
    const Index h = config.headCount;
    if (h < 1) return;  // validateConfig reports h
    if (args.lowRank && !args.presets) throw ArgumentError{"--low-rank: goes with --preset low-rank"};
    if (args.presets) {
        std::vector<std::pair<Index, HeadPresetKind>> chosen;
        if (args.presets->find('=') == std::string::npos) {
            const HeadPresetKind kind = parsePreset(*args.presets);
            for (Index head = 0; head < h; ++head) chosen.emplace_back(head, kind);
        } else {
            for (const std::string_view item : splitOnCommas(*args.presets)) {
                const auto equals = item.find('=');
                if (equals == std::string_view::npos)
                    throw ArgumentError{"--preset: '" + std::string(item) + "' is not HEAD=NAME (heads from 1)"};
                chosen.emplace_back(parseHead("--preset", item.substr(0, equals), h),
                                    parsePreset(item.substr(equals + 1)));
            }
        }
        for (const auto& [head, kind] : chosen) {
            HeadPreset preset{head, kind, args.presetSharpness, args.lowRank.value_or(1)};
            if (kind == HeadPresetKind::LowRank && (preset.rank < 1 || preset.rank >= config.d_k()))
                throw ArgumentError{"--low-rank: r = " + std::to_string(preset.rank) +
                                    " must be at least 1 and below d_k = " + std::to_string(config.d_k())};
            config = withPreset(config, preset);
        }
    }
    if (args.ablate) {
        config.ablatedHeads.clear();
        for (const std::string_view item : splitOnCommas(*args.ablate))
            config.ablatedHeads.push_back(parseHead("--ablate", item, h));
        std::sort(config.ablatedHeads.begin(), config.ablatedHeads.end());
        config.ablatedHeads.erase(std::unique(config.ablatedHeads.begin(), config.ablatedHeads.end()),
                                  config.ablatedHeads.end());
    }
    // Explicit choices win over what a preset asked for.
    if (args.embeddings) config.embeddings = *args.embeddings;
    if (args.tokenScale) config.tokenEmbeddingScale = *args.tokenScale;
}

namespace {

void loadWeights(const std::string& file, AttentionWeights loaded, Session& session);

CheckpointOptions checkpointOptions(const SessionArguments& args)
{
    CheckpointOptions options;
    options.headCount = args.headCount.value_or(0);
    return options;
}

// "--positional none", "--bias": how a note names an option that was given.
std::string givenOption(LayerSetting setting, std::string_view value)
{
    return setting == LayerSetting::Bias ? optionFor(setting) : optionFor(setting) + " " + std::string(value);
}

void printNotes(const std::vector<std::string>& notes)
{
    for (const std::string& note : notes) std::fprintf(stderr, "qkv-studio: note: %s\n", note.c_str());
}

// A checkpoint layer, as the app's Open Checkpoint uses it (applyCheckpointLayer): the
// configuration follows what it fixes and the options given for the rest; the notes go to stderr.
void useCheckpointLayer(const std::string& file, CheckpointLayerWeights layer, const SessionArguments& args,
                        Session& session)
{
    // Absolute: a session reads the model's own input again from this checkpoint, maybe from
    // another folder (the app's file dialogs give absolute paths too).
    std::error_code ignored;
    const std::filesystem::path absolute = std::filesystem::absolute(file, ignored);
    CheckpointLayerChoice choice{std::make_shared<const AttentionWeights>(std::move(layer.weights)),
                                 std::move(layer.settings),
                                 absolute.empty() ? file : absolute.lexically_normal().string(),
                                 layer.layer.name,
                                 nullptr,
                                 args.layerSettingsGiven,
                                 givenOption};
    // The command line reads the layer's own input afterwards, when the embeddings ask for it
    // (attachModelInput in sessionFromArguments): they stay what the session and options say.
    const EmbeddingKind embeddings = session.config.embeddings;
    const AppliedCheckpointLayer applied = applyCheckpointLayer(session, std::move(choice));
    session.config.embeddings = embeddings;
    printNotes(layer.notes);
    printNotes(applied.notes);
    if (applied.headChangesCleared)
        printNotes(
            {"the session's presets and switched-off heads were cleared: the layer's heads are its own "
             "(--preset and --ablate apply after it)"});
}

// --weights FILE --layer L: a checkpoint's layer (nn.MultiheadAttention state dicts included),
// by module path or index.
void loadWeightsLayer(const std::string& file, const std::string& layer, const SessionArguments& args, Session& session)
{
    Expected<Checkpoint> checkpoint = openCheckpoint(file, checkpointOptions(args));
    if (!checkpoint) throw ReadError{checkpoint.error()};
    Expected<CheckpointLayer> found = findCheckpointLayer(*checkpoint, layer);
    if (!found) throw ReadError{found.error()};
    Expected<CheckpointLayerWeights> loaded = loadCheckpointLayer(*checkpoint, *found);
    if (!loaded) throw ReadError{loaded.error()};
    useCheckpointLayer(file, std::move(*loaded), args, session);
}

// Weights from --weights: our layout or nn.MultiheadAttention names, else a checkpoint with a
// single layer (with several, the message points to --layer and --list-layers).
void loadWeightsFile(const std::string& file, const SessionArguments& args, Session& session)
{
    if (args.layer) return loadWeightsLayer(file, *args.layer, args, session);
    Expected<AttentionWeights> weights =
        file.ends_with(".json") ? Expected<AttentionWeights>(Error{}) : loadAttentionWeights(file);
    if (weights) return loadWeights(file, std::move(*weights), session);
    Expected<Checkpoint> checkpoint = openCheckpoint(file, checkpointOptions(args));
    const std::string hint = "; choose one with --layer NAME|INDEX (--list-layers lists them)";
    if (!checkpoint) {
        const std::string& error = weights.error().empty() ? checkpoint.error() : weights.error();
        throw ReadError{error.find("choose one") != std::string::npos ? error + " (--layer NAME)" : error};
    }
    if (checkpoint->layers.size() > 1) {
        std::string names;
        for (std::size_t i = 0; i < checkpoint->layers.size() && i < 6; ++i)
            names += (i > 0 ? ", '" : "'") + checkpoint->layers[i].name + "'";
        if (checkpoint->layers.size() > 6) names += ", ...";
        throw ReadError{file + ": holds " + std::to_string(checkpoint->layers.size()) + " attention layers (" + names +
                        ")" + hint};
    }
    Expected<CheckpointLayerWeights> loaded = loadCheckpointLayer(*checkpoint, checkpoint->layers.front());
    if (!loaded) throw ReadError{loaded.error()};
    useCheckpointLayer(file, std::move(*loaded), args, session);
}

// Weights in our layout, as the app's Load Weights uses them (applyWeightsFile): d_model, the
// biases and g follow the file, h moves to the nearest valid head count (with a note).
void loadWeights(const std::string& file, AttentionWeights loaded, Session& session)
{
    printNotes(applyWeightsFile(session, std::make_shared<const AttentionWeights>(std::move(loaded)), file));
}

// --session FILE --layer L: one of the trained model's attention layers; its kind decides the
// mode (as a checkpoint layer's does), with a note when --mode asked for another.
void useTrainedLayer(const SessionArguments& args, Session& session)
{
    if (!session.model)
        throw ArgumentError{"--layer: " + *args.sessionFile +
                            " holds no trained model; --layer picks a layer of a "
                            "trained model's session or of a checkpoint (--weights FILE)"};
    Expected<Index> layer = findTrainedLayer(*session.model, *args.layer);
    if (!layer) throw ReadError{*args.sessionFile + ": " + layer.error()};
    const AttentionLayerInfo info =
        attentionLayers(session.model->parameters.spec).at(static_cast<std::size_t>(*layer));
    if (args.layerSettingsGiven.count(LayerSetting::Mode) && session.config.mode != info.kind)
        std::fprintf(stderr,
                     "qkv-studio: note: --mode %s was not used: the trained model's layer '%s' is %s attention\n",
                     std::string(modeName(session.config.mode)).c_str(), info.name.c_str(),
                     std::string(modeName(info.kind)).c_str());
    session.modelLayer = *layer;
    session.config.mode = info.kind;
}

std::shared_ptr<const MatrixF> loadEmbeddings(const std::string& file)
{
    Expected<MatrixF> matrix = loadEmbeddingMatrix(file);
    if (!matrix) throw ReadError{matrix.error()};
    return std::make_shared<const MatrixF>(std::move(*matrix));
}

}  // namespace

std::string checkpointLayerListing(const SessionArguments& args)
{
    Expected<Checkpoint> checkpoint = openCheckpoint(*args.weightsFile, checkpointOptions(args));
    if (!checkpoint) throw ReadError{checkpoint.error()};
    std::string text;
    for (const CheckpointLayer& layer : checkpoint->layers) text += checkpointLayerLine(layer) + "\n";
    return text;
}

std::string trainedLayerListing(const SessionArguments& args)
{
    Expected<Session> session = readSession(*args.sessionFile);
    if (!session) throw ReadError{session.error()};
    if (!session->model)
        throw ArgumentError{"--list-layers: " + *args.sessionFile +
                            " holds no trained model; --list-layers lists a "
                            "trained model's layers or a checkpoint's (--weights FILE)"};
    const ModelSpec& spec = session->model->parameters.spec;
    const std::vector<AttentionLayerInfo> layers = attentionLayers(spec);
    std::string text;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        // The checkpoint listing's own line, so that both list the same columns the same way.
        CheckpointLayer line;
        line.index = static_cast<Index>(i);
        line.name = layers[i].name;
        line.kind = layers[i].kind;
        line.headCount = spec.headCount;
        line.keyValueHeadCount = spec.headCount;
        line.d_model = spec.d_model;
        text += checkpointLayerLine(line) + "\n";
    }
    return text;
}

Session sessionFromArguments(const SessionArguments& args)
{
    Session session;
    if (args.sessionFile) {
        Expected<Session> opened = readSession(*args.sessionFile);
        if (!opened) throw ReadError{opened.error()};
        session = std::move(*opened);
    } else {
        session.config = builtInExample();
    }
    for (const auto& set : args.settings) set(session.config);
    if (args.layer && !args.weightsFile) useTrainedLayer(args, session);
    if (args.weightsFile) loadWeightsFile(*args.weightsFile, args, session);
    if (args.sourceEmbeddingsFile) {
        session.sourceEmbeddings = loadEmbeddings(*args.sourceEmbeddingsFile);
        session.sourceEmbeddingsFile = *args.sourceEmbeddingsFile;
    }
    if (args.targetEmbeddingsFile) {
        session.targetEmbeddings = loadEmbeddings(*args.targetEmbeddingsFile);
        session.targetEmbeddingsFile = *args.targetEmbeddingsFile;
    }
    applyHeadOptions(args, session.config);
    // --embeddings model, or a session that used it: the checkpoint's own first-layer input.
    const bool fromCheckpoint = !session.weightsProvenance.file.empty() && !session.weightsProvenance.layer.empty();
    if (Status attached = attachModelInput(session); !attached) {
        if (fromCheckpoint) throw ReadError{"--embeddings model: " + attached.error()};
        throw ArgumentError{"--embeddings model: " + attached.error() + " (--weights CHECKPOINT --layer NAME|INDEX)"};
    }
    if (session.modelInput)
        std::fprintf(stderr, "qkv-studio: note: the layer reads the model's own input: %s.\n",
                     session.modelInput->description().c_str());
    return session;
}

std::string configurationProblem(const Session& session, const std::vector<ValidationIssue>& issues)
{
    if (issues.empty()) return {};
    // A trained model's weights come with its session, not from --weights.
    const ConfigField field = issues.front().field;
    const std::string option = session.model && field == ConfigField::Weights ? "--session" : optionFor(field);
    return option + ": " + issues.front().message;
}

std::string optionFor(ConfigField field)
{
    switch (field) {
    case ConfigField::Source: return "--source";
    case ConfigField::Target: return "--target";
    case ConfigField::Mode: return "--mode";
    case ConfigField::DModel: return "--d-model";
    case ConfigField::Heads: return "--heads";
    case ConfigField::HeadDim: return "--head-dim";
    case ConfigField::KeyValueHeads: return "--kv-heads";
    case ConfigField::Weights: return "--weights";
    case ConfigField::Embeddings: return "--source-embeddings/--target-embeddings";
    case ConfigField::Positional: return "--positional";
    case ConfigField::Presets: return "--preset";
    case ConfigField::Ablation: return "--ablate";
    }
    return "export";
}

std::string optionFor(LayerSetting setting)
{
    switch (setting) {
    case LayerSetting::Mode: return optionFor(ConfigField::Mode);
    case LayerSetting::DModel: return optionFor(ConfigField::DModel);
    case LayerSetting::Heads: return optionFor(ConfigField::Heads);
    case LayerSetting::KeyValueHeads: return optionFor(ConfigField::KeyValueHeads);
    case LayerSetting::HeadDim: return optionFor(ConfigField::HeadDim);
    case LayerSetting::Bias: return "--bias";
    case LayerSetting::Positional: return optionFor(ConfigField::Positional);
    case LayerSetting::RopeBase: return "--rope-base";
    }
    return "export";
}

}  // namespace qkv::app
