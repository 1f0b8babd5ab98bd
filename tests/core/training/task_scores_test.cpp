// scoreHeads on real models: every head of every layer, the task's scores on the layers they
// belong to (pooled exactly as the attention the trace shows), and W_i's spectrum from the thin
// factors for factored heads and from the dense matrix for full ones.
#include <algorithm>

#include <gtest/gtest.h>

#include "core/common/decompositions.hpp"
#include "core/training/head_score_sums.hpp"
#include "core/training/task_scores.hpp"
#include "core/training/training_run.hpp"

namespace qkv {
namespace {

std::unique_ptr<TrainingRun> makeRun(TaskKind kind, ScoreForm variant, Index layers)
{
    TrainingSettings settings = TrainingSettings::defaultsFor(kind);
    settings.d_model = 16;
    settings.headCount = 2;
    settings.layers = layers;
    settings.variant = variant;
    settings.task.heldOutCount = 8;
    Expected<std::unique_ptr<TrainingRun>> run = TrainingRun::create(settings);
    EXPECT_TRUE(run.ok()) << run.error();
    return std::move(run).value();
}

std::vector<double> denseSingularValues(const MatrixD& w)
{
    const VectorD values = Eigen::JacobiSVD<Eigen::MatrixXd>(w).singularValues();
    return {values.begin(), values.end()};
}

TEST(ScoreHeads, ScoresEveryHeadAndAlignmentOnlyOnCrossAttention)
{
    const std::unique_ptr<TrainingRun> run = makeRun(TaskKind::Reverse, ScoreForm::Factored, 1);
    const std::vector<HeadScores> scores = scoreHeads(run->parameters(), TaskKind::Reverse, run->data().heldOut());
    const std::vector<AttentionLayerInfo> layers = attentionLayers(run->spec());
    ASSERT_EQ(layers.size(), 3u) << "encoder self, decoder self, cross";
    ASSERT_EQ(scores.size(), 3u * 2u);
    for (const HeadScores& score : scores) {
        const AttentionMode kind = layers[static_cast<std::size_t>(score.layer)].kind;
        EXPECT_EQ(score.alignment >= 0.0, kind == AttentionMode::Cross) << score.layer;
        EXPECT_EQ(score.induction, -1.0);
        EXPECT_EQ(score.previousToken, -1.0);
    }

    // The same sums by hand from the trace, for head 1 of the cross-attention layer.
    HeadScoreSums sums;
    for (const TaskExample& example : run->data().heldOut())
        addAlignment(traceExample(run->parameters(), example.ids).layers[2].attention[1], example.alignment, sums);
    EXPECT_DOUBLE_EQ(scores[5].alignment, sums.alignment());
    EXPECT_EQ(scores[5].layer, 2);
    EXPECT_EQ(scores[5].head, 1);
}

TEST(ScoreHeads, InductionScoresTheDecoderSelfAttention)
{
    const std::unique_ptr<TrainingRun> run = makeRun(TaskKind::Induction, ScoreForm::Factored, 2);
    const std::vector<HeadScores> scores = scoreHeads(run->parameters(), TaskKind::Induction, run->data().heldOut());
    ASSERT_EQ(scores.size(), 2u * 2u);
    HeadScoreSums sums;
    for (const TaskExample& example : run->data().heldOut()) {
        const ModelTrace trace = traceExample(run->parameters(), example.ids);
        const MatrixF& attention = trace.layers[1].attention[0];
        addInduction(attention, example.period, sums);
        addPreviousToken(attention, sums);
    }
    for (const HeadScores& score : scores) {
        EXPECT_EQ(score.alignment, -1.0);
        EXPECT_GE(score.induction, 0.0);
        EXPECT_LE(score.induction, 1.0);
        EXPECT_GT(score.previousToken, 0.0);
    }
    EXPECT_DOUBLE_EQ(scores[2].induction, sums.induction());
    EXPECT_DOUBLE_EQ(scores[2].previousToken, sums.previousToken());
}

TEST(ScoreHeads, FactoredSpectraComeFromTheThinFactors)
{
    const std::unique_ptr<TrainingRun> run = makeRun(TaskKind::Copy, ScoreForm::Factored, 1);
    for (int i = 0; i < 20; ++i) run->step();  // away from the initial weights
    const std::vector<HeadScores> scores = scoreHeads(run->parameters(), TaskKind::Copy, {});
    for (const HeadScores& score : scores) {
        ASSERT_EQ(score.singularValues.size(), 8u) << "d_k values: W_i = W_i^Q (W_i^K)^T has rank <= d_k";
        const std::vector<double> dense = denseSingularValues(headBilinearForm(run->parameters(), score.layer, score.head));
        for (std::size_t j = 0; j < dense.size(); ++j) {
            const double expected = dense[j];
            const double got = j < score.singularValues.size() ? score.singularValues[j] : 0.0;
            EXPECT_NEAR(got, expected, 1e-9 * dense[0]) << "layer " << score.layer << " head " << score.head << " sigma " << j;
        }
        EXPECT_TRUE(std::is_sorted(score.singularValues.rbegin(), score.singularValues.rend()));
        EXPECT_EQ(score.effectiveRank, effectiveRank(score.singularValues));
        EXPECT_GE(score.effectiveRank, 1);
        EXPECT_LE(score.effectiveRank, 8);
    }
}

TEST(ScoreHeads, FullSpectraComeFromTheLearnedMatrix)
{
    const std::unique_ptr<TrainingRun> run = makeRun(TaskKind::Copy, ScoreForm::Full, 1);
    for (int i = 0; i < 20; ++i) run->step();
    const std::vector<HeadScores> scores = scoreHeads(run->parameters(), TaskKind::Copy, run->data().heldOut());
    ASSERT_EQ(scores.size(), 6u);
    for (const HeadScores& score : scores) {
        ASSERT_EQ(score.singularValues.size(), 16u) << "a full W_i has d_model singular values";
        const std::vector<double> dense = denseSingularValues(headBilinearForm(run->parameters(), score.layer, score.head));
        for (std::size_t j = 0; j < dense.size(); ++j)
            EXPECT_NEAR(score.singularValues[j], dense[j], 1e-9 * dense[0]);
        EXPECT_GT(score.effectiveRank, 8) << "a random full W_i uses more than d_k directions";
    }
}

}  // namespace
}  // namespace qkv
