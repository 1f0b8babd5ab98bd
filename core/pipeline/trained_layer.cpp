#include "core/pipeline/trained_layer.hpp"

#include <charconv>
#include <optional>

#include "core/training/trained_model.hpp"

namespace qkv {

namespace {

std::string number(Index value) { return std::to_string(value); }

const AttentionLayerInfo* shownLayer(const UserInputs& inputs, std::vector<AttentionLayerInfo>& layers)
{
    layers = attentionLayers(inputs.trainedModel->parameters.spec);
    const Index layer = inputs.trainedLayer;
    return layer >= 0 && layer < static_cast<Index>(layers.size()) ? &layers[static_cast<std::size_t>(layer)] : nullptr;
}

// Which of the typed sentences the model reads to reach the layer. A model with an encoder
// always runs it on the source (as in training; the decoder's layers above the first read it
// through cross-attention); a decoder-only model never reads one.
bool readsSource(const ModelSpec& spec) { return spec.hasEncoder(); }
bool readsTarget(const AttentionLayerInfo& layer) { return layer.kind != AttentionMode::EncoderSelf; }

// The configuration's own settings against the model's layer.
void checkSettings(const Config& config, const UserInputs& inputs, const AttentionLayerInfo& layer,
                   std::vector<ValidationIssue>& issues)
{
    const ModelSpec& spec = inputs.trainedModel->parameters.spec;
    const std::string theLayer = "The trained model's layer '" + layer.name + "'";
    if (config.mode != layer.kind)
        issues.push_back({ConfigField::Mode, theLayer + " is " + std::string(modeName(layer.kind)) +
                                                 " attention: set the mode to " + std::string(modeName(layer.kind)) + "."});
    if (config.d_model != spec.d_model)
        issues.push_back({ConfigField::DModel, "The trained model has d_model = " + number(spec.d_model) +
                                                   " but d_model is set to " + number(config.d_model) + "."});
    if (config.headCount != spec.headCount)
        issues.push_back({ConfigField::Heads, "The trained model has h = " + number(spec.headCount) +
                                                  " heads but h is set to " + number(config.headCount) + "."});
    else if (const Index d_k = spec.scoreForm == ScoreForm::Full ? spec.d_model : spec.d_k();
             !inputs.weights && config.d_k() != d_k)
        issues.push_back({ConfigField::HeadDim,
                          spec.scoreForm == ScoreForm::Full
                              ? "The trained model's full W_i heads are shown as W_i^Q = W_i, W_i^K = I: d_k = d_model = " +
                                    number(d_k) + ", not " + number(config.d_k()) + "."
                              : "The trained model's heads have d_k = " + number(d_k) + ", not " + number(config.d_k()) + "."});
    else if (config.g() != config.headCount)
        issues.push_back({ConfigField::KeyValueHeads, "The trained model's heads each have their own keys and values "
                                                      "(g = h = " + number(spec.headCount) + ")."});
    if (config.positional != PositionalEncoding::None)
        issues.push_back({ConfigField::Positional, theLayer + " reads hidden states that already hold the positions: "
                                                              "set positions to none."});
    if (config.withBias)
        issues.push_back({ConfigField::Weights, "The trained model's attention has no biases: switch the biases off."});
    if (inputs.sourceEmbeddings || inputs.targetEmbeddings)
        issues.push_back({ConfigField::Embeddings, "The trained model computes X itself from the typed sentences: "
                                                   "remove the loaded embeddings."});
}

// One typed sentence against the vocabulary and the positions (`extra`: tokens the model adds,
// <bos> before the decoder's input). An empty sentence the mode needs is validateConfig's to
// report (`reportEmpty` false), one only the model needs is reported here.
void checkSentence(const std::string& text, const char* name, ConfigField field, Index extra, bool reportEmpty,
                   const TrainedModel& model, std::vector<ValidationIssue>& issues)
{
    const std::string prefix = std::string("The ") + name + " sentence";
    const Expected<std::vector<std::int32_t>> ids = model.vocabulary.encode(text);
    if (!ids) {
        issues.push_back({field, prefix + ": " + ids.error()});
        return;
    }
    if (ids->empty()) {
        if (reportEmpty)
            issues.push_back({field, prefix + " is empty: the trained model reads it on its way to this layer."});
        return;
    }
    const Index tokens = static_cast<Index>(ids->size()) + extra;
    if (tokens > model.parameters.spec.maxPositions)
        issues.push_back({field, prefix + " gives the model " + number(tokens) + " tokens; it learned positions up to " +
                                     number(model.parameters.spec.maxPositions) + "."});
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Tokens for the model's labels, spans pointing at the words of `text` (the model's own tokens,
// <bos> and <eos>, get an empty span where they stand).
std::vector<Token> tokensFor(const std::vector<std::string>& labels, const std::string& text)
{
    std::vector<Token> words;
    for (std::size_t at = 0; at < text.size();) {
        if (isSpace(text[at])) {
            ++at;
            continue;
        }
        std::size_t end = at;
        while (end < text.size() && !isSpace(text[end])) ++end;
        words.push_back({text.substr(at, end - at), at, end});
        at = end;
    }
    std::vector<Token> tokens;
    std::size_t next = 0, position = 0;
    for (const std::string& label : labels) {
        if (next < words.size() && words[next].text == label) {
            tokens.push_back(words[next]);
            position = words[next++].byteEnd;
        } else {
            tokens.push_back({label, position, position});
        }
    }
    return tokens;
}

}  // namespace

Index trainedScoreDim(const TrainedModel& model) { return model.parameters.spec.d_k(); }

std::vector<ValidationIssue> trainedModelIssues(const Config& config, const UserInputs& inputs)
{
    std::vector<ValidationIssue> issues;
    if (!inputs.trainedModel) return issues;
    const TrainedModel& model = *inputs.trainedModel;
    std::vector<AttentionLayerInfo> layers;
    const AttentionLayerInfo* layer = shownLayer(inputs, layers);
    if (!layer) {
        issues.push_back({ConfigField::Weights, "The trained model has " + number(static_cast<Index>(layers.size())) +
                                                    " attention layers; layer " + number(inputs.trainedLayer) +
                                                    " does not exist."});
        return issues;
    }
    checkSettings(config, inputs, *layer, issues);
    if (readsSource(model.parameters.spec))
        checkSentence(config.sourceText, "source", ConfigField::Source, 0, !config.needsSource(), model, issues);
    if (readsTarget(*layer))
        checkSentence(config.targetText, "target", ConfigField::Target, 1, !config.needsTarget(), model, issues);
    return issues;
}

Expected<TrainedLayerSentences> trainedLayerSentences(const Config& config, const UserInputs& inputs)
{
    const TrainedModel& model = *inputs.trainedModel;
    std::vector<AttentionLayerInfo> layers;
    const AttentionLayerInfo* layer = shownLayer(inputs, layers);
    if (!layer) return Error{"The trained model has no attention layer " + number(inputs.trainedLayer) + "."};
    // A sentence the layer does not read is not handed to the model (it may not be in its words).
    const std::string source = readsSource(model.parameters.spec) ? config.sourceText : std::string();
    const std::string target = readsTarget(*layer) ? config.targetText : std::string();
    Expected<ModelLayerInput> input = modelLayerInput(model, inputs.trainedLayer, source, target);
    if (!input) return Error{input.error()};
    TrainedLayerSentences out;
    // Cross-attention: queries from the target, keys and values from the source (docs/architecture.md, "Numerical conventions").
    const std::string& queryText = layer->kind == AttentionMode::EncoderSelf ? source : target;
    const std::string& keyText = layer->kind == AttentionMode::DecoderCausal ? target : source;
    out.queryTokens = tokensFor(input->queryLabels, queryText);
    out.keyTokens = tokensFor(input->keyLabels, keyText);
    out.queryLabels = std::move(input->queryLabels);
    out.keyLabels = std::move(input->keyLabels);
    out.queryInput = std::move(input->queryInput);
    out.keyValueInput = std::move(input->keyValueInput);
    return out;
}

Expected<Index> findTrainedLayer(const TrainedModel& model, std::string_view nameOrIndex)
{
    const std::vector<AttentionLayerInfo> layers = attentionLayers(model.parameters.spec);
    const auto count = static_cast<Index>(layers.size());
    for (Index i = 0; i < count; ++i)
        if (layers[static_cast<std::size_t>(i)].name == nameOrIndex) return i;
    Index index = -1;
    const char* end = nameOrIndex.data() + nameOrIndex.size();
    if (const auto [rest, error] = std::from_chars(nameOrIndex.data(), end, index);
        error == std::errc() && rest == end && index >= 0 && index < count)
        return index;
    std::string names;
    for (const AttentionLayerInfo& layer : layers) names += (names.empty() ? "'" : ", '") + layer.name + "'";
    return Error{"no layer '" + std::string(nameOrIndex) + "'; the trained model's " + number(count) +
                 " attention layers are " + names + " (or their index, 0 to " + number(count - 1) + ")"};
}

std::shared_ptr<const AttentionWeights> trainedLayerWeights(const UserInputs& inputs)
{
    if (inputs.weights) return inputs.weights;
    std::optional<AttentionWeights> weights = attentionLayerWeights(inputs.trainedModel->parameters, inputs.trainedLayer);
    if (!weights) return nullptr;
    return std::make_shared<const AttentionWeights>(std::move(*weights));
}

}  // namespace qkv
