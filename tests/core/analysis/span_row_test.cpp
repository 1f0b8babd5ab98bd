// A span of queries' mean attention row and maximum (core/analysis/span_row.hpp): from the held
// map and, for a long layer, recomputed from Q_i and K_j; both against the rows summed here.
#include <gtest/gtest.h>

#include <string>

#include "core/analysis/span_row.hpp"
#include "core/config/examples.hpp"
#include "core/pipeline/compute.hpp"

namespace qkv {
namespace {

Config slidingConfig(Index tokens)
{
    Config config = builtInExample();
    config.mode = AttentionMode::DecoderCausal;
    config.conventions.slidingWindow = 7;
    config.d_model = 16;
    config.headCount = 2;
    config.targetText.clear();
    for (Index i = 0; i < tokens; ++i) config.targetText += "w" + std::to_string(i % 9) + " ";
    return config;
}

std::shared_ptr<const Result> computed(const Config& config, const AnalysisPlan& plan)
{
    auto result = compute(prepareCompute(config, {}, plan));
    EXPECT_TRUE(result.ok()) << (result.ok() ? std::string() : result.error());
    return result.ok() ? *result : nullptr;
}

TEST(SpanRow, TheMeanAndMaximumOfTheSpansRowsAndTheKeysItCanSee)
{
    // 600 rows: a long layer recomputes them in more than one block of 256.
    const Config config = slidingConfig(700);
    const auto held = computed(config, {});
    const auto streamed = computed(config, streamedPlan({}, 16));
    ASSERT_TRUE(held && streamed && streamed->streamed());
    const Index first = 40, end = 640, head = 1;
    const MatrixF& map = held->attention.heads[head].attention;
    for (const auto& result : {held, streamed}) {
        const Expected<SpanRow> span = spanAttentionRow(*result, head, first, end);
        ASSERT_TRUE(span.ok()) << span.error();
        EXPECT_EQ(span->size(), 600);
        double total = 0;
        for (Index j = 0; j < map.cols(); ++j) {
            double sum = 0;
            float largest = 0;
            bool seen = false;
            for (Index q = first; q < end; ++q) {
                sum += map(q, j);
                largest = std::max(largest, map(q, j));
                seen = seen || !result->attention.mask.masked(q, j);
            }
            EXPECT_NEAR(span->mean[j], sum / 600.0, 1e-7) << j;
            EXPECT_NEAR(span->maximum[j], largest, 1e-6) << j;
            EXPECT_EQ(span->visible[j], seen) << j;
            total += span->mean[j];
        }
        EXPECT_NEAR(total, 1.0, 1e-5);  // a mean of distributions is one
        // The window: keys before the first query's window and after the last query are unseen.
        EXPECT_FALSE(span->visible[first - 7]);
        EXPECT_TRUE(span->visible[first - 6]);
        EXPECT_TRUE(span->visible[end - 1]);
        EXPECT_FALSE(span->visible[end]);
    }
}

TEST(SpanRow, OneQueryIsItsRowAndABadSpanIsNamed)
{
    const auto held = computed(slidingConfig(20), {});
    ASSERT_TRUE(held);
    const Expected<SpanRow> one = spanAttentionRow(*held, 0, 12, 13);
    ASSERT_TRUE(one.ok()) << one.error();
    for (Index j = 0; j < 20; ++j) {
        EXPECT_EQ(one->mean[j], held->attention.heads[0].attention(12, j));
        EXPECT_EQ(one->maximum[j], held->attention.heads[0].attention(12, j));
    }
    const Expected<SpanRow> empty = spanAttentionRow(*held, 0, 5, 5);
    ASSERT_FALSE(empty.ok());
    EXPECT_NE(empty.error().find("5:5"), std::string::npos) << empty.error();
    EXPECT_FALSE(spanAttentionRow(*held, 0, 15, 21).ok());
    EXPECT_FALSE(spanAttentionRow(*held, 2, 0, 1).ok());
}

}  // namespace
}  // namespace qkv
