#include "core/export/model_export.hpp"

#include <algorithm>
#include <new>
#include <optional>
#include <utility>

#include "core/analysis/attention_rollout.hpp"
#include "core/analysis/map_pooling.hpp"
#include "core/analysis/streamed_layer_maps.hpp"
#include "core/analysis/value_norms.hpp"
#include "core/attention/streamed_layer.hpp"
#include "core/common/memory.hpp"
#include "core/export/circuits_json.hpp"
#include "core/export/json_stream.hpp"
#include "core/export/layer_heads_json.hpp"
#include "core/export/token_json.hpp"
#include "core/families/model_names.hpp"
#include "core/io/atomic_file.hpp"
#include "core/pipeline/model_overview.hpp"
#include "core/text/token_pieces.hpp"

namespace qkv {

namespace {

constexpr std::int64_t modelFormatVersion = 1;

std::vector<std::string> labelsOf(const std::vector<Token>& tokens)
{
    std::vector<std::string> labels;
    for (const Token& token : tokens) labels.push_back(token.text);
    return labels;
}

void writeModel(JsonStream& json, const PretrainedModel& model)
{
    json.key("model");
    json.beginObject();
    json.key("file");
    json.value(model.checkpoint.path);
    json.key("family");
    json.value(familyName(model.recipe.family));
    json.key("name");
    json.value(modelDisplayName(model.recipe.family, model.checkpoint.config));
    json.key("recipe");
    json.value(recipeSummary(model.recipe));
    json.key("layer_count");
    json.value(static_cast<std::int64_t>(model.layerCount()));
    json.endObject();
}

void writeTokens(JsonStream& json, const PretrainedModel& model, const ModelSentences& sentences)
{
    json.key("tokens");
    json.beginObject();
    const bool decoderOnly = model.recipe.causal();
    json.key(decoderOnly ? "target" : "source");
    json.strings(labelsOf(sentences.sequence.chips()));
    if (model.recipe.encoderDecoder()) {
        json.key("target");
        json.strings(labelsOf(sentences.decoder.chips()));
    }
    json.endObject();
}

// The rollout of the stack that reads the sentence, folded one layer at a time as a streamed
// run's layers are written (their head means are never held together).
struct StreamedRollout {
    MatrixD product;              // R so far, n x n; empty while every layer passed the residual alone
    bool lowerTriangular = true;  // every layer so far causal
    Index layers = 0;             // layers folded
    Index tokens = 0;
};

// A streamed layer's value norms: each head's pooled (from its stream) or over the region (its
// exact weights times ||f_i(x_j)||), and the layer's, from every head's weights together; the
// heads' mean is folded into the rollout when the layer is one of its layers.
Status writeStreamedLayerNorms(JsonStream& json, const Result& result, const ExportOptions& options,
                               StreamedRollout* rollout)
{
    const AttentionResult& attention = result.attention;
    const PooledAttention& pooled = result.streamedHeads.front().pooled;
    StreamedLayerMapsRequest request;
    if (options.pool > 0) {
        request.rowEdges = &pooled.rowEdges;
        request.columnEdges = &pooled.columnEdges;
    }
    std::optional<std::pair<PositionSpan, PositionSpan>> region;
    if (options.region()) {
        const auto cut = exportRegion(options, attention.queryCount(), attention.keyCount());
        if (!cut) return Error{cut.error()};
        region = *cut;
        request.firstRow = region->first.begin;
        request.endRow = region->first.end;
        request.firstColumn = region->second.begin;
        request.endColumn = region->second.end;
    }
    request.headMean = rollout != nullptr;
    Expected<StreamedLayerMaps> maps = streamedLayerMaps(attention, result.streamedHeads, *result.weights, request);
    if (!maps) return Error{maps.error()};
    if (options.pool > 0)
        writePooledMap(json, "value_norms_pool", pooled.rowEdges, pooled.columnEdges, maps->normMean, maps->normMax);
    if (region) {
        if (options.pool > 0) json.newline();
        json.key("value_norms");
        json.matrix(maps->normRegion);
    }
    if (rollout) {
        rollout->tokens = attention.queryCount();
        if (Status folded = foldRolloutLayer(rollout->product, std::move(maps->headMean),
                                             rollout->lowerTriangular && attention.mask.causal);
            !folded)
            return folded;
        rollout->lowerTriangular = rollout->lowerTriangular && attention.mask.causal;
        ++rollout->layers;
    }
    return {};
}

// A streamed head's value norms N_i = a_qj ||f_i(x_j)||, pooled or over the region.
void writeStreamedHeadNorms(JsonStream& json, const Result& result, const ExportOptions& options, Index head)
{
    const PooledAttention& pooled = result.streamedHeads[static_cast<std::size_t>(head)].pooled;
    if (options.pool > 0) {
        json.newline();
        writePooledMap(json, "value_norms_pool", pooled.rowEdges, pooled.columnEdges, pooled.scaledMean,
                       pooled.scaledMax);
    }
    if (!options.region()) return;
    const auto region = exportRegion(options, result.attention.queryCount(), result.attention.keyCount());
    const Expected<MatrixF> weights =
        region ? headAttentionRegion(result.attention, head, region->first.begin, region->first.end,
                                     region->second.begin, region->second.end)
               : Expected<MatrixF>(Error{region.error()});
    json.newline();
    json.key("value_norms");
    if (!weights) {
        json.null();
        return;
    }
    const RowVectorF scales = result.transformedNorms.col(head)
                                  .segment(region->second.begin, region->second.end - region->second.begin)
                                  .transpose()
                                  .cast<float>();
    json.matrix(MatrixF(weights->array().rowwise() * scales.array()));
}

void writeLayerHeader(JsonStream& json, const Result& result, const LayerRun& layer)
{
    json.key("name");
    json.value(layer.layer.name);
    json.key("kind");
    json.value(modeName(layer.layer.kind));
    json.key("index");
    json.value(static_cast<std::int64_t>(layer.layer.index));
    json.key("tokens");
    json.beginObject();
    json.key("query");
    json.strings(result.queryLabels);
    json.key("key");
    json.strings(result.keyLabels);
    json.endObject();
    json.newline();
}

// One layer: its heads as the one-layer export writes them, each with its value norms (held, or
// from the stream of a long prompt's run).
Status writeLayer(JsonStream& json, const std::shared_ptr<const PretrainedModel>& model, const ModelRun& run,
                  Index modelIndex, const ModelSentences& sentences, const Config& base, const ExportOptions& options,
                  StreamedRollout* rollout)
{
    const Expected<std::shared_ptr<const Result>> layerResult =
        pretrainedLayerResult(model, run, modelIndex, sentences, base);
    if (!layerResult) return Error{layerResult.error()};
    const std::shared_ptr<const Result>& result = *layerResult;
    const LayerRun& layer = run.layer(modelIndex);
    json.beginObject();
    writeLayerHeader(json, *result, layer);
    if (result->streamed()) {
        writeLayerHeads(json, *result, options, true, [&](JsonStream& out, Index head) {
            writeStreamedHeadNorms(out, *result, options, head);
            out.newline();
            writeHeadRoles(out, nullptr, {});  // a streamed map is not held: no role is measured
        });
        json.newline();
        if (Status written = writeStreamedLayerNorms(json, *result, options, rollout); !written)
            return Error{layer.layer.name + ": " + written.error()};
        json.endObject();
        return {};
    }
    const Expected<ValueNorms> norms = valueWeightedNorms(result->attention, *result->weights);
    if (!norms) return Error{layer.layer.name + ": " + norms.error()};
    // Held maps under --rows/--cols: the region's cells, a slice of the full export's.
    const auto region = options.region()
                            ? exportRegion(options, result->attention.queryCount(), result->attention.keyCount())
                            : Expected<std::pair<PositionSpan, PositionSpan>>(std::pair<PositionSpan, PositionSpan>{});
    if (!region) return Error{region.error()};
    const auto cut = [&](const MatrixF& map) {
        if (!options.region()) return map;
        const auto& [rows, cols] = *region;
        return MatrixF(map.block(rows.begin, cols.begin, rows.end - rows.begin, cols.end - cols.begin));
    };
    // The roles read one sequence's queries and keys: self-attention only.
    const bool selfAttention = layer.layer.kind != AttentionMode::Cross;
    const std::vector<std::int32_t> ids = layerQueryTokens(*model, sentences, layer).ids();
    writeLayerHeads(json, *result, options, true, [&](JsonStream& out, Index head) {
        out.newline();
        out.key("value_norms");
        out.matrix(cut(norms->heads[static_cast<std::size_t>(head)]));
        out.newline();
        writeHeadRoles(
            out, selfAttention ? &result->attention.heads[static_cast<std::size_t>(head)].attention : nullptr, ids);
    });
    json.newline();
    json.key("value_norms");
    json.matrix(cut(norms->layer));
    json.endObject();
    return {};
}

// The held rollout, whole or its region (a slice).
void writeRollout(JsonStream& json, const MatrixD& rollout, const ExportOptions& options)
{
    json.key("rollout");
    if (!options.region()) {
        json.matrix(MatrixF(rollout.cast<float>()));
    } else if (const auto region = exportRegion(options, rollout.rows(), rollout.cols())) {
        const auto& [rows, cols] = *region;
        json.matrix(
            MatrixF(rollout.block(rows.begin, cols.begin, rows.end - rows.begin, cols.end - cols.begin).cast<float>()));
    } else {
        json.null();
    }
    json.newline();
}

// A streamed run's rollout: rollout_pool on the layers' edges (N blocks each way), and the
// region under --rows/--cols.
Status writeStreamedRollout(JsonStream& json, StreamedRollout& rollout, const ExportOptions& options)
{
    const Index n = rollout.tokens;
    if (rollout.layers == 0 || n == 0) return Error{"the model has no self-attention layer to roll out"};
    // Every layer of the stack passed the residual alone (every head off): R = I.
    if (rollout.product.size() == 0) rollout.product = MatrixD::Identity(n, n);
    if (options.pool > 0) {
        const Index blocks = std::min<Index>(options.pool, n);
        const std::vector<Index> edges = blockEdges(n, blocks);
        const BlockMeansAndMaxima pooled = blockMeansAndMaxima(rollout.product, blocks, blocks);
        writePooledMap(json, "rollout_pool", edges, edges, pooled.mean, pooled.max);
        json.newline();
    }
    if (options.region()) writeRollout(json, rollout.product, options);
    return {};
}

// Token id -> the vocabulary's entry ("" where the tokenizer lists none, or without one).
std::vector<std::string> readoutPieces(const PretrainedModel& model)
{
    return model.tokenizer ? tokenPieceTable(model.recipe.encoderDecoder() ? *model.targetTokenizer : *model.tokenizer,
                                             model.recipe.vocabularySize)
                           : std::vector<std::string>(static_cast<std::size_t>(model.recipe.vocabularySize));
}

void writeGenerated(JsonStream& json, const std::vector<std::string>& pieces, const std::vector<GeneratedToken>& all)
{
    json.key("generated");
    json.beginArray();
    for (const GeneratedToken& token : all) {
        json.newline();
        json.beginObject();
        json.key("position");
        json.value(static_cast<std::int64_t>(token.position));
        json.key("id");
        json.value(static_cast<std::int64_t>(token.id));
        writeTokenPiece(json, pieces, token.id);
        json.key("probability");
        json.value(token.probability);
        json.endObject();
    }
    json.endArray();
}

void writePredictions(JsonStream& json, const std::vector<std::string>& pieces,
                      const std::vector<PositionPredictions>& all)
{
    json.key("predictions");
    writePositionsTop(json, pieces, all);
}

// --corrupt's "patching" and --logit-lens's "logit_lens" (patching_json.hpp), when asked.
void writeAnalyses(JsonStream& json, const PretrainedModel& model, const std::vector<std::string>& pieces,
                   const ModelExportAnalyses& analyses)
{
    if (analyses.patching) {
        writePatching(json, pieces, *analyses.patching);
        json.newline();
    }
    if (analyses.logitLens) {
        writeLogitLens(json, model, pieces, *analyses.logitLens);
        json.newline();
    }
}

}  // namespace

Status exportModelJson(const std::shared_ptr<const PretrainedModel>& model, const ModelRun& run,
                       const ModelSentences& sentences, const Config& base, const std::string& path,
                       const ExportOptions& options, const std::vector<GeneratedToken>& generated,
                       const std::vector<HeadCircuits>* circuits, const ModelExportAnalyses& analyses)
{
    try {
        const Expected<std::vector<PositionPredictions>> predictions = modelPredictions(*model, run, sentences);
        if (!predictions) return Error{predictions.error()};
        // Through every layer of the stack that reads the typed sentence: from the held maps, or
        // folded layer by layer while a streamed run's layers are written.
        const std::vector<Index> rolloutIndices = rolloutLayers(*model, run);
        const bool streamed = !run.layers.empty() && !run.layers.front()->streamedHeads.empty();
        const Expected<MatrixD> rollout =
            streamed ? Expected<MatrixD>(MatrixD())
                     : modelRollout(*model, run, static_cast<Index>(rolloutIndices.size()) - 1);
        if (!rollout) return Error{rollout.error()};
        StreamedRollout streamedRollout;
        AtomicFile file;
        if (Status opened = file.open(path); !opened) return opened;
        JsonStream json(file);
        json.beginObject();
        json.key("format");
        json.value("qkv-studio-model-export");
        json.key("version");
        json.value(modelFormatVersion);
        json.newline();
        writeModel(json, *model);
        json.newline();
        writeTokens(json, *model, sentences);
        json.newline();
        const Index longest = static_cast<Index>(std::max(run.tokens.ids.size(), run.tokens.decoderIds.size()));
        writeMapExtent(json, longest, longest, options);
        json.key("ablated_heads");
        std::vector<std::string> ablated;
        for (const ModelHead& head : run.ablatedHeads) ablated.push_back(modelHeadText(*model, head));
        json.strings(ablated);
        json.newline();
        json.key("layers");
        json.beginArray();
        for (Index layer = 0; layer < model->layerCount(); ++layer) {
            json.newline();
            const bool inRollout =
                std::find(rolloutIndices.begin(), rolloutIndices.end(), layer) != rolloutIndices.end();
            if (Status written = writeLayer(json, model, run, layer, sentences, base, options,
                                            streamed && inRollout ? &streamedRollout : nullptr);
                !written)
                return written;
            releaseFreedMemory();
        }
        json.endArray();
        json.newline();
        if (streamed) {
            if (Status written = writeStreamedRollout(json, streamedRollout, options); !written) return written;
        } else {
            writeRollout(json, *rollout, options);
        }
        const std::vector<std::string> pieces = readoutPieces(*model);
        writePredictions(json, pieces, *predictions);
        json.newline();
        if (!generated.empty()) {
            writeGenerated(json, pieces, generated);
            json.newline();
        }
        if (circuits) {
            writeCircuits(json, *model, *circuits);
            json.newline();
        }
        writeAnalyses(json, *model, pieces, analyses);
        json.endObject();
        json.newline();
        return file.commit();
    } catch (const std::bad_alloc&) {
        return Error{"not enough memory to write '" + path + "'"};
    }
}

}  // namespace qkv
