// The positional presets' fit runs thousands of small products: it must start no thread (a team
// per product made two processes side by side 10-100x slower), and a process fits each
// (preset, d_model, d_k, token scale) once.

#include <gtest/gtest.h>

#include "core/common/parallelism.hpp"
#include "core/config/examples.hpp"
#include "core/pipeline/compute.hpp"
#include "core/presets/head_presets.hpp"
#include "core/presets/positional_heads.hpp"
#include "support/thread_count.hpp"

namespace qkv {
namespace {

// In a fresh process: a previous-token fit with computations allowed `threads`; exits 0 when
// the process gained exactly `expectedNew` threads and the fit is finite. The fit's products are
// all small, so even two allowed threads must give none.
[[noreturn]] void fitWithComputeThreads(int threads, int expectedNew)
{
    setComputeThreads(threads);
    testing::exitWhenWorkGainsThreads(expectedNew, [] {
        const PositionalHead head = fitPositionalHead(HeadPresetKind::PreviousToken, 64, 16, positionalPresetTokenScale);
        return head.query.allFinite() && head.key.allFinite() && head.query.cols() > 0;
    });
}

TEST(PresetFitThreads, TheFitStartsNoThreadWhateverTheComputeThreads)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(fitWithComputeThreads(1, 0), ::testing::ExitedWithCode(0), "");
    EXPECT_EXIT(fitWithComputeThreads(2, 0), ::testing::ExitedWithCode(0), "")
        << "two compute threads: the fit's small products must still run on one thread";
}

Config previousTokenExample()
{
    Config config = builtInExample();
    config.d_model = 64;
    config.headCount = 4;
    return withPreset(config, {1, HeadPresetKind::PreviousToken, 1.0, 1});
}

TEST(PresetFitCache, AProcessFitsEachPresetSizeAndScaleOnce)
{
    const Config config = previousTokenExample();
    const std::size_t before = processPresetCache().positionalFits();
    const auto first = compute(config);  // no cache of the caller's: the process keeps the fit
    ASSERT_TRUE(first.ok()) << first.error();
    const std::size_t afterFirst = processPresetCache().positionalFits();
    EXPECT_LE(afterFirst - before, 1u);  // 0 when an earlier test of this process fitted it
    const auto second = compute(config);
    ASSERT_TRUE(second.ok()) << second.error();
    EXPECT_EQ(processPresetCache().positionalFits(), afterFirst) << "the same preset was fitted again";
    EXPECT_EQ((*first)->weights->queryProjection, (*second)->weights->queryProjection);
    EXPECT_EQ((*first)->weights->keyProjection, (*second)->weights->keyProjection);

    // Another token scale is another fit.
    Config rescaled = config;
    rescaled.tokenEmbeddingScale = 0.05f;
    ASSERT_TRUE(compute(rescaled).ok());
    EXPECT_EQ(processPresetCache().positionalFits(), afterFirst + 1);
}

TEST(PresetFitCache, AFitIsTheSameFromAnyCache)
{
    const Config config = previousTokenExample();
    GeneratedWeightsCache own;
    const auto cached = compute(config, {}, &own);
    const auto shared = compute(config);
    ASSERT_TRUE(cached.ok() && shared.ok());
    EXPECT_EQ((*cached)->weights->queryProjection, (*shared)->weights->queryProjection);
    EXPECT_EQ(own.presets().positionalFits(), 1u);
}

TEST(PresetFitCache, FittedFactorsAreKeptAtTheirRankAndWrittenZeroPadded)
{
    const PositionalHead head = fitPositionalHead(HeadPresetKind::NextToken, 64, 16, positionalPresetTokenScale);
    EXPECT_EQ(head.query.rows(), 64);
    EXPECT_EQ(head.query.cols(), 16);  // rank min(d_k, 32) at d_k 16
    const PositionalHead wide = fitPositionalHead(HeadPresetKind::NextToken, 128, 64, positionalPresetTokenScale);
    EXPECT_EQ(wide.query.cols(), 32);  // at most 32 directions, not d_k = 64
    Config config = builtInExample();
    config.d_model = 128;
    config.headCount = 2;  // d_k 64
    config = withPreset(config, {0, HeadPresetKind::NextToken, 1.0, 1});
    const auto result = compute(config);
    ASSERT_TRUE(result.ok()) << result.error();
    const HeadGrouping g = config.grouping();
    const MatrixF query = (*result)->weights->queryHead(0, g);
    EXPECT_TRUE(query.rightCols(32).isZero(0.0f)) << "columns past the fitted rank must be zero";
    EXPECT_FALSE(query.leftCols(32).isZero(0.0f));
}

}  // namespace
}  // namespace qkv
