#pragma once
// Applies a Config's head presets to a layer's weights. Each preset rewrites one
// head's W_i^Q and W_i^K (W_i^K is the block of its key/value head, shared by its group when
// g < h) and zeroes that head's b_i^Q and b_i^K, so the bilinear form alone decides where the
// head looks. The constructions, and why each picks its key: docs/presets.md.

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "core/config/config.hpp"
#include "core/presets/positional_heads.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

// The token-embedding scale the positional presets set (from the paper's 1), so that the
// encoding's signal stands above the words' (docs/presets.md, measured there: at d_model 64,
// 0.1 left same-position at 80.6% of queries, 0.03 lifts it to 95.9%; the word-reading presets
// do not change, their factor holds 1/s^2).
inline constexpr float positionalPresetTokenScale = 0.03f;
// The largest token-embedding scale under which a positional preset still does its job: at
// d_model 64, 0.1 keeps same-position on the query's own index for 80.6% of queries
// (docs/presets.md); above it the words drown the encoding the preset reads.
inline constexpr float positionalPresetMaxTokenScale = 0.1f;
// How far (in nats, after 1/sqrt(d_k)) the word-reading presets lift the intended key above a
// typical key at sharpness 1.
inline constexpr double wordPresetMargin = 8.0;

// Fitted positional heads and position-free bases, kept between computations (both cost
// ~0.1-1 s). They depend only on (preset, d_model, d_k, token scale) and (d_model, columns), so
// a cache never holds a stale one. Thread-safe; holds at most maximumEntries and maximumBytes
// (then starts afresh): a few sizes are in use at a time, and a long session that tries many
// sizes and token scales must not grow.
class PresetCache {
public:
    static constexpr std::size_t maximumBytes = std::size_t{256} << 20;
    static constexpr std::size_t maximumEntries = 32;

    std::shared_ptr<const PositionalHead> positionalHead(HeadPresetKind kind, Index d_model, Index d_k,
                                                         float tokenScale);
    std::shared_ptr<const MatrixD> positionFreeBasis(Index d_model, Index columns);
    // True when applying `config`'s presets would fit or factor something not cached yet.
    bool needsWork(const Config& config) const;
    // How many positional fits this cache has run (each (preset, d_model, d_k, scale) once
    // while it stays cached).
    std::size_t positionalFits() const;

private:
    using HeadKey = std::tuple<HeadPresetKind, Index, Index, float>;
    static std::size_t bytesOf(const MatrixD& m);
    void makeRoomFor(std::size_t bytes);  // under mutex_

    mutable std::mutex mutex_;
    std::map<HeadKey, std::shared_ptr<const PositionalHead>> heads_;
    std::map<std::pair<Index, Index>, std::shared_ptr<const MatrixD>> bases_;
    std::size_t heldBytes_ = 0;
    std::size_t fits_ = 0;
};

// The cache of this process, for callers that keep none of their own (the command line: a
// command that computes twice, such as a pinned comparison, fits each preset once).
PresetCache& processPresetCache();

// Rewrites the heads named by config.presets in `weights` (which must fit config.grouping()).
// `generated` are the seed's weights for this config (random and low-rank heads come from
// them). Other heads are untouched. Deterministic: a function of the Config alone. Without a
// cache, processPresetCache() keeps the fits.
void applyHeadPresets(AttentionWeights& weights, const Config& config, const AttentionWeights& generated,
                      PresetCache* cache = nullptr);

// `config` with `preset` set on its head (replacing that head's preset), and the settings the
// preset needs beyond its head: the positional presets scale the token embedding by
// positionalPresetTokenScale (from the paper's 1), same-meaning switches to meaning embeddings.
// The positional option is left alone: a positional preset under rotary positions is reported
// by validateConfig. The paper's settings stay one step away (the caller shows what changed;
// presetSettingChanges says it in words).
Config withPreset(Config config, const HeadPreset& preset);
// The settings (other than presets) that differ between `before` and `after`, in words
// ("token embeddings scaled by 0.1", "embeddings by meaning"). Empty when none.
std::vector<std::string> presetSettingChanges(const Config& before, const Config& after);

// Why `preset` no longer does its job under `config`, one short phrase per broken condition
// ("token scale 1 > 0.1, the words drown the positions"); empty while it does it. The conditions are what
// the constructions read: the positional presets the sinusoidal encoding, above the words;
// same-meaning the meaning embeddings; every preset but uniform and random a non-zero W^Q and W^K.
std::vector<std::string> presetUnmetConditions(const Config& config, const HeadPreset& preset);

}  // namespace qkv
