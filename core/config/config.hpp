#pragma once
// What the user chose: sentences, mode, sizes, seed, initialisation, scales.
// Config + weights -> core computes an immutable Result (design.md section 1).

#include <cstdint>
#include <string>
#include <string_view>

#include "core/weights/attention_weights.hpp"

namespace qkv {

enum class AttentionMode {
    EncoderSelf,    // source attends to source, no mask
    DecoderCausal,  // target attends to target, query t sees keys <= t
    Cross,          // queries from the target, keys and values from the source
};

// "self", "causal", "cross" (the CLI and file spelling).
std::string_view modeName(AttentionMode mode);
bool parseMode(std::string_view name, AttentionMode& mode);
// One line for people: where Q, K and V come from in this mode.
std::string_view modeExplanation(AttentionMode mode);

struct Config {
    std::string sourceText;
    std::string targetText;
    AttentionMode mode = AttentionMode::Cross;
    Index d_model = 64;
    Index headCount = 4;  // h
    std::uint64_t seed = 0;
    WeightInit init = WeightInit::XavierUniform;
    bool positionalEncoding = true;
    bool withBias = false;
    ProjectionScales scales;

    Index d_k() const { return headCount > 0 ? d_model / headCount : 0; }
    // Which sentence gives the queries, and which the keys and values.
    bool queriesFromTarget() const { return mode != AttentionMode::EncoderSelf; }
    bool keysFromTarget() const { return mode == AttentionMode::DecoderCausal; }

    bool operator==(const Config&) const = default;
};

}  // namespace qkv
