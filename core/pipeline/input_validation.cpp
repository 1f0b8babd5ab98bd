#include "core/pipeline/input_validation.hpp"

#include <string>

#include "core/pipeline/trained_layer.hpp"

namespace qkv {

std::vector<ValidationIssue> validateInputs(const Config& config, const UserInputs& inputs, const AnalysisPlan& plan)
{
    SentenceOverrides overrides;
    if (inputs.sourceEmbeddings) overrides.sourceRows = inputs.sourceEmbeddings->rows();
    if (inputs.targetEmbeddings) overrides.targetRows = inputs.targetEmbeddings->rows();
    std::vector<ValidationIssue> issues = validateConfig(config, overrides, plan);
    for (const ValidationIssue& issue : weightsFitIssues(inputs.weights.get(), config)) issues.push_back(issue);
    // A trained model computes X from the sentences itself; the embeddings setting is not read.
    const std::vector<ValidationIssue> inputIssues =
        inputs.trainedModel ? trainedModelIssues(config, inputs) : modelInputIssues(config, inputs);
    for (const ValidationIssue& issue : inputIssues) issues.push_back(issue);
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
    if (config.headCount < 1 || config.d_model % config.headCount != 0) return issues;
    if (const std::string problem = weights->shapeProblem(config.headCount); !problem.empty()) {
        issues.push_back({ConfigField::Heads, problem});
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
