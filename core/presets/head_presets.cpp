// PLACEHOLDER: the constructions land in the next commits.
#include "core/presets/head_presets.hpp"

namespace qkv {

void applyHeadPresets(AttentionWeights& weights, const Config& config)
{
    const HeadGrouping g = config.grouping();
    for (const HeadPreset& preset : config.presets) {
        if (preset.kind == HeadPresetKind::Uniform) weights.queryHead(preset.head, g).setZero();
    }
}

}  // namespace qkv
