// Properties of the attention statistics over many random layers, and their edge cases. Every
// reference is computed here directly from its definition (double loops over the row).

#include "core/analysis/head_statistics.hpp"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "analysis_test_support.hpp"
#include "core/config/examples.hpp"
#include "core/pipeline/compute.hpp"

namespace qkv {
namespace {

using testing::randomMatrixF;
using testing::randomWeights;

struct RandomLayer {
    AttentionResult result;
    bool ownPosition = false;
};

// Self, causal or cross; sometimes key padding; logits from gentle to nearly one-hot.
RandomLayer randomLayer(SplitMix64& rng)
{
    const int mode = static_cast<int>(rng.next() % 3);  // 0 self, 1 causal, 2 cross
    const Index h = 1 + static_cast<Index>(rng.next() % 3);
    const Index d_model = h * (1 + static_cast<Index>(rng.next() % 4));
    const Index n_q = 1 + static_cast<Index>(rng.next() % 9);
    const Index n_k = mode == 2 ? 1 + static_cast<Index>(rng.next() % 9) : n_q;
    const double scale = std::pow(10.0, rng.uniform(-1.0, 1.3));
    const MatrixF x_q = randomMatrixF(n_q, d_model, rng);
    const MatrixF x_kv = mode == 2 ? randomMatrixF(n_k, d_model, rng) : x_q;
    const AttentionWeights w = randomWeights(d_model, h, h, rng.next() % 2 == 0, rng, scale);
    AttentionOptions options;
    options.mask.causal = mode == 1;
    if (rng.next() % 3 == 0) {
        options.mask.keyPadding.resize(static_cast<std::size_t>(n_k));
        for (std::size_t k = 0; k < options.mask.keyPadding.size(); ++k) options.mask.keyPadding[k] = rng.next() % 3 == 0;
    }
    return {multiHeadAttentionForward(x_q, x_kv, w, w.grouping(h), options), mode != 2};
}

TEST(HeadStatistics, BoundsHoldOverManyRandomLayers)
{
    SplitMix64 rng(801);
    int rowsChecked = 0, fullyMaskedSeen = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const RandomLayer layer = randomLayer(rng);
        const AttentionResult& r = layer.result;
        for (Index head = 0; head < r.headCount(); ++head) {
            const auto stats = headStatistics(r, head, layer.ownPosition);
            ASSERT_TRUE(stats.ok()) << stats.error();
            const MatrixF& a = r.heads[static_cast<std::size_t>(head)].attention;
            EXPECT_EQ(stats->hasSelfWeight(), layer.ownPosition);
            double sums[5] = {0, 0, 0, 0, 0};
            Index rows = 0;
            for (Index q = 0; q < r.queryCount(); ++q) {
                // Visible keys counted from the mask itself.
                Index visible = 0, farthest = 0;
                for (Index k = 0; k < r.keyCount(); ++k) {
                    if (r.mask.masked(q, k)) continue;
                    ++visible;
                    farthest = std::max(farthest, std::abs(k - q));
                }
                ASSERT_EQ(stats->visibleKeys[static_cast<std::size_t>(q)], visible);
                if (visible == 0) {
                    ++fullyMaskedSeen;
                    EXPECT_TRUE(std::isnan(stats->entropy(q)) && std::isnan(stats->normalizedEntropy(q)) &&
                                std::isnan(stats->meanDistance(q)) && std::isnan(stats->maxWeight(q)));
                    EXPECT_FALSE(stats->hasDistribution(q));
                    continue;
                }
                ++rowsChecked;
                ++rows;
                const double H = stats->entropy(q), logV = std::log(static_cast<double>(visible));
                EXPECT_GE(H, 0.0);
                EXPECT_LE(H, logV);
                EXPECT_GE(stats->normalizedEntropy(q), 0.0);
                EXPECT_LE(stats->normalizedEntropy(q), 1.0);
                EXPECT_GE(stats->maxWeight(q), 1.0 / static_cast<double>(visible) - 1e-6);
                EXPECT_LE(stats->maxWeight(q), 1.0 + 1e-6);
                EXPECT_GE(stats->meanDistance(q), 0.0);
                EXPECT_LE(stats->meanDistance(q), static_cast<double>(farthest) * (1.0 + 1e-6));
                // The definitions, directly.
                double rowSum = 0.0, directH = 0.0, distance = 0.0;
                for (Index k = 0; k < r.keyCount(); ++k) rowSum += a(q, k);
                for (Index k = 0; k < r.keyCount(); ++k) {
                    const double p = a(q, k) / rowSum;
                    if (p > 0.0) directH -= p * std::log(p);
                    distance += a(q, k) * std::abs(static_cast<double>(k - q));
                }
                EXPECT_NEAR(H, std::clamp(directH, 0.0, logV), 1e-12);
                EXPECT_NEAR(stats->normalizedEntropy(q), visible > 1 ? std::min(H / logV, 1.0) : 0.0, 1e-15);
                EXPECT_NEAR(stats->meanDistance(q), distance, 1e-12 * (1.0 + distance));
                EXPECT_EQ(stats->maxWeight(q), static_cast<double>(a.row(q).maxCoeff()));
                if (layer.ownPosition) {
                    EXPECT_EQ(stats->selfWeight(q), static_cast<double>(a(q, q)));
                    sums[4] += stats->selfWeight(q);
                }
                sums[0] += H;
                sums[1] += stats->normalizedEntropy(q);
                sums[2] += stats->meanDistance(q);
                sums[3] += stats->maxWeight(q);
            }
            ASSERT_EQ(stats->summary.rows, rows);
            if (rows == 0) {
                EXPECT_TRUE(std::isnan(stats->summary.entropy) && std::isnan(stats->summary.maxWeight));
                continue;
            }
            const double n = static_cast<double>(rows);
            EXPECT_NEAR(stats->summary.entropy, sums[0] / n, 1e-12);
            EXPECT_NEAR(stats->summary.normalizedEntropy, sums[1] / n, 1e-12);
            EXPECT_NEAR(stats->summary.meanDistance, sums[2] / n, 1e-12);
            EXPECT_NEAR(stats->summary.maxWeight, sums[3] / n, 1e-12);
            if (layer.ownPosition) EXPECT_NEAR(stats->summary.selfWeight, sums[4] / n, 1e-12);
            else EXPECT_TRUE(std::isnan(stats->summary.selfWeight));
        }
    }
    EXPECT_GT(rowsChecked, 1000);
    EXPECT_GT(fullyMaskedSeen, 0);  // the generator reaches fully masked rows
}

TEST(HeadStatistics, UniformOneHotAndSingleKeyRows)
{
    MatrixF a(4, 4);
    a << 0.25f, 0.25f, 0.25f, 0.25f,  // uniform over 4: H = ln 4, normalised 1
        0.0f, 1.0f, 0.0f, 0.0f,       // one-hot: H = 0, max 1
        0.0f, 0.0f, 0.0f, 1.0f,       // one-hot far away: distance |3 - 2| = 1
        0.5f, 0.0f, 0.0f, 0.5f;       // two keys: H = ln 2, normalised 0.5 (ln 2 / ln 4)
    const auto stats = attentionStatistics(a, {}, {}, true);
    ASSERT_TRUE(stats.ok()) << stats.error();
    EXPECT_NEAR(stats->entropy(0), std::log(4.0), 1e-15);
    EXPECT_NEAR(stats->normalizedEntropy(0), 1.0, 1e-15);
    EXPECT_LE(stats->normalizedEntropy(0), 1.0);
    EXPECT_NEAR(stats->meanDistance(0), (0 + 1 + 2 + 3) / 4.0, 1e-15);
    EXPECT_EQ(stats->selfWeight(0), 0.25);
    EXPECT_EQ(stats->entropy(1), 0.0);
    EXPECT_EQ(stats->normalizedEntropy(1), 0.0);
    EXPECT_EQ(stats->maxWeight(1), 1.0);
    EXPECT_EQ(stats->meanDistance(1), 0.0);
    EXPECT_EQ(stats->selfWeight(1), 1.0);
    EXPECT_EQ(stats->meanDistance(2), 1.0);
    EXPECT_EQ(stats->selfWeight(2), 0.0);
    EXPECT_NEAR(stats->normalizedEntropy(3), 0.5, 1e-15);
    EXPECT_EQ(stats->meanDistance(3), 1.5);  // 0.5 |0 - 3| + 0.5 |3 - 3|
}

TEST(HeadStatistics, OneVisibleKeyIsFullyConcentratedAndFullyMaskedRowsAreUndefined)
{
    // Causal, key 0 padded: query 0 sees nothing, query 1 only key 1.
    MatrixF a(3, 3);
    a << 0.0f, 0.0f, 0.0f,
        0.0f, 1.0f, 0.0f,
        0.0f, 0.3f, 0.7f;
    AttentionMask mask;
    mask.causal = true;
    mask.keyPadding = {true, false, false};
    const auto stats = attentionStatistics(a, mask, {true, false, false}, true);
    ASSERT_TRUE(stats.ok()) << stats.error();
    EXPECT_EQ(stats->visibleKeys, (std::vector<Index>{0, 1, 2}));
    EXPECT_FALSE(stats->hasDistribution(0));
    EXPECT_TRUE(std::isnan(stats->selfWeight(0)));
    EXPECT_EQ(stats->entropy(1), 0.0);
    EXPECT_EQ(stats->normalizedEntropy(1), 0.0);  // ln 1 = 0: defined as 0
    EXPECT_EQ(stats->summary.rows, 2);
    EXPECT_NEAR(stats->summary.maxWeight, (1.0 + 0.7f) / 2.0, 1e-7);
    // Without the softmax's flags, v = 0 alone marks the row.
    const auto unflagged = attentionStatistics(a, mask, {}, true);
    ASSERT_TRUE(unflagged.ok());
    EXPECT_FALSE(unflagged->hasDistribution(0));
}

TEST(HeadStatistics, PaddedOwnKeyHasSelfWeightZero)
{
    MatrixF a(2, 2);
    a << 0.0f, 1.0f,
        0.0f, 1.0f;
    AttentionMask mask;
    mask.keyPadding = {true, false};
    const auto stats = attentionStatistics(a, mask, {}, true);
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(stats->selfWeight(0), 0.0);
    EXPECT_EQ(stats->selfWeight(1), 1.0);
    EXPECT_EQ(stats->visibleKeys, (std::vector<Index>{1, 1}));
}

TEST(HeadStatistics, BadInputIsAMessage)
{
    const MatrixF a = MatrixF::Constant(2, 3, 1.0f / 3.0f);
    AttentionMask wrongPadding;
    wrongPadding.keyPadding = {false, false};
    EXPECT_FALSE(attentionStatistics(a, wrongPadding, {}, false).ok());
    EXPECT_FALSE(attentionStatistics(a, {}, {false}, false).ok());
    MatrixF nan = a;
    nan(1, 1) = std::nanf("");
    const auto bad = attentionStatistics(nan, {}, {}, false);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().find("NaN"), std::string::npos);
    const auto r = compute(builtInExample());
    ASSERT_TRUE(r.ok());
    const auto missing = headStatistics(**r, (*r)->attention.headCount());
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().find("does not exist"), std::string::npos) << missing.error();
}

TEST(HeadStatistics, ResultOverloadFollowsTheMode)
{
    for (const AttentionMode mode : {AttentionMode::EncoderSelf, AttentionMode::DecoderCausal, AttentionMode::Cross}) {
        Config config = builtInExample();
        config.mode = mode;
        const auto r = compute(config);
        ASSERT_TRUE(r.ok()) << r.error();
        const auto stats = headStatistics(**r, 0);
        ASSERT_TRUE(stats.ok());
        EXPECT_EQ(stats->hasSelfWeight(), mode != AttentionMode::Cross);
        const std::vector<HeadStatisticsSummary> summaries = headStatisticsSummaries(**r);
        ASSERT_EQ(static_cast<Index>(summaries.size()), config.headCount);
        EXPECT_EQ(summaries[0].entropy, stats->summary.entropy);
        EXPECT_EQ(summaries[0].rows, (*r)->attention.queryCount());
    }
}

TEST(HeadStatistics, LargeLayersUseTheParallelPathWithTheSameNumbers)
{
    // n_q n_k above the threshold of the parallel loop; compare row by row with small calls.
    SplitMix64 rng(5);
    const Index n = 600;
    MatrixF a = randomMatrixF(n, n, rng).cwiseAbs();
    for (Index q = 0; q < n; ++q) a.row(q) /= a.row(q).sum();
    const auto whole = attentionStatistics(a, {}, {}, true);
    ASSERT_TRUE(whole.ok());
    for (Index q = 0; q < n; q += 37) {
        const MatrixF row = a.row(q);
        const auto one = attentionStatistics(row, {}, {}, false);
        ASSERT_TRUE(one.ok());
        EXPECT_NEAR(whole->entropy(q), one->entropy(0), 1e-14);
        EXPECT_EQ(whole->maxWeight(q), one->maxWeight(0));
    }
}

}  // namespace
}  // namespace qkv
