#pragma once
// Config (+ optional user weights and embeddings) -> one immutable Result.
// The single entry point the GUI and the command line share.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/attention/multi_head_attention.hpp"
#include "core/common/expected.hpp"
#include "core/config/config.hpp"
#include "core/text/tokenizer.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

// What the user supplied instead of the generated defaults.
struct UserInputs {
    std::optional<AttentionWeights> weights;     // replaces the seeded initialisation
    std::optional<MatrixF> sourceEmbeddings;     // replaces generated source X (n_src x d_model)
    std::optional<MatrixF> targetEmbeddings;     // replaces generated target X (n_tgt x d_model)
};

struct Result {
    Config config;
    std::vector<Token> queryTokens;         // tokens of the sentence that gives the queries
    std::vector<Token> keyTokens;           // ... that gives the keys and values
    std::vector<std::string> queryLabels;   // token texts, or t0, t1, ... for user embeddings
    std::vector<std::string> keyLabels;     //   whose row count differs from the token count
    MatrixF queryInput;                     // X_q,  n_q x d_model
    MatrixF keyValueInput;                  // X_kv, n_k x d_model
    AttentionWeights weights;               // as used: user's or generated, after scales
    AttentionResult attention;
    double computeMilliseconds = 0.0;       // wall time of compute(), for the status bar
};

// Validates everything first (config, shapes of user inputs, finiteness) and reports every
// problem in one message; never throws, never crashes on bad input.
Expected<std::shared_ptr<const Result>> compute(const Config& config, const UserInputs& inputs = {});

}  // namespace qkv
