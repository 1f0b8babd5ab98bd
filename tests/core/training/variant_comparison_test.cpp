// The factored / full comparison's rules: the first variant to reach the target, and the full
// W_i's use of their singular values against d_k.
#include <gtest/gtest.h>

#include <cmath>

#include "core/training/variant_comparison.hpp"

namespace qkv {
namespace {

CurvePoint evaluated(long step, double seconds, double sequenceAccuracy)
{
    CurvePoint p;
    p.step = step;
    p.seconds = seconds;
    p.heldOutLoss = 0.1;
    p.heldOutAccuracy = sequenceAccuracy;
    p.heldOutSequenceAccuracy = sequenceAccuracy;
    return p;
}

ModelSpec spec(ScoreForm form)
{
    ModelSpec s;
    s.d_model = 32;
    s.headCount = 4;
    s.scoreForm = form;
    return s;
}

TEST(VariantComparison, TheFirstToTheTargetTakesFewerStepsThenLessTime)
{
    const std::vector<CurvePoint> slow = {evaluated(100, 1.0, 0.5), evaluated(300, 3.0, 0.995)};
    const std::vector<CurvePoint> fast = {evaluated(100, 2.0, 0.5), evaluated(200, 4.0, 0.99)};
    const VariantOutcome factored = variantOutcome(spec(ScoreForm::Factored), slow, TaskKind::Reverse);
    const VariantOutcome full = variantOutcome(spec(ScoreForm::Full), fast, TaskKind::Reverse);
    ASSERT_TRUE(factored.atTarget && full.atTarget);
    EXPECT_EQ(factored.atTarget->step, 300);
    EXPECT_EQ(firstToTarget({factored, full}), std::optional<std::size_t>(1));  // 200 steps, though 4 s
    // Per head 2 d_model d_k = 2 * 32 * 8 against d_model^2 = 32 * 32: half.
    EXPECT_EQ(2 * factored.scoreParameters, full.scoreParameters);
    const VariantOutcome never = variantOutcome(spec(ScoreForm::Full), {evaluated(100, 1.0, 0.5)}, TaskKind::Reverse);
    EXPECT_FALSE(never.atTarget);
    EXPECT_EQ(firstToTarget({never}), std::nullopt);
    EXPECT_EQ(firstToTarget({never, factored}), std::optional<std::size_t>(1));
}

TEST(VariantComparison, RankUseCountsOnlyAFullModelsHeadsOfTheLayer)
{
    std::vector<HeadScores> heads(3);
    heads[0] = {0, 0, -1, -1, -1, 12, {3.0, 2.0}};
    heads[1] = {0, 1, -1, -1, -1, 20, {3.0, 2.0}};
    heads[2] = {1, 0, -1, -1, -1, 31, {3.0, 2.0}};  // another layer
    const std::optional<RankUse> use = fullRankUse(heads, 0, spec(ScoreForm::Full));
    ASSERT_TRUE(use);
    EXPECT_EQ(use->fewest, 12);
    EXPECT_EQ(use->most, 20);
    EXPECT_EQ(use->d_k, 8);
    EXPECT_EQ(use->d_model, 32);
    EXPECT_FALSE(fullRankUse(heads, 0, spec(ScoreForm::Factored)));
    EXPECT_FALSE(fullRankUse(heads, 2, spec(ScoreForm::Full)));
}

}  // namespace
}  // namespace qkv
