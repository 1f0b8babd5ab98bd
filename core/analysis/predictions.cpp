// Predictions from logits and the heads' effect on them (definitions in predictions.hpp).
//
// Symbols: V, z (1 x V), m = max z, S = sum_w exp(z_w - m), k, t.
//   (1) m and S in double, refusing NaN and infinities
//   (2) p_v = exp(z_v - m) / S
//   (3) top k by (z_v descending, v ascending): equal logits have equal probabilities

#include "core/analysis/predictions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace qkv {

namespace {

struct SoftmaxScale {
    double max = 0.0;  // m
    double sum = 0.0;  // S >= 1 (the maximum's own term is exp(0))
};

// (1)
Expected<SoftmaxScale> softmaxScale(const LogitsRow& logits, const char* what)
{
    const Index v = logits.size();
    const std::string the = std::string("predictions: the ") + what + (*what != '\0' ? " " : "");
    if (v == 0) return Error{the + "logits are empty (a vocabulary of 0 tokens)"};
    SoftmaxScale scale;
    scale.max = -std::numeric_limits<double>::infinity();
    for (Index w = 0; w < v; ++w) {
        const double z = static_cast<double>(logits(w));
        if (!std::isfinite(z))
            return Error{the + "logit of token " + std::to_string(w) + " is " +
                         (std::isnan(z) ? "NaN" : "infinite") + "; a softmax over it has no meaning"};
        scale.max = std::max(scale.max, z);
    }
    for (Index w = 0; w < v; ++w) scale.sum += std::exp(static_cast<double>(logits(w)) - scale.max);
    return scale;
}

// (2)
double probabilityOf(const LogitsRow& logits, const SoftmaxScale& scale, Index id)
{
    return std::exp(static_cast<double>(logits(id)) - scale.max) / scale.sum;
}

std::string idProblem(std::int32_t id, Index v)
{
    if (id >= 0 && static_cast<Index>(id) < v) return {};
    return "predictions: token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(v) + " tokens (0 to " +
           std::to_string(v - 1) + ")";
}

std::string candidateText(const HeadCandidate& candidate)
{
    return "layer " + std::to_string(candidate.layer) + " head " + std::to_string(candidate.head);
}

// The effect of one candidate, given p_t before.
Expected<HeadEffect> effectOf(const HeadCandidate& candidate, double before, const LogitsRow& after, Index v, std::int32_t id)
{
    if (after.size() != v)
        return Error{"predictions: the logits without " + candidateText(candidate) + " have " + std::to_string(after.size()) +
                     " entries but the logits before have " + std::to_string(v)};
    const Expected<SoftmaxScale> scale = softmaxScale(after, "ablated");
    if (!scale) return Error{scale.error() + " (without " + candidateText(candidate) + ")"};
    const double p = probabilityOf(after, *scale, id);
    return HeadEffect{candidate, PredictionChange{id, before, p, p - before}};
}

}  // namespace

Expected<std::vector<TokenProbability>> topPredictions(const LogitsRow& logits, Index k)
{
    const Index v = logits.size();
    if (k < 1) return Error{"predictions: asked for the top " + std::to_string(k) + " tokens; k must be at least 1"};
    if (v > 0 && k > v)
        return Error{"predictions: asked for the top " + std::to_string(k) + " tokens but the vocabulary has only " +
                     std::to_string(v)};
    const Expected<SoftmaxScale> scale = softmaxScale(logits, "");
    if (!scale) return Error{scale.error()};
    if (v > std::numeric_limits<std::int32_t>::max())
        return Error{"predictions: a vocabulary of " + std::to_string(v) + " tokens does not fit 32-bit token ids"};

    // (3) Only the first k need sorting: O(V log k).
    std::vector<std::int32_t> ids(static_cast<std::size_t>(v));
    std::iota(ids.begin(), ids.end(), std::int32_t{0});
    std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), [&logits](std::int32_t a, std::int32_t b) {
        return logits(a) > logits(b) || (logits(a) == logits(b) && a < b);
    });
    std::vector<TokenProbability> top(static_cast<std::size_t>(k));
    for (Index r = 0; r < k; ++r) {
        const std::int32_t id = ids[static_cast<std::size_t>(r)];
        top[static_cast<std::size_t>(r)] = {id, probabilityOf(logits, *scale, id)};
    }
    return top;
}

Expected<double> tokenProbability(const LogitsRow& logits, std::int32_t id)
{
    const Expected<SoftmaxScale> scale = softmaxScale(logits, "");
    if (!scale) return Error{scale.error()};
    if (const std::string problem = idProblem(id, logits.size()); !problem.empty()) return Error{problem};
    return probabilityOf(logits, *scale, id);
}

Expected<PredictionChange> predictionChange(const LogitsRow& before, const LogitsRow& after, std::int32_t id)
{
    const Expected<SoftmaxScale> beforeScale = softmaxScale(before, "original");
    if (!beforeScale) return Error{beforeScale.error()};
    if (const std::string problem = idProblem(id, before.size()); !problem.empty()) return Error{problem};
    if (after.size() != before.size())
        return Error{"predictions: the logits after switching heads off have " + std::to_string(after.size()) +
                     " entries but the logits before have " + std::to_string(before.size())};
    const Expected<SoftmaxScale> afterScale = softmaxScale(after, "ablated");
    if (!afterScale) return Error{afterScale.error()};
    const double p0 = probabilityOf(before, *beforeScale, id);
    const double p1 = probabilityOf(after, *afterScale, id);
    return PredictionChange{id, p0, p1, p1 - p0};
}

void sortByPredictionChange(std::vector<HeadEffect>& effects)
{
    std::sort(effects.begin(), effects.end(), [](const HeadEffect& a, const HeadEffect& b) {
        const double ma = std::abs(a.change.change), mb = std::abs(b.change.change);
        if (ma != mb) return ma > mb;
        if (a.candidate.layer != b.candidate.layer) return a.candidate.layer < b.candidate.layer;
        return a.candidate.head < b.candidate.head;
    });
}

Expected<std::vector<HeadEffect>> rankHeadsByPredictionChange(const LogitsRow& before, std::int32_t id,
                                                              const std::vector<HeadCandidate>& candidates,
                                                              const LogitsWithoutHead& logitsWithout)
{
    const Expected<double> p = tokenProbability(before, id);
    if (!p) return Error{p.error()};
    if (!logitsWithout && !candidates.empty()) return Error{"predictions: no way to compute the logits without a head was given"};
    std::vector<HeadEffect> effects;
    effects.reserve(candidates.size());
    for (const HeadCandidate& candidate : candidates) {
        const Expected<RowVectorF> after = logitsWithout(candidate);
        if (!after) return Error{"predictions: without " + candidateText(candidate) + ": " + after.error()};
        Expected<HeadEffect> effect = effectOf(candidate, *p, *after, before.size(), id);
        if (!effect) return Error{effect.error()};
        effects.push_back(*effect);
    }
    sortByPredictionChange(effects);
    return effects;
}

Expected<std::vector<HeadEffect>> rankHeadsByPredictionChange(const LogitsRow& before, std::int32_t id,
                                                              const std::vector<HeadCandidate>& candidates,
                                                              const std::vector<RowVectorF>& after)
{
    if (after.size() != candidates.size())
        return Error{"predictions: " + std::to_string(after.size()) + " rows of logits for " + std::to_string(candidates.size()) +
                     " candidate heads"};
    std::size_t next = 0;
    return rankHeadsByPredictionChange(before, id, candidates, [&after, &next](const HeadCandidate&) -> Expected<RowVectorF> {
        return after[next++];
    });
}

}  // namespace qkv
