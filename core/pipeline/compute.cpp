#include "core/pipeline/compute.hpp"
#include "core/pipeline/input_validation.hpp"

#include <algorithm>
#include <chrono>
#include <new>

#include "core/attention/streamed_layer.hpp"
#include "core/common/limits.hpp"
#include "core/config/validation.hpp"
#include "core/embedding/embeddings.hpp"
#include "core/pipeline/trained_layer.hpp"
#include "core/pretrained/trained_model_recipe.hpp"
#include "core/presets/head_presets.hpp"

namespace qkv {

namespace {

std::vector<std::string> labelsFor(const std::vector<Token>& tokens, Index rows)
{
    std::vector<std::string> labels;
    labels.reserve(static_cast<std::size_t>(rows));
    // The typed sentence labels the rows when the counts match; otherwise positions do.
    const bool useTokens = static_cast<Index>(tokens.size()) == rows;
    for (Index row = 0; row < rows; ++row) {
        if (useTokens) {
            labels.push_back(tokens[static_cast<std::size_t>(row)].text);
        } else {
            labels.emplace_back("t");
            labels.back() += std::to_string(row);
        }
    }
    return labels;
}

struct Sentence {
    std::vector<Token> tokens;
    std::vector<std::string> labels;
    MatrixF embeddings;  // n x d_model
};

// X and the tokens of one sentence, as the request cut it: the user's embeddings, the model's own
// input, or generated.
Expected<Sentence> prepareSentence(const CutSentence& cut, const char* name,
                                   const std::shared_ptr<const MatrixF>& userEmbeddings, const UserInputs& inputs,
                                   const Config& config)
{
    Sentence sentence;
    if (userEmbeddings) {
        sentence.tokens = cut.words;
        sentence.embeddings = *userEmbeddings;
    } else if (config.embeddings == EmbeddingKind::Model) {
        // Validation has checked the model input present and its tokens within its positions.
        const SubwordTokenization* tokens = cut.model == inputs.modelInput ? cut.modelTokens() : nullptr;
        if (!tokens) return Error{std::string("The ") + name + " sentence was not cut by the model's tokenizer."};
        Expected<MatrixF> input = inputs.modelInput->embedTokens(*tokens);
        if (!input) return Error{std::string("The model's own input for the ") + name + " sentence: " + input.error()};
        sentence.tokens = tokens->chips();
        sentence.embeddings = std::move(*input);
    } else {
        sentence.tokens = cut.words;
        const EmbeddingOptions options{config.d_model, config.seed, config.embeddings == EmbeddingKind::Meaning,
                                       config.tokenEmbeddingScale, config.positionalAdded()};
        sentence.embeddings = embedSentence(sentence.tokens, options);
    }
    sentence.labels = labelsFor(sentence.tokens, sentence.embeddings.rows());
    return sentence;
}

void checkEmbeddings(const std::shared_ptr<const MatrixF>& embeddings, const char* name, Index d_model,
                     const AnalysisPlan& plan, std::vector<ValidationIssue>& issues)
{
    if (!embeddings) return;
    const std::string prefix = std::string("The ") + name + " embeddings ";
    if (embeddings->rows() < 1)
        issues.push_back({ConfigField::Embeddings, prefix + "have no rows."});
    else if (const std::string problem = tokenCountProblem(embeddings->rows(), plan); !problem.empty())
        issues.push_back({ConfigField::Embeddings, prefix + "have " + problem + " (one row per token)"});
    if (embeddings->cols() != d_model)
        issues.push_back({ConfigField::Embeddings, prefix + "have " + std::to_string(embeddings->cols()) +
                                                       " columns but d_model is " + std::to_string(d_model) + "."});
    else if (!embeddings->allFinite())
        issues.push_back({ConfigField::Embeddings, prefix + "contain NaN or infinite values."});
}

// Their shapes are checked with the configuration (weightsFitIssues); their values here, off the
// GUI thread (4 d_model^2 numbers).
void checkWeightValues(const std::shared_ptr<const AttentionWeights>& weights, std::vector<ValidationIssue>& issues)
{
    if (weights && !allFinite(*weights))
        issues.push_back({ConfigField::Weights, "The weights contain NaN or infinite values."});
}

RotaryLayout rotaryLayout(PositionalEncoding positional)
{
    switch (positional) {
    case PositionalEncoding::Rotary: return RotaryLayout::RotateHalf;
    case PositionalEncoding::RotaryInterleaved: return RotaryLayout::Interleaved;
    default: return RotaryLayout::None;
    }
}

}  // namespace

AttentionOptions attentionOptions(const Config& config)
{
    AttentionOptions options;
    options.mask.causal = config.mode == AttentionMode::DecoderCausal;
    options.conventions = config.conventions;
    if (options.mask.causal) options.mask.window = config.conventions.slidingWindow;
    options.rotary = rotaryLayout(config.positional);
    options.scaleScores = config.scaleScores;
    options.ablated.assign(static_cast<std::size_t>(config.headCount), false);
    for (const Index head : config.ablatedHeads)
        if (head >= 0 && head < config.headCount) options.ablated[static_cast<std::size_t>(head)] = true;
    return options;
}

namespace {

// Generated, user or a trained layer's weights (`given`, null for generated), then the head
// presets (core/presets), then the scale sliders.
void prepareWeights(Result& result, const Config& config, const std::shared_ptr<const AttentionWeights>& given,
                    GeneratedWeightsCache* cache)
{
    const auto generate = [&] {
        return cache ? cache->get(config)
                     : std::make_shared<const AttentionWeights>(initialiseWeights(
                           config.d_model, config.grouping(), config.seed, config.init, config.withBias));
    };
    std::shared_ptr<const AttentionWeights> base = given ? given : generate();
    if (!config.presets.empty()) {
        // Random and low-rank heads come from the seed's weights, even over loaded ones.
        const bool needsGenerated = std::any_of(config.presets.begin(), config.presets.end(), [](const HeadPreset& p) {
            return presetKeyBlock(p.kind) == PresetKeyBlock::Generated;
        });
        const std::shared_ptr<const AttentionWeights> generated = given && needsGenerated ? generate() : base;
        auto withPresets = std::make_shared<AttentionWeights>(*base);
        applyHeadPresets(*withPresets, config, *generated, cache ? &cache->presets() : nullptr);
        base = std::move(withPresets);
    }
    result.unscaledWeights = base;
    result.weights = config.scales == ProjectionScales{}
                         ? base
                         : std::make_shared<const AttentionWeights>(scaledWeights(*base, config.scales));
}

using Clock = std::chrono::steady_clock;

// The attention of the prepared inputs and weights, timed from `started`. The weights carry
// their head layout (for generated and loaded weights it is the config's; a trained full W_i
// layer's values are narrower than its d_k).
// A streamed plan (a long layer) keeps each head's map pooled instead (streamed_layer.hpp).
Expected<std::shared_ptr<const Result>> finish(std::shared_ptr<Result> result, const Config& config,
                                               Clock::time_point started, AttentionOptions options,
                                               const AnalysisPlan& plan, const StreamControl& control)
{
    const HeadGrouping grouping = result->weights->grouping(config.headCount);
    if (plan.streamed()) {
        StreamedLayerOptions streamed;
        streamed.pooledRows = streamed.pooledColumns = plan.pooledBlocks;
        streamed.valueNorms = plan.pooledValueNorms;
        streamed.control = control;
        Expected<StreamedLayer> layer = streamedMultiHeadAttention(result->queryInput, result->keyValueInput,
                                                                   *result->weights, grouping, options, streamed);
        if (!layer) return Error{layer.error()};
        result->attention = std::move(layer->attention);
        result->streamedHeads = std::move(layer->heads);
        result->transformedNorms = std::move(layer->transformedNorms);
    } else {
        result->attention = multiHeadAttentionForward(result->queryInput, result->keyValueInput, *result->weights,
                                                      grouping, options);
    }
    if (!result->attention.output.allFinite()) {
        return Error{"The numbers overflowed the float range (values beyond 3.4e38): lower the weight "
                     "scales or the size of the loaded weights or embeddings."};
    }
    result->computeMilliseconds = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    return std::shared_ptr<const Result>(std::move(result));
}

// A trained model's layer: X_q, X_kv and the labels from the model run on the typed sentences,
// the layer's own weights (trained_layer.hpp).
Expected<std::shared_ptr<const Result>> computeTrainedLayer(std::shared_ptr<Result> result, const Config& config,
                                                            const UserInputs& inputs, GeneratedWeightsCache* cache,
                                                            Clock::time_point started, const AnalysisPlan& plan,
                                                            const StreamControl& control)
{
    Expected<TrainedLayerSentences> sentences = trainedLayerSentences(config, inputs);
    if (!sentences) return Error{sentences.error()};
    result->queryTokens = std::move(sentences->queryTokens);
    result->keyTokens = std::move(sentences->keyTokens);
    result->queryLabels = std::move(sentences->queryLabels);
    result->keyLabels = std::move(sentences->keyLabels);
    result->queryInput = std::move(sentences->queryInput);
    result->keyValueInput = std::move(sentences->keyValueInput);
    // The whole model this layer belongs to, as a checkpoint's layer has it: the Model, Predict
    // and Generate views and the whole-model export run it (trained_model_recipe.hpp).
    result->wholeModel = wholeTrainedModel(inputs.trainedModel);
    result->wholeModelLayer = result->wholeModel ? inputs.trainedLayer : -1;
    const std::shared_ptr<const AttentionWeights> weights = trainedLayerWeights(inputs);
    if (!weights) return Error{"The trained model has no attention layer " + std::to_string(inputs.trainedLayer) + "."};
    prepareWeights(*result, config, weights, cache);
    AttentionOptions options = attentionOptions(config);
    // The model's own scale, 1/sqrt(d_model / h), also for full W_i heads shown with d_k = d_model.
    if (!inputs.weights) options.conventions.scoreDim = trainedScoreDim(*inputs.trainedModel);
    return finish(std::move(result), config, started, options, plan, control);
}

}  // namespace

std::shared_ptr<const AttentionWeights> GeneratedWeightsCache::get(const Config& config)
{
    const Key key{config.d_model, config.grouping(), config.seed, config.init, config.withBias};
    {
        std::lock_guard lock(mutex_);
        if (key_ == key) return weights_;
    }
    auto weights = std::make_shared<const AttentionWeights>(
        initialiseWeights(key.d_model, key.heads, key.seed, key.init, key.withBias));
    std::lock_guard lock(mutex_);
    key_ = key;
    weights_ = weights;
    return weights;
}

Expected<std::shared_ptr<const Result>> compute(const Config& config, const UserInputs& inputs,
                                                GeneratedWeightsCache* cache)
{
    return compute(prepareCompute(config, inputs), cache);
}

Expected<std::shared_ptr<const Result>> compute(const ComputeRequest& request, GeneratedWeightsCache* cache,
                                                const StreamControl& control)
{
    const auto started = Clock::now();
    const Config& config = request.config;
    const UserInputs& inputs = request.inputs;

    std::vector<ValidationIssue> issues = request.issues;
    checkEmbeddings(inputs.sourceEmbeddings, "source", config.d_model, request.plan, issues);
    checkEmbeddings(inputs.targetEmbeddings, "target", config.d_model, request.plan, issues);
    checkWeightValues(inputs.weights, issues);
    if (!issues.empty()) return Error{describe(issues)};

    try {
        auto result = std::make_shared<Result>();
        result->config = config;

        if (inputs.trainedModel)
            return computeTrainedLayer(std::move(result), config, inputs, cache, started, request.plan, control);

        // Which sentence gives the queries and which the keys and values (docs/architecture.md, "Numerical conventions").
        Sentence source, target;
        // A request prepared for other text is not read (prepareCompute cuts the config's own).
        const CutSentences& cuts = request.sentences;
        if ((config.needsSource() && (!cuts.source || cuts.source->text != config.sourceText)) ||
            (config.needsTarget() && (!cuts.target || cuts.target->text != config.targetText)))
            return Error{"The request's sentences are not the configuration's: prepare it with prepareCompute()."};
        if (config.needsSource()) {
            Expected<Sentence> prepared = prepareSentence(*cuts.source, "source", inputs.sourceEmbeddings, inputs, config);
            if (!prepared) return Error{prepared.error()};
            source = std::move(*prepared);
        }
        if (config.needsTarget()) {
            Expected<Sentence> prepared = prepareSentence(*cuts.target, "target", inputs.targetEmbeddings, inputs, config);
            if (!prepared) return Error{prepared.error()};
            target = std::move(*prepared);
        }
        const Sentence& querySentence = config.queriesFromTarget() ? target : source;
        const Sentence& keySentence = config.keysFromTarget() ? target : source;
        result->queryTokens = querySentence.tokens;
        result->keyTokens = keySentence.tokens;
        result->queryLabels = querySentence.labels;
        result->keyLabels = keySentence.labels;
        result->queryInput = querySentence.embeddings;
        result->keyValueInput = keySentence.embeddings;
        if (config.embeddings == EmbeddingKind::Model && inputs.modelInput) {
            result->wholeModel = inputs.modelInput->wholeModel();
            result->wholeModelLayer = inputs.modelInput->wholeModelLayer();
        }

        prepareWeights(*result, config, inputs.weights, cache);
        return finish(std::move(result), config, started, attentionOptions(config), request.plan, control);
    } catch (const std::bad_alloc&) {
        return Error{"Not enough memory for this configuration: shorten the sentences or lower h or d_model."};
    }
}

}  // namespace qkv
