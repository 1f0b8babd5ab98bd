#pragma once
// Applies a Config's head presets to a layer's weights (issue 7). The constructions and why
// each bilinear form picks its key: docs/presets.md and head_presets.cpp.

#include "core/config/config.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

// Rewrites the heads named by config.presets in `weights` (which must fit config.grouping()).
// Other heads are untouched. Deterministic: a function of the Config alone.
void applyHeadPresets(AttentionWeights& weights, const Config& config);

}  // namespace qkv
