#include "core/export/model_export.hpp"

#include <new>

#include "core/analysis/value_norms.hpp"
#include "core/common/memory.hpp"
#include "core/export/json_stream.hpp"
#include "core/export/layer_heads_json.hpp"
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
    json.value(pretrainedFamilyName(model.recipe.family));
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

// One layer: its heads as the one-layer export writes them, each with its value norms.
Status writeLayer(JsonStream& json, const std::shared_ptr<const PretrainedModel>& model, const ModelRun& run,
                  Index modelIndex, const ModelSentences& sentences, const Config& base, const ExportOptions& options)
{
    const Expected<std::shared_ptr<const Result>> layerResult = pretrainedLayerResult(model, run, modelIndex, sentences, base);
    if (!layerResult) return Error{layerResult.error()};
    const std::shared_ptr<const Result>& result = *layerResult;
    const LayerRun& layer = run.layer(modelIndex);
    const Expected<ValueNorms> norms = valueWeightedNorms(result->attention, *result->weights);
    if (!norms) return Error{layer.layer.name + ": " + norms.error()};
    json.beginObject();
    json.key("name");
    json.value(layer.layer.name);
    json.key("kind");
    json.value(modeName(layer.layer.kind));
    json.key("index");
    json.value(static_cast<std::int64_t>(layer.layer.index));
    json.key("tokens");
    json.beginObject();
    json.key("query");
    json.strings(result->queryLabels);
    json.key("key");
    json.strings(result->keyLabels);
    json.endObject();
    json.newline();
    writeLayerHeads(json, *result, options, true, [&](JsonStream& out, Index head) {
        out.newline();
        out.key("value_norms");
        out.matrix(norms->heads[static_cast<std::size_t>(head)]);
    });
    json.newline();
    json.key("value_norms");
    json.matrix(norms->layer);
    json.endObject();
    return {};
}

void writePredictions(JsonStream& json, const PretrainedModel& model, const std::vector<PositionPredictions>& all)
{
    const std::vector<std::string> pieces =
        model.tokenizer ? tokenPieceTable(model.recipe.encoderDecoder() ? *model.targetTokenizer : *model.tokenizer,
                                          model.recipe.vocabularySize)
                        : std::vector<std::string>(static_cast<std::size_t>(model.recipe.vocabularySize));
    json.key("predictions");
    json.beginArray();
    for (const PositionPredictions& position : all) {
        json.newline();
        json.beginObject();
        json.key("position");
        json.value(static_cast<std::int64_t>(position.position));
        json.key("top");
        json.beginArray();
        for (const TokenProbability& token : position.top) {
            json.beginObject();
            json.key("token");  // null for an id the tokenizer does not list
            const std::string& piece = pieces[static_cast<std::size_t>(token.id)];
            if (piece.empty())
                json.null();
            else
                json.value(piece);
            json.key("id");
            json.value(static_cast<std::int64_t>(token.id));
            json.key("probability");
            json.value(token.probability);
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
    json.endArray();
}

}  // namespace

Status exportModelJson(const std::shared_ptr<const PretrainedModel>& model, const ModelRun& run,
                       const ModelSentences& sentences, const Config& base, const std::string& path,
                       const ExportOptions& options)
{
    try {
        const Expected<std::vector<PositionPredictions>> predictions = modelPredictions(*model, run, sentences);
        if (!predictions) return Error{predictions.error()};
        // Through every layer of the stack that reads the typed sentence.
        const Expected<MatrixD> rollout =
            modelRollout(*model, run, static_cast<Index>(rolloutLayers(*model, run).size()) - 1);
        if (!rollout) return Error{rollout.error()};
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
        json.key("ablated_heads");
        std::vector<std::string> ablated;
        for (const ModelHead& head : run.ablatedHeads) ablated.push_back(modelHeadText(*model, head));
        json.strings(ablated);
        json.newline();
        json.key("layers");
        json.beginArray();
        for (Index layer = 0; layer < model->layerCount(); ++layer) {
            json.newline();
            if (Status written = writeLayer(json, model, run, layer, sentences, base, options); !written)
                return written;
            releaseFreedMemory();
        }
        json.endArray();
        json.newline();
        json.key("rollout");
        json.matrix(MatrixF(rollout->cast<float>()));
        json.newline();
        writePredictions(json, *model, *predictions);
        json.newline();
        json.endObject();
        json.newline();
        return file.commit();
    } catch (const std::bad_alloc&) {
        return Error{"not enough memory to write '" + path + "'"};
    }
}

}  // namespace qkv
