#pragma once
// One edit, ready to compute: the configuration and inputs, both typed sentences cut once, and
// what validation found. The app's document makes one per edit on the GUI thread (cheap: an
// unchanged sentence keeps the previous request's cut), the estimate of the work reads its
// token counts, and compute(request) (core/pipeline/compute.hpp) neither validates the
// configuration nor cuts a sentence again: per edit, each changed sentence is tokenized once.

#include <vector>

#include "core/config/config.hpp"
#include "core/config/memory_estimate.hpp"
#include "core/config/validation.hpp"
#include "core/pipeline/cut_sentence.hpp"
#include "core/result/user_inputs.hpp"

namespace qkv {

struct ComputeRequest {
    Config config;
    UserInputs inputs;
    // Both sentences, read by the mode or not (the sentence fields show them all): words, and
    // the model's tokens while Config::embeddings is Model.
    CutSentences sentences;
    // validateInputs on this configuration and these cuts; compute() runs only when empty.
    std::vector<ValidationIssue> issues;
    // What compute() keeps of each head's map (AnalysisPlan::pooledBlocks) and what runs after it.
    AnalysisPlan plan;

    bool valid() const { return issues.empty(); }
    // n_q and n_k as compute() sees them: the rows of user embeddings, else the model's tokens
    // with its own input, else the words.
    Index queryTokenCount() const;
    Index keyTokenCount() const;
};

// Cuts the sentences and validates. `previous` (may be null) lends its cut of a sentence whose
// text and model input are unchanged.
ComputeRequest prepareCompute(const Config& config, const UserInputs& inputs, const AnalysisPlan& plan = {},
                              const ComputeRequest* previous = nullptr);

// The one rule of what a caller that draws the layer (the app) computes: every head's map held
// while both sentences fit limits::maxFullMapTokens (a request prepareCompute(config, inputs, {})
// would give, so the views' numbers stay bit-identical), else each map streamed and kept pooled
// to at most `pooledBlocks` blocks each way (AnalysisPlan::pooledBlocks; the app and `qkv-studio
// figure` pass limits::drawnPooledBlocks), up to limits::maxTokens.
// Validation follows the plan chosen: the memory estimate counts pooled maps for a long layer.
ComputeRequest prepareDrawnCompute(const Config& config, const UserInputs& inputs, Index pooledBlocks,
                                   const ComputeRequest* previous = nullptr);

}  // namespace qkv
