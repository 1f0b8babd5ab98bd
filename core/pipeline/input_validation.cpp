#include "core/pipeline/input_validation.hpp"

namespace qkv {

std::vector<ValidationIssue> validateInputs(const Config& config, const UserInputs& inputs, const AnalysisPlan& plan)
{
    SentenceOverrides overrides;
    if (inputs.sourceEmbeddings) overrides.sourceRows = inputs.sourceEmbeddings->rows();
    if (inputs.targetEmbeddings) overrides.targetRows = inputs.targetEmbeddings->rows();
    std::vector<ValidationIssue> issues = validateConfig(config, overrides, plan);
    for (ValidationIssue& issue : modelInputIssues(config, inputs)) issues.push_back(std::move(issue));
    return issues;
}

}  // namespace qkv
