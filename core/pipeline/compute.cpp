#include "core/pipeline/compute.hpp"

#include <chrono>
#include <mutex>
#include <new>

#include "core/config/limits.hpp"
#include "core/config/validation.hpp"
#include "core/embedding/embeddings.hpp"

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

Sentence prepareSentence(const std::string& text, const std::optional<MatrixF>& userEmbeddings,
                         const Config& config)
{
    Sentence sentence;
    sentence.tokens = tokenize(text);
    if (userEmbeddings) {
        sentence.embeddings = *userEmbeddings;
    } else {
        sentence.embeddings = embedSentence(sentence.tokens, config.d_model, config.seed, config.positionalEncoding);
    }
    sentence.labels = labelsFor(sentence.tokens, sentence.embeddings.rows());
    return sentence;
}

void checkEmbeddings(const std::optional<MatrixF>& embeddings, const char* name, Index d_model,
                     std::vector<ValidationIssue>& issues)
{
    if (!embeddings) return;
    const std::string prefix = std::string("The ") + name + " embeddings ";
    if (embeddings->rows() < 1)
        issues.push_back({ConfigField::Embeddings, prefix + "have no rows."});
    else if (embeddings->rows() > limits::maxTokens)
        issues.push_back({ConfigField::Embeddings, prefix + "have " + std::to_string(embeddings->rows()) +
                                                       " rows; the limit is " + std::to_string(limits::maxTokens) + "."});
    if (embeddings->cols() != d_model)
        issues.push_back({ConfigField::Embeddings, prefix + "have " + std::to_string(embeddings->cols()) +
                                                       " columns but d_model is " + std::to_string(d_model) + "."});
    else if (!embeddings->allFinite())
        issues.push_back({ConfigField::Embeddings, prefix + "contain NaN or infinite values."});
}

void checkWeights(const std::optional<AttentionWeights>& weights, Index d_model, std::vector<ValidationIssue>& issues)
{
    if (!weights) return;
    const auto square = [&](const MatrixF& m) { return m.rows() == d_model && m.cols() == d_model; };
    const auto bias = [&](const std::optional<RowVectorF>& b) { return b && b->size() == d_model; };
    if (weights->d_model() != d_model) {
        issues.push_back({ConfigField::Weights, "The loaded weights have d_model = " + std::to_string(weights->d_model()) +
                                                    " but d_model is set to " + std::to_string(d_model) + "."});
    } else if (!square(weights->queryProjection) || !square(weights->keyProjection) ||
               !square(weights->valueProjection) || !square(weights->outputProjection)) {
        issues.push_back({ConfigField::Weights, "W^Q, W^K, W^V and W^O must all be d_model x d_model."});
    } else if (weights->hasBias() && !(bias(weights->queryBias) && bias(weights->keyBias) &&
                                       bias(weights->valueBias) && bias(weights->outputBias))) {
        issues.push_back({ConfigField::Weights, "The biases b^Q, b^K, b^V and b^O must all be present with d_model entries."});
    } else if (!allFinite(*weights)) {
        issues.push_back({ConfigField::Weights, "The weights contain NaN or infinite values."});
    }
}

// The last generated weights, reused while d_model, seed, initialisation and biases stay the
// same: typing a sentence or dragging a scale slider then skips regenerating 4 d_model^2
// random numbers (8 ms at d_model 512 here). Shared by the GUI's worker threads.
std::shared_ptr<const AttentionWeights> generatedWeights(const Config& config)
{
    struct Key {
        Index d_model;
        std::uint64_t seed;
        WeightInit init;
        bool withBias;
        bool operator==(const Key&) const = default;
    };
    static std::mutex mutex;
    static std::optional<Key> lastKey;
    static std::shared_ptr<const AttentionWeights> last;

    const Key key{config.d_model, config.seed, config.init, config.withBias};
    {
        std::lock_guard lock(mutex);
        if (lastKey == key) return last;
    }
    auto weights = std::make_shared<const AttentionWeights>(
        initialiseWeights(config.d_model, config.seed, config.init, config.withBias));
    std::lock_guard lock(mutex);
    lastKey = key;
    last = weights;
    return weights;
}

}  // namespace

Expected<std::shared_ptr<const Result>> compute(const Config& config, const UserInputs& inputs)
{
    const auto started = std::chrono::steady_clock::now();

    SentenceOverrides overrides;
    if (inputs.sourceEmbeddings) overrides.sourceRows = inputs.sourceEmbeddings->rows();
    if (inputs.targetEmbeddings) overrides.targetRows = inputs.targetEmbeddings->rows();
    std::vector<ValidationIssue> issues = validateConfig(config, overrides);
    checkEmbeddings(inputs.sourceEmbeddings, "source", config.d_model, issues);
    checkEmbeddings(inputs.targetEmbeddings, "target", config.d_model, issues);
    checkWeights(inputs.weights, config.d_model, issues);
    if (!issues.empty()) return Error{describe(issues)};

    try {
        auto result = std::make_shared<Result>();
        result->config = config;

        // Which sentence gives the queries and which the keys and values (design.md section 2).
        const bool needsSource = config.mode != AttentionMode::DecoderCausal;
        const bool needsTarget = config.mode != AttentionMode::EncoderSelf;
        Sentence source, target;
        if (needsSource) source = prepareSentence(config.sourceText, inputs.sourceEmbeddings, config);
        if (needsTarget) target = prepareSentence(config.targetText, inputs.targetEmbeddings, config);
        const Sentence& querySentence = config.queriesFromTarget() ? target : source;
        const Sentence& keySentence = config.keysFromTarget() ? target : source;
        result->queryTokens = querySentence.tokens;
        result->keyTokens = keySentence.tokens;
        result->queryLabels = querySentence.labels;
        result->keyLabels = keySentence.labels;
        result->queryInput = querySentence.embeddings;
        result->keyValueInput = keySentence.embeddings;

        if (inputs.weights) {
            result->weights = scaledWeights(*inputs.weights, config.scales);
        } else {
            const std::shared_ptr<const AttentionWeights> generated = generatedWeights(config);
            result->weights = scaledWeights(*generated, config.scales);
        }

        AttentionMask mask;
        mask.causal = config.mode == AttentionMode::DecoderCausal;
        result->attention = multiHeadAttentionForward(result->queryInput, result->keyValueInput, result->weights,
                                                      config.headCount, mask);
        if (!result->attention.output.allFinite()) {
            return Error{"The numbers overflowed the float range (values beyond 3.4e38): lower the weight "
                         "scales or the size of the loaded weights or embeddings."};
        }

        result->computeMilliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
        return std::shared_ptr<const Result>(std::move(result));
    } catch (const std::bad_alloc&) {
        return Error{"Not enough memory for this configuration: shorten the sentences or lower h or d_model."};
    }
}

}  // namespace qkv
