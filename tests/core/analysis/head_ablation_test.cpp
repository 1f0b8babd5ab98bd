// Ablation effects against layers actually recomputed with heads switched off, over many
// random layers; the current ablation set; zero outputs.

#include "core/analysis/head_ablation.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "analysis_test_support.hpp"
#include "core/config/examples.hpp"
#include "core/pipeline/compute.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

using testing::randomMatrixF;
using testing::randomWeights;

AttentionResult forward(const MatrixF& x_q, const MatrixF& x_kv, const AttentionWeights& w, Index h,
                        const std::vector<bool>& ablated, bool causal)
{
    AttentionOptions options;
    options.mask.causal = causal;
    options.ablated = ablated;
    return multiHeadAttentionForward(x_q, x_kv, w, w.grouping(h), options);
}

VectorD rowNorms(const MatrixF& m) { return m.cast<double>().rowwise().norm(); }

TEST(HeadAblation, MatchesLayersRecomputedWithHeadsSwitchedOff)
{
    SplitMix64 rng(99);
    for (int trial = 0; trial < 40; ++trial) {
        const Index h = 1 + static_cast<Index>(rng.next() % 4);
        const Index g = (h % 2 == 0 && rng.next() % 2 == 0) ? h / 2 : h;
        const Index d_model = h * (1 + static_cast<Index>(rng.next() % 5));
        const Index n = 1 + static_cast<Index>(rng.next() % 8);
        const bool causal = rng.next() % 2 == 0;
        const MatrixF x = randomMatrixF(n, d_model, rng);
        const AttentionWeights w = randomWeights(d_model, h, g, rng.next() % 2 == 0, rng);
        std::vector<bool> ablated(static_cast<std::size_t>(h));
        for (std::size_t i = 0; i < ablated.size(); ++i) ablated[i] = rng.next() % 3 == 0;

        const AttentionResult r = forward(x, x, w, h, ablated, causal);
        const MatrixF full = forward(x, x, w, h, {}, causal).output;
        const auto effects = ablationEffects(r, w);
        ASSERT_TRUE(effects.ok()) << effects.error();
        ASSERT_EQ(effects->headCount(), h);
        // output_full recovered from the ablated run equals an unablated run.
        const VectorD fullNorm = rowNorms(full);
        for (Index q = 0; q < n; ++q) EXPECT_NEAR(effects->fullOutputNorm(q), fullNorm(q), 1e-5 * (1.0 + fullNorm(q)));
        // Ablating head i alone, recomputed: ||full - output_without_i||.
        for (Index i = 0; i < h; ++i) {
            std::vector<bool> alone(static_cast<std::size_t>(h), false);
            alone[static_cast<std::size_t>(i)] = true;
            const VectorD change = rowNorms(full - forward(x, x, w, h, alone, causal).output);
            for (Index q = 0; q < n; ++q) {
                EXPECT_NEAR(effects->changeNorm(q, i), change(q), 1e-5 * (1.0 + change(q)));
                EXPECT_NEAR(effects->relativeChange(q, i), effects->changeNorm(q, i) / effects->fullOutputNorm(q), 1e-15);
            }
        }
        // The current set: ||output - full|| / ||full||.
        const VectorD current = rowNorms(r.output - full);
        for (Index q = 0; q < n; ++q) {
            EXPECT_NEAR(effects->currentChangeNorm(q), current(q), 1e-5 * (1.0 + current(q)));
            Index best = 0;
            effects->changeNorm.row(q).maxCoeff(&best);
            EXPECT_EQ(effects->mostImportantHead[static_cast<std::size_t>(q)], best);
        }
        EXPECT_EQ(effects->definedRows, n);
        for (Index i = 0; i < h; ++i) EXPECT_NEAR(effects->meanRelativeChange(i), effects->relativeChange.col(i).mean(), 1e-12);
    }
}

TEST(HeadAblation, AblatingEveryHeadLeavesTheOutputBias)
{
    SplitMix64 rng(5);
    const Index h = 4, d_model = 16, n = 5;
    const MatrixF x = randomMatrixF(n, d_model, rng);
    for (const bool bias : {true, false}) {
        const AttentionWeights w = randomWeights(d_model, h, h, bias, rng);
        const AttentionResult r = forward(x, x, w, h, std::vector<bool>(h, true), false);
        const MatrixF full = forward(x, x, w, h, {}, false).output;
        const auto effects = ablationEffects(r, w);
        ASSERT_TRUE(effects.ok());
        for (Index q = 0; q < n; ++q) {
            // Every head off: the output is b^O (or 0), so the change is ||b^O - output_full||.
            const RowVectorF left = bias ? RowVectorF(*w.outputBias) : RowVectorF::Zero(d_model);
            const double expected = (left - full.row(q)).cast<double>().norm() / full.row(q).cast<double>().norm();
            EXPECT_NEAR(effects->currentRelativeChange(q), expected, 1e-5);
            if (!bias) {
                EXPECT_NEAR(effects->currentRelativeChange(q), 1.0, 1e-12);
            }
        }
    }
}

TEST(HeadAblation, NoAblationChangesNothing)
{
    const auto r = compute(builtInExample());
    ASSERT_TRUE(r.ok());
    const auto effects = ablationEffects(**r);
    ASSERT_TRUE(effects.ok());
    EXPECT_EQ(effects->currentChangeNorm.cwiseAbs().maxCoeff(), 0.0);
    EXPECT_EQ(effects->currentRelativeChange.cwiseAbs().maxCoeff(), 0.0);
    EXPECT_MATRIX_NEAR(effects->fullOutputNorm, rowNorms((*r)->attention.output), 1e-12);
}

TEST(HeadAblation, ZeroOutputHasNoRelativeChangeButKeepsTheAbsoluteOne)
{
    // Two heads, d_k = 1; query 0's head outputs cancel in W^O (output 0), query 1's are all zero.
    MatrixF heads(2, 2), w_o(2, 2), output(2, 2);
    heads << 1.0f, 1.0f,
        0.0f, 0.0f;
    w_o << 1.0f, 2.0f,
        -1.0f, -2.0f;
    output.setZero();
    const auto effects = ablationEffects(heads, w_o, output, {}, 1);
    ASSERT_TRUE(effects.ok()) << effects.error();
    EXPECT_TRUE(effects->zeroOutput(0) && effects->zeroOutput(1));
    EXPECT_TRUE(std::isnan(effects->relativeChange(0, 0)) && std::isnan(effects->currentRelativeChange(0)));
    EXPECT_NEAR(effects->changeNorm(0, 0), std::sqrt(5.0), 1e-12);
    EXPECT_NEAR(effects->changeNorm(0, 1), std::sqrt(5.0), 1e-12);
    EXPECT_EQ(effects->mostImportantHead, (std::vector<Index>{0, -1}));  // equal: lowest; none: -1
    EXPECT_EQ(effects->definedRows, 0);
    EXPECT_TRUE(std::isnan(effects->meanRelativeChange(0)));
}

TEST(HeadAblation, BadShapesAreAMessage)
{
    const MatrixF heads = MatrixF::Zero(3, 4), w_o = MatrixF::Zero(4, 4), output = MatrixF::Zero(3, 4);
    EXPECT_TRUE(ablationEffects(heads, w_o, output, {}, 2).ok());
    EXPECT_FALSE(ablationEffects(heads, w_o, output, {}, 3).ok());              // d_k does not divide
    EXPECT_FALSE(ablationEffects(heads, MatrixF::Zero(6, 4), output, {}, 2).ok());
    EXPECT_FALSE(ablationEffects(heads, w_o, MatrixF::Zero(2, 4), {}, 2).ok());
    EXPECT_FALSE(ablationEffects(heads, w_o, output, {true}, 2).ok());        // 1 flag for 2 heads
    MatrixF nan = output;
    nan(0, 0) = std::nanf("");
    const auto bad = ablationEffects(heads, w_o, nan, {}, 2);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().find("NaN"), std::string::npos);
}

}  // namespace
}  // namespace qkv
