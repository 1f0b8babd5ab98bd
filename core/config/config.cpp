#include "core/config/config.hpp"

namespace qkv {

std::string_view modeName(AttentionMode mode)
{
    switch (mode) {
    case AttentionMode::EncoderSelf: return "self";
    case AttentionMode::DecoderCausal: return "causal";
    case AttentionMode::Cross: return "cross";
    }
    return "self";
}

bool parseMode(std::string_view name, AttentionMode& mode)
{
    for (AttentionMode candidate : {AttentionMode::EncoderSelf, AttentionMode::DecoderCausal, AttentionMode::Cross}) {
        if (name == modeName(candidate)) {
            mode = candidate;
            return true;
        }
    }
    return false;
}

std::string_view modeExplanation(AttentionMode mode)
{
    switch (mode) {
    case AttentionMode::EncoderSelf:
        return "Encoder self-attention: Q, K and V all come from the source sentence; every token sees every token.";
    case AttentionMode::DecoderCausal:
        return "Decoder masked self-attention: Q, K and V come from the target; token t sees only tokens 0..t.";
    case AttentionMode::Cross:
        return "Cross-attention: queries Q come from the target, keys K and values V from the source.";
    }
    return {};
}

}  // namespace qkv
