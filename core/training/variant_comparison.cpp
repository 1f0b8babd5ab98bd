#include "core/training/variant_comparison.hpp"

#include <algorithm>

#include "core/trainable/model_parameters.hpp"
#include "core/training/training_report.hpp"

namespace qkv {

VariantOutcome variantOutcome(const ModelSpec& spec, const std::vector<CurvePoint>& curve, TaskKind task)
{
    VariantOutcome out;
    out.form = spec.scoreForm;
    out.atTarget = firstAtTarget(curve, task);
    out.attentionParameters = attentionParameterCount(spec);
    out.scoreParameters = scoreParameterCount(spec);
    return out;
}

std::optional<std::size_t> firstToTarget(const std::vector<VariantOutcome>& outcomes)
{
    std::optional<std::size_t> first;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        const std::optional<CurvePoint>& reached = outcomes[i].atTarget;
        if (!reached) continue;
        const std::optional<CurvePoint>& best = first ? outcomes[*first].atTarget : std::nullopt;
        if (!best || reached->step < best->step || (reached->step == best->step && reached->seconds < best->seconds))
            first = i;
    }
    return first;
}

std::optional<RankUse> fullRankUse(const std::vector<HeadScores>& heads, Index layer, const ModelSpec& spec)
{
    if (spec.scoreForm != ScoreForm::Full) return std::nullopt;
    std::optional<RankUse> use;
    for (const HeadScores& s : heads) {
        if (s.layer != layer || s.singularValues.empty()) continue;
        if (!use) use = RankUse{s.effectiveRank, s.effectiveRank, spec.d_k(), spec.d_model};
        use->fewest = std::min(use->fewest, s.effectiveRank);
        use->most = std::max(use->most, s.effectiveRank);
    }
    return use;
}

}  // namespace qkv
