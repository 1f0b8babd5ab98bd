// The value norms' and the rollout's OpenMP loops obey the one thread policy
// (core/common/parallelism.hpp): one compute thread starts no team, and a team gives the same
// numbers as one thread (blocks of keys and rows are computed alike whoever runs them).

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "analysis_test_support.hpp"
#include "core/analysis/attention_rollout.hpp"
#include "core/analysis/value_norms.hpp"
#include "core/common/parallelism.hpp"
#include "support/matrix_assertions.hpp"
#include "support/thread_count.hpp"

namespace qkv {
namespace {

using testing::randomMatrixF;

// A layer large enough for a team (h = 16, d_model = 512, 128 tokens: 4 blocks of 32 keys),
// built by hand so that no forward pass starts a team first. Row sums are not 1; the norms do
// not care.
struct LargeLayer {
    AttentionResult attention;
    MatrixF outputProjection;
};

LargeLayer largeLayer()
{
    SplitMix64 rng(12);
    const Index h = 16, d_model = 512, n = 128;
    LargeLayer layer;
    layer.attention.grouping = {h, 4, d_model / h};
    layer.attention.value = randomMatrixF(n, 4 * (d_model / h), rng);
    for (Index i = 0; i < h; ++i) layer.attention.heads.push_back({MatrixF(), randomMatrixF(n, n, rng).cwiseAbs()});
    layer.attention.ablated.assign(static_cast<std::size_t>(h), false);
    layer.attention.ablated[3] = true;
    layer.outputProjection = randomMatrixF(d_model, d_model, rng, 0.1);
    return layer;
}

std::vector<MatrixD> largeStack()
{
    SplitMix64 rng(13);
    std::vector<MatrixD> means;
    for (int l = 0; l < 3; ++l) means.push_back(randomMatrixF(160, 160, rng).cwiseAbs().cast<double>() / 80.0);
    return means;
}

[[noreturn]] void valueNormsWithComputeThreads(int threads, int expectedNew)
{
    setComputeThreads(threads);
    const LargeLayer layer = largeLayer();
    testing::exitWhenWorkGainsThreads(expectedNew, [&] {
        const Expected<ValueNorms> norms = valueWeightedNorms(layer.attention, layer.outputProjection);
        return norms.ok() && std::isfinite(norms->layer.sum());
    });
}

[[noreturn]] void rolloutWithComputeThreads(int threads, int expectedNew)
{
    setComputeThreads(threads);
    const std::vector<MatrixD> means = largeStack();
    testing::exitWhenWorkGainsThreads(expectedNew, [&] {
        const Expected<MatrixD> rollout = attentionRollout(means, 2);
        return rollout.ok() && std::abs(rollout->row(0).sum() - 1.0) < 1e-12;
    });
}

TEST(ModelAnalysisThreads, OneComputeThreadMeansNoTeam)
{
#ifndef _OPENMP
    GTEST_SKIP() << "built without OpenMP (QKV_OPENMP=OFF): the loops are serial anyway";
#endif
    testing::expectNewThreadsOnlyWhenAllowed(valueNormsWithComputeThreads);
    testing::expectNewThreadsOnlyWhenAllowed(rolloutWithComputeThreads);
}

TEST(ModelAnalysisThreads, ATeamGivesTheSameNumbersAsOneThread)
{
    const LargeLayer layer = largeLayer();
    const std::vector<MatrixD> means = largeStack();
    setComputeThreads(1);
    const Expected<ValueNorms> alone = valueWeightedNorms(layer.attention, layer.outputProjection);
    const Expected<MatrixD> rolloutAlone = attentionRollout(means, 2);
    setComputeThreads(2);
    const Expected<ValueNorms> team = valueWeightedNorms(layer.attention, layer.outputProjection);
    const Expected<MatrixD> rolloutTeam = attentionRollout(means, 2);
    setComputeThreads(0);
    ASSERT_TRUE(alone.ok() && team.ok() && rolloutAlone.ok() && rolloutTeam.ok());
    EXPECT_MATRIX_NEAR(team->layer, alone->layer, 0.0);
    EXPECT_MATRIX_NEAR(team->transformedNorms, alone->transformedNorms, 0.0);
    for (std::size_t i = 0; i < alone->heads.size(); ++i) EXPECT_MATRIX_NEAR(team->heads[i], alone->heads[i], 0.0);
    EXPECT_MATRIX_NEAR(*rolloutTeam, *rolloutAlone, 0.0);
}

}  // namespace
}  // namespace qkv
