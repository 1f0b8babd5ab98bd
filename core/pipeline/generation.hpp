#pragma once
// Continuing a causal language model's prompt, one token at a time: each step runs the model on
// the sequence so far, takes the readout at its last position and picks the next token, greedily
// (the most likely; the smaller id of equal ones) or sampled from softmax(z / T) with a seeded
// generator. Each step passes the previous run (RunOptions::previous), so only the new token's
// row of every layer is computed: its key and value join the earlier ones, which are kept (the
// key/value cache), with the bits of a run of the whole sequence (model_run.hpp).
//
// Symbols: z the logits at the last position (1 x V), T the temperature.
//   probability   p_v = softmax(z)_v, the model's own (T = 1), reported for the chosen token
//   sampling      q_v = softmax(z / T)_v; the token is the first v whose cumulative q reaches
//                 u * sum(q), u uniform in [0, 1) from SplitMix64(seed), one draw per token

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/analysis/predictions.hpp"
#include "core/common/expected.hpp"
#include "core/common/random.hpp"
#include "core/pipeline/pretrained_run.hpp"
#include "core/pretrained/model_run.hpp"

namespace qkv {

// At most this many tokens in one generation: each is a run of every layer.
inline constexpr Index kMaxGeneratedTokens = 4096;

struct GenerationOptions {
    Index newTokens = 0;       // N, 1 to kMaxGeneratedTokens
    double temperature = 0.0;  // 0: greedy; else sampled at T (finite, > 0)
    std::uint64_t seed = 0;    // the sampling's generator
    Index alternatives = 5;    // the most likely tokens kept at each step
    // Switched-off heads, keepScores, and the prompt's own run as `previous` when there is one;
    // the readout rows are set per step.
    RunOptions run;
};

struct GeneratedToken {
    Index position = 0;        // its place in the sequence: the prompt's length for the first
    std::int32_t id = 0;
    double probability = 0.0;  // p under the model at the position before it (T = 1)
    std::vector<TokenProbability> top;  // the most likely tokens there, most likely first
};

struct Generation {
    std::vector<std::int32_t> ids;             // the prompt, then the generated tokens
    std::vector<GeneratedToken> generated;
    // The run that chose the last token: every layer over ids without that token. Pass it as
    // RunOptions::previous to run the whole of ids with one more row computed.
    std::shared_ptr<const ModelRun> lastRun;
    bool stopped = false;  // the progress callback asked to stop before newTokens
};

// Called after each token with the run that chose it; returning false stops the generation.
using GenerationProgress = std::function<bool(const GeneratedToken&, const ModelRun&)>;

// Refuses, naming why: a model that is not a causal language model (a masked LM, an
// encoder-decoder, no readout), N outside 1..kMaxGeneratedTokens, a temperature that is negative
// or not finite, and a prompt plus N past the model's positions or limits::maxModelTokens.
Status checkGeneration(const PretrainedModel& model, Index promptLength, const GenerationOptions& options);

// Generates options.newTokens tokens after `prompt` (checkGeneration's refusals, and a run's).
Expected<Generation> generateTokens(const PretrainedModel& model, const std::vector<std::int32_t>& prompt,
                                    const GenerationOptions& options, const GenerationProgress& progress = {});

// The next token from one position's logits: greedy at temperature 0, else sampled (above).
// Errors: as topPredictions (no logits, or logits that are not finite).
Expected<std::int32_t> chooseToken(const LogitsRow& logits, double temperature, SplitMix64& random);

// `sentences` with the generated tokens after its one sequence: their pieces and chips from the
// model's tokenizer (empty pieces without one), at the end of the typed text.
ModelSentences withGeneratedTokens(const PretrainedModel& model, ModelSentences sentences,
                                   const std::vector<GeneratedToken>& generated);

}  // namespace qkv
