// Multi-head attention: hand-computed values, invariants (rows sum to 1, masks), shapes of
// each mode, the head split, and stability at extreme logits.

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "core/attention/multi_head_attention.hpp"
#include "core/common/random.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

MatrixF randomMatrix(Index rows, Index cols, std::uint64_t seed, double scale = 1.0)
{
    SplitMix64 stream(seed);
    MatrixF m(rows, cols);
    for (Index r = 0; r < rows; ++r)
        for (Index c = 0; c < cols; ++c) m(r, c) = static_cast<float>(scale * stream.normal());
    return m;
}

AttentionWeights randomWeights(Index d_model, std::uint64_t seed, bool bias = false)
{
    AttentionWeights w;
    const double scale = 1.0 / std::sqrt(static_cast<double>(d_model));
    w.queryProjection = randomMatrix(d_model, d_model, seed + 1, scale);
    w.keyProjection = randomMatrix(d_model, d_model, seed + 2, scale);
    w.valueProjection = randomMatrix(d_model, d_model, seed + 3, scale);
    w.outputProjection = randomMatrix(d_model, d_model, seed + 4, scale);
    if (bias) {
        w.queryBias = randomMatrix(1, d_model, seed + 5);
        w.keyBias = randomMatrix(1, d_model, seed + 6);
        w.valueBias = randomMatrix(1, d_model, seed + 7);
        w.outputBias = randomMatrix(1, d_model, seed + 8);
    }
    return w;
}

AttentionWeights identityWeights(Index d_model)
{
    AttentionWeights w;
    w.queryProjection = w.keyProjection = w.valueProjection = w.outputProjection =
        MatrixF::Identity(d_model, d_model);
    return w;
}

TEST(Attention, HandComputedTwoTokens)
{
    // X = I (2 tokens, d_model 2), every projection the identity, one head:
    // scores = X X^T / sqrt(2) = I / sqrt(2); row 0 softmax = [e^a, 1] / (e^a + 1), a = 1/sqrt(2).
    const MatrixF x = MatrixF::Identity(2, 2);
    const AttentionResult r = multiHeadAttentionForward(x, x, identityWeights(2), 1, {});
    const double a = 1.0 / std::sqrt(2.0);
    const double diagonal = std::exp(a) / (std::exp(a) + 1.0);  // 0.669761...
    MatrixF expectedScores(2, 2);
    expectedScores << a, 0, 0, a;
    MatrixF expectedAttention(2, 2);
    expectedAttention << diagonal, 1 - diagonal, 1 - diagonal, diagonal;
    EXPECT_NEAR(diagonal, 0.6697615, 1e-6);
    EXPECT_MATRIX_NEAR(r.heads[0].scores, expectedScores, 1e-6);
    EXPECT_MATRIX_NEAR(r.heads[0].attention, expectedAttention, 1e-6);
    // Output = A V W^O = A X.
    EXPECT_MATRIX_NEAR(r.output, expectedAttention, 1e-6);
    EXPECT_MATRIX_NEAR(r.headOutputs, expectedAttention, 1e-6);
}

TEST(Attention, RowsSumToOneAndWeightsAreProbabilities)
{
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
        const Index n_q = 1 + static_cast<Index>(seed % 7), n_k = 1 + static_cast<Index>((seed * 3) % 9);
        const Index d_model = 12;
        const Index divisors[] = {1, 2, 3, 4, 6, 12};
        const Index heads = divisors[seed % 6];
        const AttentionResult r = multiHeadAttentionForward(randomMatrix(n_q, d_model, seed),
                                                            randomMatrix(n_k, d_model, seed + 100),
                                                            randomWeights(d_model, seed, seed % 2 == 0), heads, {});
        ASSERT_EQ(r.headCount(), heads);
        for (const HeadAttention& head : r.heads) {
            EXPECT_MATRIX_NEAR(head.attention.rowwise().sum(), MatrixF::Ones(n_q, 1), 1e-5);
            EXPECT_GE(head.attention.minCoeff(), 0.0f);
            EXPECT_LE(head.attention.maxCoeff(), 1.0f);
        }
    }
}

TEST(Attention, CausalMaskHidesFutureKeys)
{
    const Index n = 6, d_model = 8;
    const MatrixF x = randomMatrix(n, d_model, 7);
    AttentionMask mask;
    mask.causal = true;
    const AttentionResult r = multiHeadAttentionForward(x, x, randomWeights(d_model, 7), 2, mask);
    for (const HeadAttention& head : r.heads) {
        for (Index q = 0; q < n; ++q) {
            for (Index k = q + 1; k < n; ++k) EXPECT_EQ(head.attention(q, k), 0.0f) << q << "," << k;
            EXPECT_NEAR(head.attention.row(q).head(q + 1).sum(), 1.0f, 1e-5);
        }
        EXPECT_EQ(head.attention(0, 0), 1.0f);  // the first token sees only itself
    }
    // The first query's output depends on token 0 only: changing later tokens leaves it alone.
    MatrixF changed = x;
    changed.bottomRows(n - 1).setRandom();
    const AttentionResult r2 = multiHeadAttentionForward(changed, changed, randomWeights(d_model, 7), 2, mask);
    EXPECT_MATRIX_NEAR(r2.output.row(0), r.output.row(0), 1e-6);
}

TEST(Attention, CrossAttentionShapesAreTargetBySource)
{
    const Index n_target = 3, n_source = 7, d_model = 16, h = 4;
    const AttentionResult r = multiHeadAttentionForward(randomMatrix(n_target, d_model, 1),
                                                        randomMatrix(n_source, d_model, 2),
                                                        randomWeights(d_model, 3), h, {});
    EXPECT_EQ(r.query.rows(), n_target);
    EXPECT_EQ(r.key.rows(), n_source);
    EXPECT_EQ(r.value.rows(), n_source);
    EXPECT_EQ(r.d_k(), d_model / h);
    for (const HeadAttention& head : r.heads) {
        EXPECT_EQ(head.scores.rows(), n_target);
        EXPECT_EQ(head.scores.cols(), n_source);
        EXPECT_EQ(head.attention.rows(), n_target);
        EXPECT_EQ(head.attention.cols(), n_source);
    }
    EXPECT_EQ(r.output.rows(), n_target);
    EXPECT_EQ(r.output.cols(), d_model);
}

TEST(Attention, FusedHeadSplitEqualsSeparatePerHeadProjections)
{
    // "One big matrix split into h heads" and "h separate projections" give the same numbers.
    const Index n_q = 5, n_k = 6, d_model = 12, h = 3, d_k = d_model / h;
    const MatrixF x_q = randomMatrix(n_q, d_model, 11), x_kv = randomMatrix(n_k, d_model, 12);
    const AttentionWeights w = randomWeights(d_model, 13, true);
    const AttentionResult fused = multiHeadAttentionForward(x_q, x_kv, w, h, {});

    MatrixF concat(n_q, d_model);
    for (Index i = 0; i < h; ++i) {
        // Separate matrices, copied out as a per-head implementation would own them.
        const MatrixF wq = w.queryProjection.middleCols(i * d_k, d_k), wk = w.keyProjection.middleCols(i * d_k, d_k),
                      wv = w.valueProjection.middleCols(i * d_k, d_k);
        const RowVectorF bq = w.queryBias->segment(i * d_k, d_k), bk = w.keyBias->segment(i * d_k, d_k),
                         bv = w.valueBias->segment(i * d_k, d_k);
        const MatrixF q = (x_q * wq).rowwise() + bq, k = (x_kv * wk).rowwise() + bk, v = (x_kv * wv).rowwise() + bv;
        const MatrixF scores = q * k.transpose() / std::sqrt(static_cast<float>(d_k));
        EXPECT_MATRIX_NEAR(fused.heads[static_cast<std::size_t>(i)].scores, scores, 1e-5);
        MatrixF attention(n_q, n_k);
        for (Index r = 0; r < n_q; ++r) {
            const RowVectorF e = (scores.row(r).array() - scores.row(r).maxCoeff()).exp();
            attention.row(r) = e / e.sum();
        }
        EXPECT_MATRIX_NEAR(fused.heads[static_cast<std::size_t>(i)].attention, attention, 1e-6);
        concat.middleCols(i * d_k, d_k) = attention * v;
    }
    EXPECT_MATRIX_NEAR(fused.headOutputs, concat, 1e-5);
    const MatrixF output = (concat * w.outputProjection).rowwise() + *w.outputBias;
    EXPECT_MATRIX_NEAR(fused.output, output, 1e-5);
}

TEST(Attention, KeyPaddingMaskZeroesPaddedKeysAndFlagsNothingElse)
{
    const Index d_model = 8;
    AttentionMask mask;
    mask.keyPadding = {false, true, false, true};
    const AttentionResult r = multiHeadAttentionForward(randomMatrix(3, d_model, 21), randomMatrix(4, d_model, 22),
                                                        randomWeights(d_model, 23), 2, mask);
    for (const HeadAttention& head : r.heads) {
        EXPECT_MATRIX_NEAR(head.attention.col(1), MatrixF::Zero(3, 1), 0.0);
        EXPECT_MATRIX_NEAR(head.attention.col(3), MatrixF::Zero(3, 1), 0.0);
        EXPECT_MATRIX_NEAR(head.attention.rowwise().sum(), MatrixF::Ones(3, 1), 1e-6);
    }
    EXPECT_EQ(r.fullyMaskedRows, std::vector<bool>(3, false));
}

TEST(Attention, AllKeysPaddedGivesZeroHeadOutputsNotNaN)
{
    const Index d_model = 4;
    AttentionMask mask;
    mask.keyPadding = {true, true};
    const AttentionResult r = multiHeadAttentionForward(randomMatrix(2, d_model, 31), randomMatrix(2, d_model, 32),
                                                        randomWeights(d_model, 33), 2, mask);
    EXPECT_TRUE(r.output.allFinite());
    EXPECT_MATRIX_NEAR(r.headOutputs, MatrixF::Zero(2, d_model), 0.0);
    EXPECT_EQ(r.fullyMaskedRows, std::vector<bool>(2, true));
}

}  // namespace
}  // namespace qkv

namespace qkv {
namespace {

TEST(AttentionMask, FillMaskedTouchesExactlyTheMaskedPairs)
{
    AttentionMask mask;
    mask.causal = true;
    mask.keyPadding = {false, false, true};
    MatrixF m = MatrixF::Ones(3, 3);
    mask.fillMasked(m, -5.0f);
    MatrixF expected(3, 3);
    expected << 1, -5, -5,   // key 1 is in the future, key 2 is padding
        1, 1, -5,            // key 2 is padding
        1, 1, -5;
    EXPECT_MATRIX_NEAR(m, expected, 0.0);
}

TEST(AttentionResult, RawScoreUndoesTheScale)
{
    // X = I, identity projections, d_model 4, h 1: Q K^T = I, so the raw score of (0, 0) is 1.
    const MatrixF x = MatrixF::Identity(4, 4);
    AttentionWeights w;
    w.queryProjection = w.keyProjection = w.valueProjection = w.outputProjection = MatrixF::Identity(4, 4);
    const AttentionResult r = multiHeadAttentionForward(x, x, w, 1, {});
    EXPECT_NEAR(r.heads[0].scores(0, 0), 0.5, 1e-7);  // 1 / sqrt(4)
    EXPECT_NEAR(r.rawScore(0, 0, 0), 1.0, 1e-7);
    EXPECT_NEAR(r.rawScore(0, 0, 1), 0.0, 1e-7);
}

}  // namespace
}  // namespace qkv
