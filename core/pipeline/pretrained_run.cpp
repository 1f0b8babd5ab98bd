#include "core/pipeline/pretrained_run.hpp"

#include <charconv>
#include <optional>
#include <utility>

#include "core/pretrained/teacher_forcing.hpp"
#include "core/text/token_pieces.hpp"

namespace qkv {

namespace {

Expected<SubwordTokenization> cut(const SubwordTokenizer& tokenizer, const std::string& text, const char* name)
{
    Expected<SubwordTokenization> tokens = tokenizer.encode(text);
    if (!tokens) return Error{std::string("The ") + name + " sentence: " + tokens.error()};
    if (tokens->tokens.empty()) return Error{std::string("The ") + name + " sentence gives the model no tokens."};
    return tokens;
}

// A whole non-negative number, or nothing.
std::optional<Index> wholeNumber(std::string_view text)
{
    Index value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
    return value;
}

std::string layerList(const PretrainedModel& model)
{
    std::string list;
    for (const CheckpointLayer& layer : model.checkpoint.layers) {
        if (!list.empty()) list += ", ";
        list += std::to_string(layer.index) + " " + layer.name;
    }
    return list;
}

}  // namespace

Expected<ModelSentences> modelSentences(const PretrainedModel& model, const std::string& source,
                                        const std::string& targetText)
{
    if (!model.tokenizer)
        return Error{model.checkpoint.path + ": no tokenizer files beside it (" + model.tokenizerFolder +
                     "), so the typed sentences cannot be cut into its tokens"};
    ModelSentences sentences;
    // A decoder-only model's one sequence is a decoder's: the target, as for any causal layer.
    const bool decoderOnly = model.recipe.causal();
    Expected<SubwordTokenization> sequence =
        cut(*model.tokenizer, decoderOnly ? targetText : source, decoderOnly ? "target" : "source");
    if (!sequence) return Error{sequence.error()};
    sentences.sequence = std::move(*sequence);
    sentences.tokens.ids = sentences.sequence.ids();
    if (!model.recipe.encoderDecoder()) return sentences;
    // The decoder reads the target teacher-forced: its start token, then the target's tokens
    // but the last (teacher_forcing.hpp).
    if (!model.targetTokenizer) return Error{model.checkpoint.path + ": no tokenizer for the target sentence"};
    Expected<SubwordTokenization> target = cut(*model.targetTokenizer, targetText, "target");
    if (!target) return Error{target.error()};
    Expected<std::vector<std::int32_t>> decoderIds = teacherForcedDecoderIds(model.recipe, target->ids());
    if (!decoderIds) return Error{decoderIds.error()};
    SubwordToken start;
    start.id = decoderIds->front();
    const std::vector<std::string> pieces = tokenPieceTable(*model.targetTokenizer, model.recipe.vocabularySize);
    const auto startRow = static_cast<std::size_t>(start.id);  // checked against V by the run
    start.piece = startRow < pieces.size() && !pieces[startRow].empty() ? pieces[startRow] : std::to_string(start.id);
    start.display = start.piece;
    start.special = true;
    sentences.decoder.tokens.push_back(std::move(start));
    target->tokens.pop_back();
    for (SubwordToken& token : target->tokens) sentences.decoder.tokens.push_back(std::move(token));
    sentences.tokens.decoderIds = std::move(*decoderIds);
    return sentences;
}

Expected<Index> findModelLayer(const PretrainedModel& model, std::string_view nameOrIndex)
{
    Expected<CheckpointLayer> found = findCheckpointLayer(model.checkpoint, nameOrIndex);
    if (!found) return Error{found.error()};
    return modelLayerIndex(model, *found);
}

Expected<Index> modelLayerIndex(const PretrainedModel& model, const CheckpointLayer& layer)
{
    for (Index i = 0; i < model.layerCount(); ++i)
        if (model.layersInModelOrder[static_cast<std::size_t>(i)].index == layer.index) return i;
    return Error{model.checkpoint.path + ": " + layer.name + " is not a layer the model runs"};
}

Expected<ModelHead> parseModelHead(const PretrainedModel& model, std::string_view item)
{
    const std::size_t dot = item.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == item.size())
        return Error{"'" + std::string(item) +
                     "' is not LAYER.HEAD (e.g. 3.2: head 2 of layer 3 as --list-layers "
                     "numbers it; heads from 1)"};
    const std::optional<Index> head = wholeNumber(item.substr(dot + 1));
    if (!head || *head < 1) return Error{"'" + std::string(item) + "': the head after the dot counts from 1"};
    const std::string_view layerName = item.substr(0, dot);
    Expected<Index> layer = findModelLayer(model, layerName);
    if (!layer)
        return Error{"'" + std::string(item) + "': no layer " + std::string(layerName) + " (" + layerList(model) + ")"};
    const Index h = model.layersInModelOrder[static_cast<std::size_t>(*layer)].headCount;
    if (*head > h)
        return Error{"'" + std::string(item) + "': layer " + std::string(layerName) + " has " + std::to_string(h) +
                     " heads (1 to " + std::to_string(h) + ")"};
    return ModelHead{*layer, *head - 1};
}

std::string modelHeadText(const PretrainedModel& model, const ModelHead& head)
{
    return std::to_string(model.layersInModelOrder[static_cast<std::size_t>(head.layer)].index) + "." +
           std::to_string(head.head + 1);
}

Config pretrainedLayerConfig(const PretrainedModel& model, const LayerRun& layer, const AttentionWeights& weights,
                             const std::set<ModelHead>& ablated, Config base)
{
    base.d_model = layer.layer.d_model;
    base.headCount = layer.layer.headCount;
    base.keyValueHeadCount = layer.layer.keyValueHeadCount == layer.layer.headCount ? 0 : layer.layer.keyValueHeadCount;
    base.withBias = weights.hasBias();
    base.mode = layer.layer.kind;
    // Rotary positions act inside the layer; every other family's positions are inside X.
    base.positional =
        model.recipe.positions == PretrainedPositions::Rotary ? PositionalEncoding::Rotary : PositionalEncoding::None;
    // The layer's own window, rotary and scores: the rule its run followed.
    const Index d_k = weights.grouping(base.headCount).d_k;
    const AttentionOptions own =
        modelLayerAttentionOptions(model, layer.stack, layer.block, d_k, layer.layer.kind == AttentionMode::Cross);
    base.headDim = base.headCount > 0 && d_k * base.headCount == base.d_model ? 0 : d_k;  // 0: d_model / h
    base.conventions = own.conventions;
    base.scaleScores = true;
    base.embeddings = EmbeddingKind::Model;
    base.ablatedHeads.clear();
    for (const ModelHead& head : ablated)
        if (head.layer == layer.modelIndex) base.ablatedHeads.push_back(head.head);
    return base;
}

// The decoder's layers read the target; cross-attention's keys and values the source.
const SubwordTokenization& layerQueryTokens(const PretrainedModel& model, const ModelSentences& sentences,
                                            const LayerRun& layer)
{
    const bool decoder = layer.stack == ModelStack::Decoder && model.recipe.encoderDecoder();
    return decoder ? sentences.decoder : sentences.sequence;
}

const SubwordTokenization& layerKeyTokens(const PretrainedModel& model, const ModelSentences& sentences,
                                          const LayerRun& layer)
{
    const bool decoder = layer.stack == ModelStack::Decoder && model.recipe.encoderDecoder();
    return decoder && layer.layer.kind != AttentionMode::Cross ? sentences.decoder : sentences.sequence;
}

Expected<std::shared_ptr<const Result>> pretrainedLayerResult(const std::shared_ptr<const PretrainedModel>& model,
                                                              const ModelRun& run, Index modelIndex,
                                                              const ModelSentences& sentences, const Config& base)
{
    const LayerRun& layer = run.layer(modelIndex);
    // The layer's weights as the model holds them: shared, with the model kept alive.
    Expected<std::shared_ptr<const AttentionWeights>> weights = sublayerAttention(model, modelIndex);
    if (!weights) return Error{weights.error()};
    auto result = std::make_shared<Result>();
    result->config = pretrainedLayerConfig(*model, layer, **weights, run.ablatedHeads, base);
    result->queryTokens = layerQueryTokens(*model, sentences, layer).chips();
    result->keyTokens = layerKeyTokens(*model, sentences, layer).chips();
    for (const Token& token : result->queryTokens) result->queryLabels.push_back(token.text);
    for (const Token& token : result->keyTokens) result->keyLabels.push_back(token.text);
    result->queryInput = layer.queryInput;
    result->keyValueInput = layer.keyValueInput;
    result->unscaledWeights = std::move(*weights);
    result->weights = result->unscaledWeights;
    result->attention = layer.attention;
    result->streamedHeads = layer.streamedHeads;
    result->transformedNorms = layer.transformedNorms;
    return std::shared_ptr<const Result>(std::move(result));
}

}  // namespace qkv
