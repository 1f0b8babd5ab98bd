#include "core/config/config.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace qkv {

namespace {

// One table per enum: the spelling files and the command line use, defined once.
template <class Enum, std::size_t N>
bool parseByName(std::string_view name, const std::array<std::pair<Enum, std::string_view>, N>& names, Enum& out)
{
    for (const auto& [value, spelling] : names) {
        if (spelling == name) {
            out = value;
            return true;
        }
    }
    return false;
}

template <class Enum, std::size_t N>
std::string_view nameOf(Enum value, const std::array<std::pair<Enum, std::string_view>, N>& names)
{
    for (const auto& [candidate, spelling] : names)
        if (candidate == value) return spelling;
    return names.front().second;
}

constexpr std::array<std::pair<AttentionMode, std::string_view>, 3> kModes{{
    {AttentionMode::EncoderSelf, "self"},
    {AttentionMode::DecoderCausal, "causal"},
    {AttentionMode::Cross, "cross"},
}};
constexpr std::array<std::pair<PositionalEncoding, std::string_view>, 4> kPositional{{
    {PositionalEncoding::Sinusoidal, "sinusoidal"},
    {PositionalEncoding::Rotary, "rotary"},
    {PositionalEncoding::RotaryInterleaved, "rotary-interleaved"},
    {PositionalEncoding::None, "none"},
}};
constexpr std::array<std::pair<EmbeddingKind, std::string_view>, 3> kEmbeddings{{
    {EmbeddingKind::Word, "word"},
    {EmbeddingKind::Meaning, "meaning"},
    {EmbeddingKind::Model, "model"},
}};

}  // namespace

std::string_view modeName(AttentionMode mode) { return nameOf(mode, kModes); }
bool parseMode(std::string_view name, AttentionMode& mode) { return parseByName(name, kModes, mode); }
std::string_view positionalName(PositionalEncoding p) { return nameOf(p, kPositional); }
bool parsePositional(std::string_view name, PositionalEncoding& p) { return parseByName(name, kPositional, p); }
std::string_view embeddingsName(EmbeddingKind kind) { return nameOf(kind, kEmbeddings); }
bool parseEmbeddings(std::string_view name, EmbeddingKind& kind) { return parseByName(name, kEmbeddings, kind); }

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

const HeadPreset* Config::presetFor(Index head) const
{
    const auto found = std::find_if(presets.begin(), presets.end(), [head](const HeadPreset& p) { return p.head == head; });
    return found == presets.end() ? nullptr : &*found;
}

bool Config::isAblated(Index head) const
{
    return std::find(ablatedHeads.begin(), ablatedHeads.end(), head) != ablatedHeads.end();
}

}  // namespace qkv
