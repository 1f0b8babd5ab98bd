// Sliding-window attention (Mistral): with a window of W, causal query t sees keys t - W + 1 .. t
// only. Checked against a softmax written out here over exactly those keys, with key padding
// on top, in the statistics' visible counts, and through the Config (validation, session).
// The whole Mistral model against PyTorch: tests/core/pretrained/seq2seq_families_test.cpp.

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "core/analysis/head_statistics.hpp"
#include "core/attention/multi_head_attention.hpp"
#include "core/config/validation.hpp"
#include "core/session/config_json.hpp"

namespace qkv {
namespace {

MatrixF randomMatrix(Index rows, Index cols, std::mt19937& g)
{
    std::normal_distribution<float> normal(0.0f, 1.0f);
    MatrixF m(rows, cols);
    for (Index i = 0; i < m.size(); ++i) m.data()[i] = normal(g);
    return m;
}

TEST(SlidingWindow, TheMaskKeepsTheWLatestKeys)
{
    AttentionMask mask;
    mask.causal = true;
    mask.window = 3;
    EXPECT_EQ(mask.visibleBegin(0), 0);
    EXPECT_EQ(mask.visibleBegin(2), 0);
    EXPECT_EQ(mask.visibleBegin(3), 1);
    EXPECT_EQ(mask.visibleBegin(9), 7);
    for (Index q = 0; q < 10; ++q)
        for (Index k = 0; k < 10; ++k) EXPECT_EQ(mask.masked(q, k), k > q || k <= q - 3) << q << ", " << k;
    // Without causal the window means nothing (the Config refuses it).
    mask.causal = false;
    EXPECT_EQ(mask.visibleBegin(9), 0);
    EXPECT_FALSE(mask.masked(9, 0));
}

// Each row is the softmax of that row's scores over its window's unpadded keys, zero elsewhere.
TEST(SlidingWindow, EachRowIsTheSoftmaxOverItsWindow)
{
    std::mt19937 g(7);
    const Index n = 11, d = 8, h = 2, W = 4;
    AttentionWeights weights;
    weights.queryProjection = randomMatrix(d, d, g);
    weights.keyProjection = randomMatrix(d, d, g);
    weights.valueProjection = randomMatrix(d, d, g);
    weights.outputProjection = randomMatrix(d, d, g);
    const MatrixF x = randomMatrix(n, d, g);
    AttentionOptions options;
    options.mask.causal = true;
    options.mask.window = W;
    options.mask.keyPadding.assign(static_cast<std::size_t>(n), false);
    options.mask.keyPadding[6] = true;  // padding still hides its key inside a window
    const AttentionResult r = multiHeadAttentionForward(x, x, weights, weights.grouping(h), options);
    for (Index head = 0; head < h; ++head) {
        const MatrixF& scores = r.heads[static_cast<std::size_t>(head)].scores;
        const MatrixF& a = r.heads[static_cast<std::size_t>(head)].attention;
        for (Index q = 0; q < n; ++q) {
            double sum = 0, rowMax = -INFINITY;
            const auto seen = [&](Index k) { return k <= q && k > q - W && k != 6; };
            for (Index k = 0; k < n; ++k)
                if (seen(k)) rowMax = std::max(rowMax, static_cast<double>(scores(q, k)));
            for (Index k = 0; k < n; ++k)
                if (seen(k)) sum += std::exp(scores(q, k) - rowMax);
            for (Index k = 0; k < n; ++k) {
                const double expected = seen(k) ? std::exp(scores(q, k) - rowMax) / sum : 0.0;
                EXPECT_NEAR(a(q, k), expected, 1e-6) << "head " << head << " query " << q << " key " << k;
                if (!seen(k)) EXPECT_EQ(a(q, k), 0.0f);
            }
        }
    }
    // head_i = A_i V_i with the window's weights only.
    const MatrixF expectedHead = r.heads[0].attention * r.valueHead(0);
    EXPECT_TRUE(r.headOutput(0).isApprox(expectedHead, 1e-5f));

    Expected<HeadStatistics> stats = attentionStatistics(r.heads[0].attention, r.mask, r.fullyMaskedRows, true);
    ASSERT_TRUE(stats) << stats.error();
    for (Index q = 0; q < n; ++q) {
        Index visible = 0;
        for (Index k = 0; k < n; ++k) visible += (k <= q && k > q - W && k != 6) ? 1 : 0;
        EXPECT_EQ(stats->visibleKeys[static_cast<std::size_t>(q)], visible) << q;
    }
    // Query 6's own key is padded away and the window holds 3 more.
    EXPECT_EQ(stats->visibleKeys[6], 3);
    EXPECT_EQ(stats->visibleKeys[9], 3);  // keys 6 .. 9, 6 padded
    EXPECT_EQ(stats->visibleKeys[10], 4);  // keys 7 .. 10
}

TEST(SlidingWindow, TheConfigAsksForCausalModeAndASessionKeepsIt)
{
    Config config;
    config.mode = AttentionMode::DecoderCausal;
    config.conventions.slidingWindow = 3;
    const auto windowIssues = [](const Config& c) {
        std::vector<ValidationIssue> found;
        for (const ValidationIssue& issue : validateConfig(c))
            if (issue.message.find("window") != std::string::npos) found.push_back(issue);
        return found;
    };
    EXPECT_TRUE(windowIssues(config).empty());
    Expected<Config> back = configFromJson(configToJson(config));
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back->conventions.slidingWindow, 3);
    EXPECT_FALSE(configToJson(Config{}).contains("sliding_window"));
    config.mode = AttentionMode::EncoderSelf;
    const std::vector<ValidationIssue> issues = windowIssues(config);
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].field, ConfigField::Mode);
    EXPECT_NE(issues[0].message.find("needs decoder (causal) self-attention"), std::string::npos) << issues[0].message;
    nlohmann::json json = configToJson(Config{});
    json["sliding_window"] = -2;
    EXPECT_FALSE(configFromJson(json));
}

}  // namespace
}  // namespace qkv
