#include "core/pipeline/input_validation.hpp"

#include "core/pipeline/trained_layer.hpp"

namespace qkv {

std::vector<ValidationIssue> validateInputs(const Config& config, const UserInputs& inputs, const AnalysisPlan& plan)
{
    SentenceOverrides overrides;
    if (inputs.sourceEmbeddings) overrides.sourceRows = inputs.sourceEmbeddings->rows();
    if (inputs.targetEmbeddings) overrides.targetRows = inputs.targetEmbeddings->rows();
    std::vector<ValidationIssue> issues = validateConfig(config, overrides, plan);
    // A trained model computes X from the sentences itself; the embeddings setting is not read.
    const std::vector<ValidationIssue> inputIssues =
        inputs.trainedModel ? trainedModelIssues(config, inputs) : modelInputIssues(config, inputs);
    for (const ValidationIssue& issue : inputIssues) issues.push_back(issue);
    return issues;
}

}  // namespace qkv
