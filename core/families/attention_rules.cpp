#include "core/families/attention_rules.hpp"

#include <cctype>
#include <string>

#include "core/families/family_table.hpp"

namespace qkv {

namespace {

// Whether block `block` is a sliding-window layer (Hugging Face's layer_types, or the defaults the
// family's configuration fills it with when a file predates the key: its row's slidingLayers).
Expected<bool> slides(const CheckpointConfig& config, Index block)
{
    if (!config.layerTypes.empty()) {
        if (block >= static_cast<Index>(config.layerTypes.size()))
            return Error{"config.json's layer_types lists " + std::to_string(config.layerTypes.size()) +
                         " layers; there is no entry for block " + std::to_string(block)};
        const std::string& type = config.layerTypes[static_cast<std::size_t>(block)];
        if (type == "sliding_attention") return true;
        if (type == "full_attention") return false;
        return Error{"config.json's layer_types names \"" + type + "\" for block " + std::to_string(block) +
                     " (known: sliding_attention, full_attention)"};
    }
    const FamilyRow* row = familyOfModelType(config.modelType);
    switch (row ? row->slidingLayers : SlidingLayers::Every) {
    case SlidingLayers::Every: return true;
    case SlidingLayers::EvenBlocks: return block % 2 == 0;
    case SlidingLayers::AllButEveryPth: return (block + 1) % config.slidingWindowPattern.value_or(row->slidingPattern) != 0;
    }
    return true;
}

}  // namespace

Expected<Index> layerWindow(const CheckpointConfig& config, Index block)
{
    Expected<bool> sliding = slides(config, block);
    if (!sliding) return Error{sliding.error()};
    return *sliding ? config.slidingWindow.value_or(0) : Index{0};
}

bool hasSlidingLayers(const CheckpointConfig& config) { return config.slidingWindow.value_or(0) > 0; }

std::string layerWindowLabel(const CheckpointConfig& config, Index block)
{
    if (!hasSlidingLayers(config)) return {};
    const Expected<Index> window = layerWindow(config, block);
    if (!window) return {};
    return *window > 0 ? "sliding " + std::to_string(*window) : std::string("global");
}

Expected<AttentionConventions> layerAttentionConventions(const CheckpointConfig& config, Index block, Index d_k)
{
    AttentionConventions c;
    Expected<bool> sliding = slides(config, block);
    if (!sliding) return Error{sliding.error()};
    Expected<Index> window = layerWindow(config, block);
    if (!window) return Error{window.error()};
    c.slidingWindow = *window;
    c.ropeBase = config.ropeTheta.value_or(10000.0);
    c.ropeScaling = config.ropeScaling;
    if (*sliding && config.ropeLocalBase) {  // Gemma 3: local layers rotate by their own, unscaled base
        c.ropeBase = *config.ropeLocalBase;
        c.ropeScaling = {};
    }
    if (config.partialRotary && *config.partialRotary < 1.0) {
        c.rotaryDims = static_cast<Index>(static_cast<double>(d_k) * *config.partialRotary);
        if (c.rotaryDims % 2 != 0 || c.rotaryDims < 2)
            return Error{"config.json's rotated share " + std::to_string(*config.partialRotary) + " of d_k = " +
                         std::to_string(d_k) + " gives " + std::to_string(c.rotaryDims) +
                         " components, not a positive even number (rotary turns pairs)"};
    }
    if (config.queryPreAttnScalar) c.scoreDim = *config.queryPreAttnScalar;
    // Gemma 3's attention never passes its attn_logit_softcapping on (transformers' Gemma3Attention).
    const FamilyRow* row = familyOfModelType(config.modelType);
    if (config.attentionSoftCap && (!row || row->scoreSoftCapRead)) c.scoreSoftCap = *config.attentionSoftCap;
    return c;
}

float normWeightOffset(const CheckpointConfig& config)
{
    const FamilyRow* row = familyOfModelType(config.modelType);
    return row ? row->normWeightOffset : 0.0f;
}

Index blockNumberOf(std::string_view layerName)
{
    std::size_t end = layerName.size();
    while (end > 0) {
        while (end > 0 && !std::isdigit(static_cast<unsigned char>(layerName[end - 1]))) --end;
        std::size_t begin = end;
        while (begin > 0 && std::isdigit(static_cast<unsigned char>(layerName[begin - 1]))) --begin;
        if (begin < end && end - begin <= 9) return std::stol(std::string(layerName.substr(begin, end - begin)));
        end = begin;
    }
    return 0;
}

}  // namespace qkv
