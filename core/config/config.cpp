#include "core/config/config.hpp"

#include <algorithm>

namespace qkv {

// The spellings are the tables in config.hpp; these name and parse through them.
std::string_view modeName(AttentionMode mode) { return nameOf(kAttentionModeNames, mode); }
std::string_view positionalName(PositionalEncoding p) { return nameOf(kPositionalEncodingNames, p); }
std::string_view embeddingsName(EmbeddingKind kind) { return nameOf(kEmbeddingKindNames, kind); }

bool parseMode(std::string_view name, AttentionMode& mode) { return parseName(kAttentionModeNames, name, mode); }
bool parsePositional(std::string_view name, PositionalEncoding& p)
{
    return parseName(kPositionalEncodingNames, name, p);
}
bool parseEmbeddings(std::string_view name, EmbeddingKind& kind) { return parseName(kEmbeddingKindNames, name, kind); }

std::string_view modeExplanation(AttentionMode mode)
{
    switch (mode) {
    case AttentionMode::EncoderSelf:
        return "Encoder self-attention: Q, K and V all come from the source sentence; every token sees every token.";
    case AttentionMode::DecoderCausal:
        return "Decoder masked self-attention: Q, K and V come from the target; token t sees only tokens 0..t.";
    case AttentionMode::Cross:
        return "Cross-attention: queries Q come from the target, keys K and values V from the source. In a "
               "Transformer they are hidden states: Q from the decoder layer below (the target so far), K and V "
               "from the encoder's output over the source sentence (section 3.2.3).";
    }
    return {};
}

const HeadPreset* Config::presetFor(Index head) const
{
    const auto found =
        std::find_if(presets.begin(), presets.end(), [head](const HeadPreset& p) { return p.head == head; });
    return found == presets.end() ? nullptr : &*found;
}

bool Config::isAblated(Index head) const
{
    return std::find(ablatedHeads.begin(), ablatedHeads.end(), head) != ablatedHeads.end();
}

}  // namespace qkv
