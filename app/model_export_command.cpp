#include "app/model_export_command.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string_view>
#include <vector>

#include "core/circuits/head_circuits.hpp"
#include "core/export/model_export.hpp"
#include "core/export/result_export.hpp"
#include "core/pipeline/logit_lens.hpp"
#include "core/pipeline/patching.hpp"
#include "core/pipeline/generation.hpp"
#include "core/pipeline/pretrained_run.hpp"
#include "core/pretrained/model_memory.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "core/pretrained/trained_model_recipe.hpp"
#include "core/session/session.hpp"

namespace qkv::app {

namespace {

constexpr std::string_view kAllLayers = "all";

int fail(int status, const std::string& message)
{
    std::fprintf(stderr, "qkv-studio export: %s\n", message.c_str());
    return status;
}

bool namesModelHeads(const std::optional<std::string>& ablate)
{
    return ablate && ablate->find('.') != std::string::npos;
}

// --ablate: LAYER.HEAD anywhere in the model; a bare HEAD is one of the chosen layer's heads.
std::set<ModelHead> ablatedHeads(const PretrainedModel& model, const ExportArguments& args,
                                 std::optional<Index> chosenLayer)
{
    std::set<ModelHead> heads;
    if (!args.ablate) return heads;
    for (const std::string_view item : splitOnCommas(*args.ablate)) {
        if (item.find('.') == std::string_view::npos) {
            if (!chosenLayer)
                throw ArgumentError{"--ablate: '" + std::string(item) +
                                    "' names no layer; with --layer all, name heads as LAYER.HEAD (e.g. 3.2)"};
            const std::string withLayer =
                std::to_string(model.layersInModelOrder[static_cast<std::size_t>(*chosenLayer)].index) + "." +
                std::string(item);
            Expected<ModelHead> head = parseModelHead(model, withLayer);
            if (!head) throw ArgumentError{"--ablate: " + head.error()};
            heads.insert(*head);
            continue;
        }
        Expected<ModelHead> head = parseModelHead(model, item);
        if (!head) throw ArgumentError{"--ablate: " + head.error()};
        heads.insert(*head);
    }
    return heads;
}

// The typed sentences and view settings, as the one-layer export reads them without a checkpoint.
Config baseConfig(const ExportArguments& args)
{
    SessionArguments plain = args;
    plain.weightsFile.reset();
    plain.layer.reset();
    plain.ablate.reset();
    plain.embeddings.reset();
    plain.headCount.reset();
    return sessionFromArguments(plain).config;
}

std::string absolutePath(const std::string& file)
{
    std::error_code ignored;
    const std::filesystem::path absolute = std::filesystem::absolute(file, ignored);
    return absolute.empty() ? file : absolute.lexically_normal().string();
}

int exportOneLayer(const std::shared_ptr<const PretrainedModel>& model, const ModelRun& run, Index layer,
                   const ModelSentences& sentences, const Config& base, const ExportArguments& args)
{
    ExportFormat format = ExportFormat::Json;
    parseExportFormat(args.format, format);
    const Expected<std::shared_ptr<const Result>> layerResult = pretrainedLayerResult(model, run, layer, sentences, base);
    if (!layerResult) return fail(1, layerResult.error());
    const std::shared_ptr<const Result>& result = *layerResult;
    ExportProvenance provenance;
    provenance.weights = absolutePath(*args.weightsFile);
    provenance.weightsLayer = run.layer(layer).layer.name;
    provenance.sourceEmbeddings = provenance.targetEmbeddings = "model";
    if (Status written = exportResult(*result, format, args.out, provenance, args.options); !written)
        return fail(1, written.error());
    return 0;
}

// The checkpoint --weights names, whole. Absolute: the JSON names the checkpoint it came from,
// wherever it is read.
Expected<PretrainedModel> openCheckpointModel(const ExportArguments& args)
{
    CheckpointOptions options;
    options.headCount = args.headCount.value_or(0);
    return openPretrainedModel(absolutePath(*args.weightsFile), options);
}

// --circuits K: every self-attention head's circuits for the prompt's distinct tokens (BOS
// included, as the model reads them), on the export's threads.
Expected<std::vector<HeadCircuits>> promptCircuits(const PretrainedModel& model,
                                                   const std::vector<std::int32_t>& promptIds, Index k)
{
    Expected<CircuitBasis> basis = circuitBasis(model);
    if (!basis) return Error{basis.error()};
    return modelCircuits(model, *basis, distinctTokenIds(promptIds), k);
}

// The trained model a session holds, as the whole model the app's Model and Predict tabs run
// (trained_model_recipe.hpp); its file is the session's (absolute).
Expected<PretrainedModel> trainedModelOfSession(const std::string& file)
{
    Expected<Session> session = readSession(file);
    if (!session) return Error{session.error()};
    if (!session->model)
        return Error{"--layer all: " + file + " holds no trained model; the whole-model export runs a trained "
                     "model's session or a checkpoint (--weights CKPT)"};
    Expected<PretrainedModel> model = pretrainedModelOf(*session->model);
    if (!model) return Error{file + ": " + model.error()};
    model->checkpoint.path = absolutePath(file);
    return model;
}

// --corrupt TEXT --answer A --wrong B: both grids of activation patching (patching.hpp). Refusals
// are the user's input: exit status 2.
Expected<PatchingGrids> exportPatching(const PretrainedModel& model, const ModelSentences& clean, const Config& base,
                                       const ExportArguments& args)
{
    if (Status s = checkPatchingModel(model); !s) return Error{"--corrupt: " + s.error()};
    Expected<ModelSentences> corrupt = modelSentences(model, base.sourceText, *args.corrupt);
    if (!corrupt) return Error{"--corrupt: " + corrupt.error()};
    Expected<std::int32_t> answer = singleTokenId(model, *args.answer, "answer");
    if (!answer) return Error{"--answer: " + answer.error()};
    Expected<std::int32_t> wrong = singleTokenId(model, *args.wrong, "wrong token");
    if (!wrong) return Error{"--wrong: " + wrong.error()};
    Expected<PatchingRuns> runs = patchingRuns(model, clean.tokens.ids, corrupt->tokens.ids);
    if (!runs) return Error{"--corrupt: " + runs.error()};
    Expected<PatchingReadouts> readouts = patchingReadouts(model, *runs);
    if (!readouts) return Error{"--corrupt: " + readouts.error()};
    Expected<PatchingGrids> grids = patchingGrids(model, *readouts, *answer, *wrong);
    if (!grids) return Error{"--answer/--wrong: " + grids.error()};
    return grids;
}

}  // namespace

bool wantsWholeModel(const ExportArguments& args)
{
    if (!args.layer || args.format == kSessionFormatName) return false;
    if (!args.weightsFile) return args.sessionFile && *args.layer == kAllLayers;  // a trained model, whole
    return *args.layer == kAllLayers || (args.embeddings && *args.embeddings == EmbeddingKind::Model) ||
           namesModelHeads(args.ablate);
}

std::optional<int> runWholeModelExport(const ExportArguments& args)
{
    const bool allLayers = *args.layer == kAllLayers;
    if (allLayers && args.format != "json")
        return fail(2, "--format: --layer all writes one JSON file (--format json)");
    Expected<PretrainedModel> opened =
        args.weightsFile ? openCheckpointModel(args) : trainedModelOfSession(*args.sessionFile);
    if (!opened) {
        if (args.weightsFile && !allLayers && !namesModelHeads(args.ablate)) return std::nullopt;  // the one-layer path
        return fail(1, opened.error());
    }
    const auto model = std::make_shared<const PretrainedModel>(std::move(*opened));
    for (const std::string& note : model->notes) std::fprintf(stderr, "qkv-studio: note: %s\n", note.c_str());
    try {
        std::optional<Index> layer;
        if (!allLayers) {
            Expected<Index> found = findModelLayer(*model, *args.layer);
            if (!found) return fail(1, found.error());
            layer = *found;
        }
        RunOptions run;
        run.ablatedHeads = ablatedHeads(*model, args, layer);
        const Config base = baseConfig(args);
        // The sentence a decoder-only model reads is the target (pretrained_run.hpp).
        const char* sentenceOption = model->recipe.causal() ? "--target" : "--source";
        Expected<ModelSentences> sentences = modelSentences(*model, base.sourceText, base.targetText);
        if (!sentences) return fail(2, std::string(sentenceOption) + ": " + sentences.error());
        std::optional<std::vector<HeadCircuits>> circuits;
        if (args.circuits) {
            if (const std::string reason = noCircuitsReason(*model); !reason.empty())
                return fail(2, "--circuits: " + reason);
            Expected<std::vector<HeadCircuits>> computed =
                promptCircuits(*model, sentences->tokens.ids, *args.circuits);
            if (!computed) return fail(2, "--circuits: " + computed.error());
            circuits = std::move(*computed);
        }
        std::optional<PatchingGrids> patching;
        if (args.corrupt) {
            Expected<PatchingGrids> grids = exportPatching(*model, *sentences, base, args);
            if (!grids) return fail(2, grids.error());
            patching = std::move(*grids);
        }
        if (args.logitLens && !model->recipe.causal())
            return fail(2, "--logit-lens: reads a causal language model's readout after each layer; the " +
                               std::string(familyName(model->recipe.family)) + " model is not one");
        if (args.logitLens && !model->hasReadout())
            return fail(2, "--logit-lens: " + model->checkpoint.path + " has no readout (no logits over the vocabulary)");
        // --generate: the prompt continued first; the document then covers every token.
        std::vector<GeneratedToken> generated;
        std::shared_ptr<const ModelRun> generationRun;
        if (args.generate) {
            GenerationOptions generation;
            generation.newTokens = *args.generate;
            generation.temperature = args.temperature.value_or(0.0);
            generation.seed = args.seed.value_or(0);
            generation.run.ablatedHeads = run.ablatedHeads;
            if (Status s = checkGeneration(*model, static_cast<Index>(sentences->tokens.ids.size()), generation); !s)
                return fail(2, "--generate: " + s.error());
            Expected<Generation> done = generateTokens(*model, sentences->tokens.ids, generation);
            if (!done) return fail(1, "--generate: " + done.error());
            generated = done->generated;
            generationRun = done->lastRun;
            *sentences = withGeneratedTokens(*model, std::move(*sentences), generated);
        }
        // How the maps are held: whole, or streamed (--pool, or a region above --max-cells), as
        // for one layer (exportPlanForSize), at the longest sequence the model reads.
        ExportFormat format = ExportFormat::Json;
        parseExportFormat(args.format, format);
        const auto longest = static_cast<Index>(std::max(sentences->tokens.ids.size(), sentences->tokens.decoderIds.size()));
        const Expected<AnalysisPlan> plan = exportPlanForSize(format, base, args.options, longest, longest);
        if (!plan) return fail(2, plan.error());
        run.pooledBlocks = plan->pooledBlocks;
        // A region of maps that fit --max-cells but whose every layer together would not fit a
        // run: streamed as well (the region is then recomputed exactly, not sliced).
        if (!plan->streamed() && args.options.region() && !modelRunFits(*model, sentences->tokens, run))
            run.pooledBlocks = 1;
        run.pooledValueNorms = run.pooledBlocks > 0;
        if (layer) {
            run.lastLayer = *layer;  // one layer: nothing after it
        } else {
            run.logitRows = LogitRows::Chosen;  // the rows the predictions read (a masked LM's [MASK]s)
            run.logitPositions = predictionPositions(*model, *sentences);
            run.previous = generationRun;  // the generated tokens' rows are computed, the rest kept
        }
        Expected<ModelRun> ran = runPretrainedModel(*model, sentences->tokens, run);
        if (!ran) return fail(2, std::string(sentenceOption) + ": " + ran.error());
        if (layer) return exportOneLayer(model, *ran, *layer, *sentences, base, args);
        std::optional<std::vector<LogitLensLayer>> lens;
        if (args.logitLens) {
            Expected<std::vector<LogitLensLayer>> computed = logitLens(*model, *ran);
            if (!computed) return fail(2, "--logit-lens: " + computed.error());
            lens = std::move(*computed);
        }
        const ModelExportAnalyses analyses{patching ? &*patching : nullptr, lens ? &*lens : nullptr};
        if (Status written = exportModelJson(model, *ran, *sentences, base, args.out, args.options, generated,
                                             circuits ? &*circuits : nullptr, analyses);
            !written)
            return fail(1, written.error());
        return 0;
    } catch (const ArgumentError& error) {
        return fail(2, error.message);
    } catch (const ReadError& error) {
        return fail(1, error.message);
    }
}

}  // namespace qkv::app
