// The streamed attention (streamed_attention.hpp) against the engine's full maps at sizes where
// those fit: pooled means and maxima, exact regions and the row statistics, for self, causal,
// a sliding window, key padding, cross-attention and a soft cap, across several tiles of keys.
// The engine's weights are float (softmax normalised in float), the stream's double: they agree
// to float precision, relative to each quantity.

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "core/analysis/head_statistics.hpp"
#include "core/analysis/map_pooling.hpp"
#include "core/attention/multi_head_attention.hpp"
#include "core/analysis/value_norms.hpp"
#include "core/attention/streamed_attention.hpp"
#include "core/attention/streamed_layer.hpp"

namespace qkv {
namespace {

struct Case {
    const char* name;
    Index n_q, n_k;
    bool causal;
    Index window;
    bool padded;
    double softCap;
};

// The case's name in test logs (not its bytes).
void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

// Weights are at most 1: the engine's are float, normalised by a float sum over up to 2,300 keys
// (a few float ulps of 1), the stream's double.
constexpr double kWeightTolerance = 1e-5;

AttentionResult fullResult(const Case& c, const MatrixF& xq, const MatrixF& xkv, const AttentionWeights& w)
{
    AttentionOptions options;
    options.mask.causal = c.causal;
    options.mask.window = c.window;
    if (c.padded) {
        options.mask.keyPadding.assign(static_cast<std::size_t>(c.n_k), false);
        for (Index j = 3; j < c.n_k; j += 7) options.mask.keyPadding[static_cast<std::size_t>(j)] = true;
    }
    options.conventions.scoreSoftCap = c.softCap;
    return multiHeadAttentionForward(xq, xkv, w, w.grouping(2), options);
}

class StreamedAttentionTest : public ::testing::TestWithParam<Case> {};

TEST_P(StreamedAttentionTest, PooledMapsRegionsAndRowStatisticsAreTheFullMapsOwn)
{
    const Case c = GetParam();
    std::srand(7);
    const Index d = 24;
    const MatrixF xq = MatrixF::Random(c.n_q, d);
    const MatrixF xkv = c.causal ? xq : MatrixF::Random(c.n_k, d);
    AttentionWeights w;
    w.queryProjection = MatrixF::Random(d, d) * 1.5f;
    w.keyProjection = MatrixF::Random(d, d) * 1.5f;
    w.valueProjection = MatrixF::Random(d, d);
    w.outputProjection = MatrixF::Random(d, d);
    const AttentionResult full = fullResult(c, xq, xkv, w);
    for (Index head = 0; head < 2; ++head) {
        const MatrixF query = full.queryHead(head), key = full.keyHead(head);
        const HeadScoresInput input{query, key, full.scoreScale, full.scoreSoftCap, full.mask};
        const MatrixF& A = full.heads[static_cast<std::size_t>(head)].attention;  // n_q x n_k

        Expected<StreamedAttention> streamed = streamHeadAttention(input, 7, 9);
        ASSERT_TRUE(streamed.ok()) << streamed.error();
        const PooledAttention& pooled = streamed->pooled;
        ASSERT_EQ(pooled.rowEdges, blockEdges(c.n_q, 7));
        ASSERT_EQ(pooled.columnEdges, blockEdges(c.n_k, 9));
        const Expected<MatrixF> means = blockMeans(A, 7, 9);
        ASSERT_TRUE(means.ok());
        EXPECT_LT((pooled.mean.cast<double>() - means->cast<double>()).cwiseAbs().maxCoeff(), kWeightTolerance) << c.name;
        for (Index b = 0; b < 7; ++b)
            for (Index e = 0; e < 9; ++e) {
                const Index r0 = pooled.rowEdges[static_cast<std::size_t>(b)], r1 = pooled.rowEdges[static_cast<std::size_t>(b) + 1];
                const Index c0 = pooled.columnEdges[static_cast<std::size_t>(e)], c1 = pooled.columnEdges[static_cast<std::size_t>(e) + 1];
                EXPECT_NEAR(pooled.max(b, e), A.block(r0, c0, r1 - r0, c1 - c0).maxCoeff(), kWeightTolerance) << c.name << " " << b << "," << e;
            }

        const Expected<HeadStatistics> statistics = headStatistics(full, head, c.causal);
        ASSERT_TRUE(statistics.ok()) << statistics.error();
        const HeadStatistics& exact = *statistics;
        const StreamedRowStatistics& rows = streamed->rows;
        for (Index q = 0; q < c.n_q; ++q) {
            if (!exact.hasDistribution(q)) {
                EXPECT_TRUE(std::isnan(rows.entropy(q))) << q;
                continue;
            }
            EXPECT_NEAR(rows.entropy(q), exact.entropy(q), 1e-4) << c.name << " row " << q;
            // Relative to the distance (weights within kWeightTolerance, distances up to n).
            EXPECT_NEAR(rows.meanDistance(q), exact.meanDistance(q), 1e-5 * (1.0 + exact.meanDistance(q)))
                << c.name << " row " << q;
            EXPECT_NEAR(rows.maxWeight(q), exact.maxWeight(q), kWeightTolerance) << c.name << " row " << q;
            if (q < c.n_k) EXPECT_NEAR(rows.selfWeight(q), A(q, q), kWeightTolerance) << c.name << " row " << q;
        }

        const Index a = c.n_q / 3, b = c.n_q - 2, s = c.n_k / 4, e = c.n_k - 1;
        Expected<MatrixF> region = attentionRegion(input, a, b, s, e);
        ASSERT_TRUE(region.ok()) << region.error();
        EXPECT_LT((*region - A.block(a, s, b - a, e - s)).cwiseAbs().maxCoeff(), kWeightTolerance) << c.name;
    }
}

// Sizes past one tile of keys (2048) and one block of rows (64); masks of every kind; a cap.
INSTANTIATE_TEST_SUITE_P(Masks, StreamedAttentionTest,
                         ::testing::Values(Case{"self", 150, 150, false, 0, false, 0.0},
                                           Case{"causal", 2300, 2300, true, 0, false, 0.0},
                                           Case{"window", 300, 300, true, 17, false, 0.0},
                                           Case{"padded cross", 90, 2100, false, 0, true, 0.0},
                                           Case{"capped causal", 200, 200, true, 0, false, 1.5}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                             std::string name = info.param.name;
                             for (char& ch : name) if (ch == ' ') ch = '_';
                             return name;
                         });

TEST(StreamedAttention, RegionsOutsideTheMapAndEmptyPoolsAreRefused)
{
    const MatrixF q = MatrixF::Random(10, 4), k = MatrixF::Random(12, 4);
    const AttentionMask mask;
    const HeadScoresInput input{q, k, 0.5f, 0.0, mask};
    for (const auto& [a, b, c, d] : {std::array<Index, 4>{0, 11, 0, 12}, {3, 3, 0, 5}, {0, 5, 6, 13}, {-1, 4, 0, 2}}) {
        Expected<MatrixF> region = attentionRegion(input, a, b, c, d);
        ASSERT_FALSE(region.ok());
        EXPECT_NE(region.error().find("not a region of the 10 x 12 map"), std::string::npos) << region.error();
    }
    EXPECT_FALSE(streamHeadAttention(input, 0, 4).ok());
    EXPECT_EQ(blockEdges(10, 3), (std::vector<Index>{0, 3, 6, 10}));
    // More blocks asked for than rows: one row a block.
    Expected<StreamedAttention> fine = streamHeadAttention(input, 50, 50);
    ASSERT_TRUE(fine.ok());
    EXPECT_EQ(fine->pooled.mean.rows(), 10);
    EXPECT_EQ(fine->pooled.mean.cols(), 12);
}

// A whole layer streamed: the engine's output, Concat and fully masked rows, and each head's
// pooled value norms are the pooled N_i of value_norms.hpp.
TEST(StreamedLayer, ItsOutputsAreTheEnginesAndItsValueNormsPoolTheFullOnes)
{
    std::srand(5);
    const Index n = 2200, d = 16;
    const MatrixF x = MatrixF::Random(n, d);
    AttentionWeights w;
    w.queryProjection = MatrixF::Random(d, d);
    w.keyProjection = MatrixF::Random(d, d);
    w.valueProjection = MatrixF::Random(d, d);
    w.outputProjection = MatrixF::Random(d, d);
    AttentionOptions options;
    options.mask.causal = true;
    options.mask.keyPadding.assign(static_cast<std::size_t>(n), false);
    options.mask.keyPadding[0] = true;  // query 0 sees no key
    options.ablated = {false, true, false, false};
    const HeadGrouping grouping = w.grouping(4);
    const AttentionResult full = multiHeadAttentionForward(x, x, w, grouping, options);
    StreamedLayerOptions streamedOptions;
    streamedOptions.pooledRows = 5;
    streamedOptions.pooledColumns = 6;
    streamedOptions.valueNorms = true;
    const Expected<StreamedLayer> streamed = streamedMultiHeadAttention(x, x, w, grouping, options, streamedOptions);
    ASSERT_TRUE(streamed.ok()) << streamed.error();
    const AttentionResult& layer = streamed->attention;
    EXPECT_TRUE(layer.heads.front().attention.size() == 0) << "no map is held";
    EXPECT_LT((layer.headOutputs - full.headOutputs).cwiseAbs().maxCoeff(), 1e-5);
    EXPECT_LT((layer.output - full.output).cwiseAbs().maxCoeff(), 1e-5);
    EXPECT_EQ(layer.fullyMaskedRows, full.fullyMaskedRows);
    EXPECT_TRUE(layer.fullyMaskedRows[0]);

    const Expected<ValueNorms> norms = valueWeightedNorms(full, w);
    ASSERT_TRUE(norms.ok()) << norms.error();
    for (Index head = 0; head < 4; ++head) {
        const PooledAttention& pooled = streamed->heads[static_cast<std::size_t>(head)].pooled;
        const Expected<MatrixF> means = blockMeans(norms->heads[static_cast<std::size_t>(head)], 5, 6);
        ASSERT_TRUE(means.ok());
        const double scale = norms->heads[static_cast<std::size_t>(head)].maxCoeff();
        EXPECT_LT((pooled.scaledMean.cast<double>() - means->cast<double>()).cwiseAbs().maxCoeff(), 1e-5 * scale) << head;
        EXPECT_NEAR(pooled.scaledMax.maxCoeff(), scale, 1e-5 * scale) << head;
    }

    // Any region of a head, exactly, from Q_i and K_j alone.
    const Expected<MatrixF> region = headAttentionRegion(layer, 2, 2100, 2200, 0, 2200);
    ASSERT_TRUE(region.ok()) << region.error();
    EXPECT_LT((*region - full.heads[2].attention.bottomRows(100)).cwiseAbs().maxCoeff(), kWeightTolerance);
    EXPECT_FALSE(headAttentionRegion(layer, 4, 0, 1, 0, 1).ok());
}

TEST(StreamedAttention, AScoreThatOverflowsIsRefusedAndAStopEndsTheStream)
{
    MatrixF q = MatrixF::Random(100, 4), k = MatrixF::Random(100, 4);
    q(50, 0) = 3e38f;
    k.col(0).setConstant(3e38f);
    const AttentionMask mask;
    const HeadScoresInput overflowing{q, k, 1.0f, 0.0, mask};
    const Expected<StreamedAttention> refused = streamHeadAttention(overflowing, 4, 4);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("not finite"), std::string::npos) << refused.error();
    EXPECT_FALSE(attentionRegion(overflowing, 40, 60, 0, 10).ok());

    const MatrixF fine = MatrixF::Random(100, 4);
    const HeadScoresInput input{fine, fine, 1.0f, 0.0, mask};
    std::atomic<bool> stop{true};
    std::atomic<Index> rows{0};
    const Expected<StreamedAttention> stopped = streamHeadAttention(input, 4, 4, {&rows, &stop});
    ASSERT_FALSE(stopped.ok());
    EXPECT_EQ(stopped.error(), streamStoppedError);
    stop = false;
    ASSERT_TRUE(streamHeadAttention(input, 4, 4, {&rows, &stop}).ok());
    EXPECT_EQ(rows.load(), 100) << "every row counted once";
}

}  // namespace
}  // namespace qkv
