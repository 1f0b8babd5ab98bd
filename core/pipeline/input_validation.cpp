#include "core/pipeline/input_validation.hpp"

#include <string>

#include "core/pipeline/trained_layer.hpp"

namespace qkv {

std::vector<ValidationIssue> validateInputs(const Config& config, const UserInputs& inputs, const AnalysisPlan& plan,
                                            const CutSentences& cuts)
{
    SentenceOverrides overrides;
    if (inputs.sourceEmbeddings) overrides.sourceRows = inputs.sourceEmbeddings->rows();
    if (inputs.targetEmbeddings) overrides.targetRows = inputs.targetEmbeddings->rows();
    // The caller's cuts, or cut here for a caller without them.
    const CutSentences cut = cutSentences(config, inputs, cuts);
    const SentenceWordCounts words{static_cast<Index>(cut.source->words.size()),
                                   static_cast<Index>(cut.target->words.size())};
    std::vector<ValidationIssue> issues = validateConfig(config, overrides, plan, words);
    for (const ValidationIssue& issue : weightsFitIssues(inputs.weights.get(), config)) issues.push_back(issue);
    // A trained model computes X from the sentences itself; the embeddings setting is not read.
    const std::vector<ValidationIssue> inputIssues =
        inputs.trainedModel ? trainedModelIssues(config, inputs) : modelInputIssues(config, inputs, cut);
    for (const ValidationIssue& issue : inputIssues) issues.push_back(issue);
    return issues;
}

std::vector<ValidationIssue> modelInputIssues(const Config& config, const UserInputs& inputs, const CutSentences& cuts)
{
    std::vector<ValidationIssue> issues;
    if (config.embeddings != EmbeddingKind::Model) return issues;
    const bool source = config.needsSource() && !inputs.sourceEmbeddings;
    const bool target = config.needsTarget() && !inputs.targetEmbeddings;
    if (!source && !target) return issues;
    const ModelInput* model = inputs.modelInput.get();
    if (!model) {
        issues.push_back({ConfigField::Embeddings,
                          "The embeddings are the model's own input, but no checkpoint layer with its "
                          "tokenizer files is open (File > Open Checkpoint..., or choose other embeddings)."});
        return issues;
    }
    if (model->d_model() != config.d_model) {
        issues.push_back(
            {ConfigField::Embeddings, "The model's own input has d_model = " + std::to_string(model->d_model()) +
                                          " but d_model is set to " + std::to_string(config.d_model) + "."});
        return issues;
    }
    // Each sentence as the model's tokenizer cuts it, against the model's positions.
    const auto check = [&](const std::string& text, const std::shared_ptr<const CutSentence>& given, const char* name,
                           ConfigField field) {
        // The edit's cut when this model made it of this text, else cut here.
        const std::shared_ptr<const CutSentence> cut = recutSentence(given, text, inputs.modelInput);
        const Expected<SubwordTokenization>& tokens = *cut->subwords;
        const std::string prefix = std::string("The ") + name + " sentence";
        if (!tokens)
            issues.push_back({field, prefix + ": " + tokens.error()});
        else if (tokens->tokens.empty())
            issues.push_back({field, prefix + " gives the model no tokens."});
        else if (static_cast<Index>(tokens->tokens.size()) > model->positionCount())
            issues.push_back({field, prefix + " is " + std::to_string(tokens->tokens.size()) +
                                         " of the model's tokens; its positions go up to " +
                                         std::to_string(model->positionCount()) + "."});
    };
    if (source) check(config.sourceText, cuts.source, "source", ConfigField::Source);
    if (target) check(config.targetText, cuts.target, "target", ConfigField::Target);
    return issues;
}

std::vector<ValidationIssue> weightsFitIssues(const AttentionWeights* weights, const Config& config)
{
    std::vector<ValidationIssue> issues;
    if (!weights) return issues;
    const std::string freeIt = " (generated weights free it).";
    if (weights->d_model() != config.d_model) {
        issues.push_back(
            {ConfigField::DModel, "The loaded weights have d_model = " + std::to_string(weights->d_model()) +
                                      " but d_model is set to " + std::to_string(config.d_model) +
                                      "; the weights fix d_model" + freeIt});
        return issues;
    }
    if (config.headCount < 1 || (!config.headDimSet() && config.d_model % config.headCount != 0)) return issues;
    if (const std::string problem = weights->shapeProblem(config.headCount); !problem.empty()) {
        issues.push_back({ConfigField::Heads, problem});
        return issues;
    }
    // The weights carry their head width: W^Q has h d_k columns.
    if (const Index d_k = weights->grouping(config.headCount).d_k; d_k != config.d_k()) {
        issues.push_back({ConfigField::HeadDim, "The loaded weights have d_k = " + std::to_string(d_k) + " (W^Q has " +
                                                    std::to_string(weights->queryWidth()) + " columns at h = " +
                                                    std::to_string(config.headCount) + ") but d_k is " +
                                                    std::to_string(config.d_k()) + "; the weights fix d_k" + freeIt});
        return issues;
    }
    const Index g = weights->grouping(config.headCount).keyValueHeadCount;
    if (g != config.g())
        issues.push_back({ConfigField::KeyValueHeads,
                          "The loaded weights have g = " + std::to_string(g) +
                              " key/value heads at h = " + std::to_string(config.headCount) + " but g is set to " +
                              std::to_string(config.g()) + "; the weights fix g" + freeIt});
    return issues;
}

}  // namespace qkv
