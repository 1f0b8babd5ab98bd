#pragma once
// A head preset: a recipe that sets one head's W_i^Q and W_i^K (and, where it must, W_i^V and
// its rows of W^O) so the bilinear form x_q^T W_i x_k picks a known key. Presets are
// part of the Config: they are re-applied whenever d_model, h, the seed or the embeddings
// change, and recorded in exports and sessions. The constructions: head_presets.hpp.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/common/enum_names.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

enum class HeadPresetKind {
    Uniform,        // every visible key equally (W_i^Q = 0)
    SameToken,      // keys holding the query's word (case-insensitive)
    PreviousToken,  // key t-1 (query 0: itself)
    NextToken,      // key t+1 (last query: itself)
    SamePosition,   // the key with the query's index (clamped to the last key)
    SameMeaning,    // keys whose word means the same (meaning embeddings)
    LowRank,        // a random head of rank r < d_k
    Random,         // the generated weights of the current seed
};

// Each preset's name (command line, sessions, exports) and title (the words of head titles in
// the app), in the order lists show them.
struct HeadPresetNames {
    HeadPresetKind value;
    std::string_view name;
    std::string_view title;
};
inline constexpr std::array<HeadPresetNames, 8> kHeadPresetNames{{
    {HeadPresetKind::Uniform, "uniform", "uniform"},
    {HeadPresetKind::SameToken, "same-token", "same token"},
    {HeadPresetKind::PreviousToken, "previous-token", "previous token"},
    {HeadPresetKind::NextToken, "next-token", "next token"},
    {HeadPresetKind::SamePosition, "same-position", "same position"},
    {HeadPresetKind::SameMeaning, "same-meaning", "same meaning"},
    {HeadPresetKind::LowRank, "low-rank", "low rank"},
    {HeadPresetKind::Random, "random", "random"},
}};
std::string_view presetName(HeadPresetKind kind);
std::optional<HeadPresetKind> parsePresetName(std::string_view name);
const std::vector<HeadPresetKind>& allPresetKinds();
// "same meaning": the words a head title uses.
std::string_view presetTitle(HeadPresetKind kind);

inline constexpr double defaultPresetSharpness = 1.0;

// previous-token, next-token, same-position: they read the sinusoidal encoding added to X.
inline bool isPositionalPreset(HeadPresetKind kind)
{
    return kind == HeadPresetKind::PreviousToken || kind == HeadPresetKind::NextToken ||
           kind == HeadPresetKind::SamePosition;
}
// What a preset writes into its key/value head's W^K block (presets sharing a block under
// g < h must agree): nothing (uniform), the seed's block (random, low-rank), the
// position-free basis (same-token, same-meaning), or its own fitted block (positional).
enum class PresetKeyBlock { Untouched, Generated, PositionFree, Fitted };
inline PresetKeyBlock presetKeyBlock(HeadPresetKind kind)
{
    switch (kind) {
    case HeadPresetKind::Uniform: return PresetKeyBlock::Untouched;
    case HeadPresetKind::Random:
    case HeadPresetKind::LowRank: return PresetKeyBlock::Generated;
    case HeadPresetKind::SameToken:
    case HeadPresetKind::SameMeaning: return PresetKeyBlock::PositionFree;
    default: return PresetKeyBlock::Fitted;
    }
}

struct HeadPreset {
    Index head = 0;  // 0-based here; 1-based wherever people read or type it
    HeadPresetKind kind = HeadPresetKind::Random;
    // Multiplies the intended key's margin over the others (1 = the documented default).
    double sharpness = defaultPresetSharpness;
    Index rank = 1;  // low-rank only: the rank r of W_i, 1 <= r < d_k

    bool operator==(const HeadPreset&) const = default;
};

}  // namespace qkv
