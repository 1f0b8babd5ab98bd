#pragma once
// What the user chose: sentences, mode, sizes, seed, initialisation, positions, embeddings,
// head presets, ablations and scales. Config + weights -> core computes an immutable Result
// (docs/architecture.md, "Layers"). Every spelling used by files and the command line is defined here
// once, in one table per enumeration (kAttentionModeNames, kPositionalEncodingNames,
// kEmbeddingKindNames; kWeightInitNames and kHeadPresetNames beside their types).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/enum_names.hpp"
#include "core/config/attention_conventions.hpp"
#include "core/config/rope_scaling.hpp"
#include "core/weights/attention_weights.hpp"
#include "core/weights/head_preset.hpp"

namespace qkv {

enum class AttentionMode {
    EncoderSelf,    // source attends to source, no mask
    DecoderCausal,  // target attends to target, query t sees keys <= t
    Cross,          // queries from the target, keys and values from the source
};

// The command-line and file spelling.
inline constexpr std::array<EnumName<AttentionMode>, 3> kAttentionModeNames{{
    {AttentionMode::EncoderSelf, "self"},
    {AttentionMode::DecoderCausal, "causal"},
    {AttentionMode::Cross, "cross"},
}};
std::string_view modeName(AttentionMode mode);
bool parseMode(std::string_view name, AttentionMode& mode);
// One line for people: where Q, K and V come from in this mode.
std::string_view modeExplanation(AttentionMode mode);

// Where position enters (paper section 3.5, or rotary positions as in RoFormer / LLaMA).
enum class PositionalEncoding {
    Sinusoidal,         // PE(pos) added to X (the paper; the default)
    Rotary,             // q and k rotated by position, "rotate half" pairs (j, j + d_k/2), HF LLaMA
    RotaryInterleaved,  // q and k rotated by position, pairs (2j, 2j+1) (RoFormer, GPT-J)
    None,               // X is the token embedding alone
};
inline constexpr std::array<EnumName<PositionalEncoding>, 4> kPositionalEncodingNames{{
    {PositionalEncoding::Sinusoidal, "sinusoidal"},
    {PositionalEncoding::Rotary, "rotary"},
    {PositionalEncoding::RotaryInterleaved, "rotary-interleaved"},
    {PositionalEncoding::None, "none"},
}};
std::string_view positionalName(PositionalEncoding positional);
bool parsePositional(std::string_view name, PositionalEncoding& positional);
inline bool isRotary(PositionalEncoding p)
{
    return p == PositionalEncoding::Rotary || p == PositionalEncoding::RotaryInterleaved;
}

// How a token becomes a vector before positions are added.
enum class EmbeddingKind {
    Word,     // a vector per lower-cased word, from the seed (the default)
    Meaning,  // a vector per concept of the built-in lexicon, shared by a word's translations
    // The model's own first-layer input: its subword tokens and its learned token and position
    // embeddings, normalised as the model does (a checkpoint's first layer;
    // core/embedding/model_input.hpp). Positions are inside X: nothing is added to it.
    Model,
};
inline constexpr std::array<EnumName<EmbeddingKind>, 3> kEmbeddingKindNames{{
    {EmbeddingKind::Word, "word"},
    {EmbeddingKind::Meaning, "meaning"},
    {EmbeddingKind::Model, "model"},
}};
std::string_view embeddingsName(EmbeddingKind kind);
bool parseEmbeddings(std::string_view name, EmbeddingKind& kind);

struct Config {
    std::string sourceText;
    std::string targetText;
    AttentionMode mode = AttentionMode::Cross;
    Index d_model = 64;
    Index headCount = 4;          // h
    Index keyValueHeadCount = 0;  // g: key/value heads, dividing h; 0 means g = h (multi-head)
    // d_k = d_v, the width of one head. 0 means d_model / h (the paper, section 3.2.2); a model's
    // own number otherwise, wider or narrower (Qwen3-0.6B: d_model 1024, h 16, d_k 128).
    Index headDim = 0;
    std::uint64_t seed = 0;
    WeightInit init = WeightInit::XavierUniform;
    PositionalEncoding positional = PositionalEncoding::Sinusoidal;
    // The layer's window, rotary and score conventions, one value (attention_conventions.hpp): the
    // window and rotary base are the user's too; the others are set by a loaded layer only
    // (core/families/attention_rules.hpp), like ropeScaling.
    AttentionConventions conventions;
    EmbeddingKind embeddings = EmbeddingKind::Word;
    // Multiplies the token (or meaning) embedding before positions are added; 1 is the paper.
    // Positional presets lower it so that position can be read (docs/presets.md).
    float tokenEmbeddingScale = 1.0f;
    bool withBias = false;
    // Scores are Q_i K_i^T / sqrt(d_k) (equation (1)); T5 checkpoints leave the scale out.
    bool scaleScores = true;
    ProjectionScales scales;
    std::vector<HeadPreset> presets;  // at most one per head, applied in order
    std::vector<Index> ablatedHeads;  // 0-based, sorted, unique: Concat blocks zeroed before W^O

    Index d_k() const { return headDim > 0 ? headDim : headCount > 0 ? d_model / headCount : 0; }
    // Whether d_k was set rather than following d_model / h.
    bool headDimSet() const { return headDim > 0; }
    // g as used: keyValueHeadCount, or h when it is 0.
    Index g() const { return keyValueHeadCount > 0 ? keyValueHeadCount : headCount; }
    HeadGrouping grouping() const { return {headCount, g(), d_k()}; }
    // Which sentence gives the queries, and which the keys and values.
    bool queriesFromTarget() const { return mode != AttentionMode::EncoderSelf; }
    bool keysFromTarget() const { return mode == AttentionMode::DecoderCausal; }
    bool needsSource() const { return mode != AttentionMode::DecoderCausal; }
    bool needsTarget() const { return mode != AttentionMode::EncoderSelf; }
    // Whether the sinusoidal PE is added to X (the model's own input holds its learned positions).
    bool positionalAdded() const
    {
        return positional == PositionalEncoding::Sinusoidal && embeddings != EmbeddingKind::Model;
    }

    const HeadPreset* presetFor(Index head) const;
    bool isAblated(Index head) const;

    bool operator==(const Config&) const = default;
};

}  // namespace qkv
