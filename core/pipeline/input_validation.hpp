#pragma once
// What is wrong with a configuration and the inputs that go with it, before computing: the
// configuration's own checks (validateConfig, with the rows of user embeddings standing for
// their sentences) and the model's own input (modelInputIssues) or, with a trained model, what
// does not fit between it and the configuration (trainedModelIssues). One rule for compute(), the
// app's document and the command line, so each says the same things.

#include <vector>

#include "core/config/validation.hpp"
#include "core/pipeline/compute.hpp"

namespace qkv {

std::vector<ValidationIssue> validateInputs(const Config& config, const UserInputs& inputs,
                                            const AnalysisPlan& plan = {});

}  // namespace qkv
