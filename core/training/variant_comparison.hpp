#pragma once
// Factored against full W_i, the comparison the Train tab and `qkv-studio train` exist to show
// (the paper's two thin projections W_i^Q, W_i^K of section 3.2.2 against one d_model x d_model
// W_i per head): how soon each variant reached the task's target, what its scores cost in
// parameters, and how many singular values each learned full W_i uses against the d_k a
// factored head is limited to. One rule for report.json and the Train tab's verdict.

#include <cstddef>
#include <optional>
#include <vector>

#include "core/trainable/model_spec.hpp"
#include "core/training/task_scores.hpp"
#include "core/training/training_run.hpp"

namespace qkv {

struct VariantOutcome {
    ScoreForm form = ScoreForm::Factored;
    std::optional<CurvePoint> atTarget;  // the first evaluated point at the task's target
    std::size_t attentionParameters = 0;
    std::size_t scoreParameters = 0;     // every head's W_i^Q and W_i^K, or its W_i
};

VariantOutcome variantOutcome(const ModelSpec& spec, const std::vector<CurvePoint>& curve, TaskKind task);

// The variant that reached the target first: fewer steps (both saw the same data in the same
// order), then less training time. Nothing when none reached it.
std::optional<std::size_t> firstToTarget(const std::vector<VariantOutcome>& outcomes);

// How many of a full W_i's d_model singular values carry 99% of its energy, fewest and most over
// the heads of one layer, beside the d_k a factored W_i^Q (W_i^K)^T cannot exceed.
struct RankUse {
    Index fewest = 0;
    Index most = 0;
    Index d_k = 0;
    Index d_model = 0;
};
// Nothing when no head of `layer` has singular values (a factored model's heads have them too,
// but only a full model's say something the factored form could not).
std::optional<RankUse> fullRankUse(const std::vector<HeadScores>& heads, Index layer, const ModelSpec& spec);

}  // namespace qkv
