#include "core/presets/head_presets.hpp"

#include <algorithm>

#include <cmath>
#include <sstream>

#include "core/attention/rotary.hpp"
#include "core/presets/positional_bases.hpp"

namespace qkv {

namespace {

// Columns of a d_k block the word-reading presets may use: all of them, except under rotary
// positions, where only the slowly turning pairs keep a word's q and k aligned across a
// sentence (a pair turning by more than half a radian over positionalFitSpan tokens is left out).
std::vector<Index> slowColumns(const Config& config)
{
    const Index d_k = config.d_k();
    std::vector<Index> columns;
    if (!isRotary(config.positional)) {
        for (Index c = 0; c < d_k; ++c) columns.push_back(c);
        return columns;
    }
    const Eigen::VectorXd theta = rotaryFrequencies(d_k, config.conventions.ropeBase, config.conventions.ropeScaling);
    for (Index j = 0; j < d_k / 2; ++j) {
        if (theta(j) * static_cast<double>(positionalFitSpan) > 0.5) continue;
        const bool half = config.positional == PositionalEncoding::Rotary;
        columns.push_back(half ? j : 2 * j);
        columns.push_back(half ? j + d_k / 2 : 2 * j + 1);
    }
    if (columns.empty())
        for (Index c = 0; c < d_k; ++c) columns.push_back(c);
    return columns;
}

// The word-reading heads: W_i^Q = alpha N, W_i^K = N with N orthonormal directions free of
// position, so q.k = alpha s^2 |N^T e_q|... is large exactly when the two words' vectors agree.
void setWordHead(AttentionWeights& w, const HeadGrouping& g, Index head, const Config& config, double sharpness,
                 PresetCache& cache)
{
    const std::vector<Index> columns = slowColumns(config);
    // At most d_model orthonormal directions exist: a head wider than d_model (d_k > d_model)
    // fills d_model of its columns and leaves the rest zero.
    const Index wanted = std::min<Index>(static_cast<Index>(columns.size()), config.d_model);
    const std::shared_ptr<const MatrixD> basis = cache.positionFreeBasis(config.d_model, wanted);
    const Index used = std::min<Index>(wanted, basis->cols());
    const double s = config.tokenEmbeddingScale;
    // E |N^T s e|^2 = s^2 used for e ~ N(0, I): the intended key scores alpha s^2 used * scale.
    const double scoreScale = config.scaleScores ? 1.0 / std::sqrt(static_cast<double>(g.d_k)) : 1.0;
    const double alpha = wordPresetMargin * sharpness / (s * s * static_cast<double>(used) * scoreScale);
    auto query = w.queryHead(head, g);
    auto key = w.keyHead(head, g);
    query.setZero();
    key.setZero();
    for (Index c = 0; c < used; ++c) {
        query.col(columns[static_cast<std::size_t>(c)]) = (alpha * basis->col(c)).cast<float>();
        key.col(columns[static_cast<std::size_t>(c)]) = basis->col(c).cast<float>();
    }
}

void setPositionalHead(AttentionWeights& w, const HeadGrouping& g, const HeadPreset& preset, const Config& config,
                       PresetCache& cache)
{
    const auto fitted = cache.positionalHead(preset.kind, config.d_model, g.d_k, config.tokenEmbeddingScale);
    // The fit assumes scores scaled by 1/sqrt(d_k); without the scale (T5) shrink q instead.
    const double unscaled = config.scaleScores ? 1.0 : 1.0 / std::sqrt(static_cast<double>(g.d_k));
    const Index rank = fitted->query.cols();  // columns past it stay zero
    auto query = w.queryHead(preset.head, g);
    auto key = w.keyHead(preset.head, g);
    query.setZero();
    key.setZero();
    query.leftCols(rank) = (fitted->query * (preset.sharpness * unscaled)).cast<float>();
    key.leftCols(rank) = fitted->key.cast<float>();
}

void zeroHeadBiases(AttentionWeights& w, const HeadGrouping& g, Index head)
{
    if (!w.hasBias()) return;
    w.queryBias->segment(head * g.d_k, g.d_k).setZero();
    w.keyBias->segment(g.keyValueHeadOf(head) * g.d_k, g.d_k).setZero();
}

void applyPreset(AttentionWeights& w, const HeadGrouping& g, const HeadPreset& preset, const Config& config,
                 const AttentionWeights& generated, PresetCache& cache)
{
    const Index head = preset.head;
    switch (preset.kind) {
    case HeadPresetKind::Uniform:
        w.queryHead(head, g).setZero();  // every score 0: the softmax spreads evenly
        break;
    case HeadPresetKind::Random:
        w.queryHead(head, g) = generated.queryHead(head, g) * static_cast<float>(preset.sharpness);
        w.keyHead(head, g) = generated.keyHead(head, g);
        w.valueHead(head, g) = generated.valueHead(head, g);
        w.outputHead(head, g) = generated.outputHead(head, g);
        break;
    case HeadPresetKind::LowRank:
        // Zero columns r.. of W_i^Q: W_i = W_i^Q (W_i^K)^T has rank exactly r (no float
        // rounding can lift the zero singular values).
        w.queryHead(head, g) = generated.queryHead(head, g) * static_cast<float>(preset.sharpness);
        w.queryHead(head, g).rightCols(g.d_k - preset.rank).setZero();
        w.keyHead(head, g) = generated.keyHead(head, g);
        break;
    case HeadPresetKind::SameToken:
    case HeadPresetKind::SameMeaning: setWordHead(w, g, head, config, preset.sharpness, cache); break;
    case HeadPresetKind::PreviousToken:
    case HeadPresetKind::NextToken:
    case HeadPresetKind::SamePosition: setPositionalHead(w, g, preset, config, cache); break;
    }
    zeroHeadBiases(w, g, head);
}

}  // namespace

std::shared_ptr<const PositionalHead> PresetCache::positionalHead(HeadPresetKind kind, Index d_model, Index d_k,
                                                                  float tokenScale)
{
    const HeadKey key{kind, d_model, d_k, tokenScale};
    {
        std::lock_guard lock(mutex_);
        if (const auto found = heads_.find(key); found != heads_.end()) return found->second;
    }
    auto head = std::make_shared<const PositionalHead>(fitPositionalHead(kind, d_model, d_k, tokenScale));
    std::lock_guard lock(mutex_);
    ++fits_;
    makeRoomFor(bytesOf(head->query) + bytesOf(head->key));
    heads_[key] = head;
    return head;
}

std::shared_ptr<const MatrixD> PresetCache::positionFreeBasis(Index d_model, Index columns)
{
    const auto key = std::pair{d_model, columns};
    {
        std::lock_guard lock(mutex_);
        if (const auto found = bases_.find(key); found != bases_.end()) return found->second;
    }
    auto basis = std::make_shared<const MatrixD>(qkv::positionFreeBasis(d_model, columns));
    std::lock_guard lock(mutex_);
    makeRoomFor(bytesOf(*basis));
    bases_[key] = basis;
    return basis;
}

std::size_t PresetCache::positionalFits() const
{
    std::lock_guard lock(mutex_);
    return fits_;
}

std::size_t PresetCache::bytesOf(const MatrixD& m) { return static_cast<std::size_t>(m.size()) * sizeof(double); }

void PresetCache::makeRoomFor(std::size_t bytes)
{
    // Bounded: a few sizes are in use at a time, so starting afresh costs at most a refit.
    if (heldBytes_ + bytes > maximumBytes || heads_.size() + bases_.size() >= maximumEntries) {
        heads_.clear();
        bases_.clear();
        heldBytes_ = 0;
    }
    heldBytes_ += bytes;
}

bool PresetCache::needsWork(const Config& config) const
{
    std::lock_guard lock(mutex_);
    for (const HeadPreset& p : config.presets) {
        if (isPositionalPreset(p.kind) &&
            !heads_.count(HeadKey{p.kind, config.d_model, config.d_k(), config.tokenEmbeddingScale}))
            return true;
        if ((p.kind == HeadPresetKind::SameToken || p.kind == HeadPresetKind::SameMeaning)) {
            bool cached = false;
            for (const auto& [key, basis] : bases_) cached = cached || key.first == config.d_model;
            if (!cached) return true;
        }
    }
    return false;
}

PresetCache& processPresetCache()
{
    static PresetCache cache;
    return cache;
}

void applyHeadPresets(AttentionWeights& weights, const Config& config, const AttentionWeights& generated,
                      PresetCache* cache)
{
    PresetCache& use = cache ? *cache : processPresetCache();
    const HeadGrouping g = config.grouping();
    for (const HeadPreset& preset : config.presets) applyPreset(weights, g, preset, config, generated, use);
}

Config withPreset(Config config, const HeadPreset& preset)
{
    std::erase_if(config.presets, [&](const HeadPreset& p) { return p.head == preset.head; });
    config.presets.push_back(preset);
    if (isPositionalPreset(preset.kind) && config.tokenEmbeddingScale == 1.0f)
        config.tokenEmbeddingScale = positionalPresetTokenScale;
    if (preset.kind == HeadPresetKind::SameMeaning) config.embeddings = EmbeddingKind::Meaning;
    return config;
}

std::vector<std::string> presetUnmetConditions(const Config& config, const HeadPreset& preset)
{
    std::vector<std::string> unmet;
    if (isPositionalPreset(preset.kind)) {
        if (config.positional != PositionalEncoding::Sinusoidal)
            unmet.push_back("positions " + std::string(positionalName(config.positional)) + ", not sinusoidal");
        if (config.tokenEmbeddingScale > positionalPresetMaxTokenScale) {
            std::ostringstream text;
            text << "token scale " << config.tokenEmbeddingScale << " > " << positionalPresetMaxTokenScale
                 << ", the words drown the positions";
            unmet.push_back(text.str());
        }
    }
    if (preset.kind == HeadPresetKind::SameMeaning && config.embeddings != EmbeddingKind::Meaning)
        unmet.push_back("embeddings by " + std::string(embeddingsName(config.embeddings)) + ", not by meaning");
    const bool picksAKey = preset.kind != HeadPresetKind::Uniform && preset.kind != HeadPresetKind::Random &&
                           preset.kind != HeadPresetKind::LowRank;
    if (picksAKey && (config.scales.query == 0.0f || config.scales.key == 0.0f))
        unmet.push_back("W^Q or W^K scaled to 0");
    return unmet;
}

std::vector<std::string> presetSettingChanges(const Config& before, const Config& after)
{
    std::vector<std::string> changes;
    if (before.tokenEmbeddingScale != after.tokenEmbeddingScale) {
        std::ostringstream text;
        text << "token embeddings scaled by " << after.tokenEmbeddingScale
             << " (the paper: 1), so that positions can be read";
        changes.push_back(text.str());
    }
    if (before.embeddings != after.embeddings)
        changes.push_back(after.embeddings == EmbeddingKind::Model
                              ? std::string("the model's own input (its subword tokens and learned embeddings)")
                              : std::string("embeddings by ") + std::string(embeddingsName(after.embeddings)) +
                                    (after.embeddings == EmbeddingKind::Meaning
                                         ? " (a word and its translations share a vector)"
                                         : ""));
    if (before.positional != after.positional)
        changes.push_back("positions: " + std::string(positionalName(after.positional)) +
                          " (the positional presets read the sinusoidal encoding)");
    return changes;
}

}  // namespace qkv
