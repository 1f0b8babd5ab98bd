#pragma once
// What is wrong with a configuration and the inputs that go with it, before computing: the
// configuration's own checks (validateConfig, with the rows of user embeddings standing for
// their sentences), whether loaded weights fit it (weightsFitIssues), and the model's own input
// (modelInputIssues) or, with a trained model, what does not fit between it and the
// configuration (trainedModelIssues). One rule for compute(), the app's document and the
// command line, so each says the same things.

#include <vector>

#include "core/config/validation.hpp"
#include "core/pipeline/cut_sentence.hpp"
#include "core/result/user_inputs.hpp"

namespace qkv {

// `cuts`: the typed sentences as this edit cut them (core/pipeline/compute_request.hpp); a
// sentence without one is cut here.
std::vector<ValidationIssue> validateInputs(const Config& config, const UserInputs& inputs,
                                            const AnalysisPlan& plan = {}, const CutSentences& cuts = {});

// Problems of the model's own input (Config::embeddings = Model): none is loaded, it has another
// d_model, or a sentence its tokenizer refuses or that is longer than its positions, each under
// its field (Embeddings, Source, Target). Part of validateInputs.
std::vector<ValidationIssue> modelInputIssues(const Config& config, const UserInputs& inputs,
                                              const CutSentences& cuts = {});

// Loaded weights fix d_model and g (their shapes say them): a configuration that asks for others
// is told so at the field that asks (d_model, h or g), where the user just typed. Shapes only;
// compute() checks the values. Nothing while `weights` is null (generated weights fit any
// configuration) or h does not divide d_model (validateConfig says so at h).
std::vector<ValidationIssue> weightsFitIssues(const AttentionWeights* weights, const Config& config);

}  // namespace qkv
