#pragma once
// Checks a configuration before any of it reaches Eigen, with messages a person understands.

#include <cstddef>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/config/memory_estimate.hpp"

namespace qkv {

// The control a problem belongs to, so the UI can show the message right there.
enum class ConfigField {
    Source, Target, Mode, DModel, Heads, HeadDim, KeyValueHeads, Weights, Embeddings, Positional, Presets, Ablation
};

struct ValidationIssue {
    ConfigField field;
    std::string message;
};

// The typed sentences' word counts (tokenize()), when the caller has cut them already; -1: the
// sentence is cut here. Counts of text over limits::maxSentenceBytes are not read.
struct SentenceWordCounts {
    Index source = -1;
    Index target = -1;
};

// Sizes and structure: h >= 1, h divides d_model unless d_k is set (the message names the nearest
// valid h), d_k and h d_k within limits,
// d_model within limits, the sentence(s) the mode needs are non-empty and within limits, and
// the estimated peak memory (estimateMemory, with what `plan` adds after compute()) stays under
// limits::maxResultBytes. Empty = valid.
std::vector<ValidationIssue> validateConfig(const Config& config, const SentenceOverrides& overrides = {},
                                            const AnalysisPlan& plan = {}, const SentenceWordCounts& words = {});

// Empty when a sentence of `tokens` tokens fits what `plan` holds (sentenceTokenLimit), else the
// message's tail after "The source sentence has ": "5000 tokens; the limit is 4096 when ...".
std::string tokenCountProblem(Index tokens, const AnalysisPlan& plan);

// The valid head count (a divisor of d_model) nearest to `requested`; ties go to the larger.
Index nearestValidHeadCount(Index d_model, Index requested);

// Bytes a Result of the paper's layer holds (g = h, no rotation, no biases, one set of weights):
// X_q, X_kv, Q, K, V, per-head scores and attention, head outputs, output, W^Q..W^O. The held
// part of estimateMemory(), which counts everything (and refuses configurations).
std::size_t estimateResultBytes(Index queryTokens, Index keyTokens, Index d_model, Index headCount);

// Joins issue messages into one line each ("h: ...").
std::string describe(const std::vector<ValidationIssue>& issues);

}  // namespace qkv
