// Heads of their own width: d_k set apart from d_model / h (Qwen3-0.6B: d_model 1024, h 16,
// d_k 128). The rule is written once: Config::d_k() for what the user chose,
// AttentionWeights::grouping() for what weights carry. Every part reads it from there.

#include <Eigen/SVD>
#include <gtest/gtest.h>

#include "core/common/limits.hpp"
#include "core/config/examples.hpp"
#include "core/config/validation.hpp"
#include "core/cost/cost_model.hpp"
#include "core/factored/factored_matrix.hpp"
#include "core/pipeline/compute.hpp"
#include "core/pipeline/input_validation.hpp"
#include "core/session/session.hpp"
#include "support/issue_assertions.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

using testing::mentions;

Config wideConfig()
{
    Config config = builtInExample();
    config.d_model = 12;
    config.headCount = 5;  // does not divide 12: fine once d_k is set
    config.headDim = 8;    // h d_k = 40 columns of W^Q
    return config;
}

TEST(HeadWidth, TheWeightsCarryTheirWidth)
{
    const HeadGrouping heads{5, 1, 8};
    const AttentionWeights w = initialiseWeights(12, heads, 3, WeightInit::XavierUniform, true);
    EXPECT_EQ(w.queryProjection.rows(), 12);
    EXPECT_EQ(w.queryProjection.cols(), 40);
    EXPECT_EQ(w.keyProjection.cols(), 8);
    EXPECT_EQ(w.outputProjection.rows(), 40);
    EXPECT_EQ(w.outputProjection.cols(), 12);
    EXPECT_EQ(w.queryBias->size(), 40);
    EXPECT_EQ(w.outputBias->size(), 12);
    EXPECT_EQ(w.shapeProblem(5), "");
    EXPECT_EQ(w.grouping(5), heads);
    // h must divide W^Q's columns; W^O must mirror W^Q.
    EXPECT_NE(w.shapeProblem(3).find("does not divide the 40 columns of W^Q"), std::string::npos) << w.shapeProblem(3);
    AttentionWeights broken = w;
    broken.outputProjection = MatrixF::Zero(12, 12);
    EXPECT_NE(broken.shapeProblem(5).find("(h d_v) x d_model (40 x 12"), std::string::npos) << broken.shapeProblem(5);
}

TEST(HeadWidth, ThePapersWidthDrawsTheSameNumbersAsBefore)
{
    // d_k = d_model / h through the grouping: the same bits as the square overload.
    const AttentionWeights square = initialiseWeights(16, 8, 7, WeightInit::Normal, true);
    const AttentionWeights grouped = initialiseWeights(16, HeadGrouping{4, 2, 4}, 7, WeightInit::Normal, true);
    EXPECT_EQ(square.queryProjection, grouped.queryProjection);
    EXPECT_EQ(square.keyProjection, grouped.keyProjection);
    EXPECT_EQ(square.outputProjection, grouped.outputProjection);
    Config config = builtInExample();
    const auto before = compute(config);
    config.headDim = config.d_model / config.headCount;  // set, but the paper's own value
    const auto after = compute(config);
    ASSERT_TRUE(before.ok() && after.ok());
    EXPECT_EQ((*before)->attention.output, (*after)->attention.output);
}

TEST(HeadWidth, ValidationFollowsTheSetWidth)
{
    EXPECT_TRUE(validateConfig(wideConfig()).empty()) << describe(validateConfig(wideConfig()));
    Config config = wideConfig();
    config.headDim = limits::maxHeadDim + 1;
    EXPECT_TRUE(mentions(validateConfig(config), ConfigField::HeadDim, "d_k must be between 1 and 4096"));
    config.headDim = 4096;
    config.headCount = 5;  // 5 x 4096 columns of W^Q
    EXPECT_TRUE(mentions(validateConfig(config), ConfigField::HeadDim, "h d_k = 5 x 4096 = 20480"));
    config = wideConfig();
    config.headDim = 0;  // back to d_model / h: 5 does not divide 12
    EXPECT_TRUE(mentions(validateConfig(config), ConfigField::Heads, "or set d_k yourself"));
    config = wideConfig();
    config.positional = PositionalEncoding::Rotary;
    config.headDim = 7;
    EXPECT_TRUE(mentions(validateConfig(config), ConfigField::Positional, "d_k = 7 must be even"));
}

TEST(HeadWidth, LoadedWeightsFixTheWidth)
{
    Config config = wideConfig();
    const AttentionWeights w = initialiseWeights(12, HeadGrouping{5, 5, 8}, 1, WeightInit::Normal, false);
    EXPECT_TRUE(weightsFitIssues(&w, config).empty());
    config.headDim = 6;
    const auto issues = weightsFitIssues(&w, config);
    EXPECT_TRUE(mentions(issues, ConfigField::HeadDim, "The loaded weights have d_k = 8 (W^Q has 40 columns at h = 5)"))
        << describe(issues);
}

TEST(HeadWidth, ComputeMatchesTheFormulaHeadByHead)
{
    Config config = wideConfig();
    config.mode = AttentionMode::EncoderSelf;
    config.withBias = true;
    const auto result = compute(config);
    ASSERT_TRUE(result.ok()) << result.error();
    const Result& r = **result;
    const AttentionResult& a = r.attention;
    EXPECT_EQ(a.d_k(), 8);
    EXPECT_EQ(a.query.cols(), 40);
    EXPECT_EQ(a.headOutputs.cols(), 40);
    EXPECT_EQ(a.output.cols(), 12);
    const AttentionWeights& w = *r.weights;
    // Equation (1) for head 3 written out in double: softmax(Q_i K_i^T / sqrt(d_k)) V_i.
    const MatrixD x = r.queryInput.cast<double>();
    const MatrixD q = (x * w.queryProjection.cast<double>()).rowwise() + w.queryBias->cast<double>();
    const MatrixD k = (x * w.keyProjection.cast<double>()).rowwise() + w.keyBias->cast<double>();
    const MatrixD v = (x * w.valueProjection.cast<double>()).rowwise() + w.valueBias->cast<double>();
    const Index head = 3, d_k = 8;
    MatrixD scores = q.middleCols(head * d_k, d_k) * k.middleCols(head * d_k, d_k).transpose() / std::sqrt(8.0);
    for (Index row = 0; row < scores.rows(); ++row) {
        const double top = scores.row(row).maxCoeff();
        scores.row(row) = (scores.row(row).array() - top).exp().matrix();
        scores.row(row) /= scores.row(row).sum();
    }
    EXPECT_MATRIX_NEAR(a.heads[3].attention, scores, 1e-5);
    EXPECT_MATRIX_NEAR(a.headOutput(3), scores * v.middleCols(head * d_k, d_k), 1e-4);
}

TEST(HeadWidth, WiStaysDModelSquareOfRankAtMostDk)
{
    // d_k = 8 < d_model = 12: W_i = W_i^Q (W_i^K)^T is 12 x 12 of rank 8.
    const auto result = compute(wideConfig());
    ASSERT_TRUE(result.ok()) << result.error();
    Expected<FactoredMatrix> factored = FactoredMatrix::checkedForHead(*(*result)->weights, 5, 2);
    ASSERT_TRUE(factored.ok()) << factored.error();
    EXPECT_EQ(factored->d_k(), 8);
    EXPECT_EQ(factored->dense().rows(), 12);
    EXPECT_EQ(factored->dense().cols(), 12);
    EXPECT_EQ(factored->numericalRank(), 8);
    EXPECT_EQ(factored->singularValues().size(), 8);

    // d_k = 10 > d_model = 6: W_i is still 6 x 6, and its rank is bounded by d_model.
    Config wider = wideConfig();
    wider.d_model = 6;
    wider.headCount = 2;
    wider.headDim = 10;
    const auto wide = compute(wider);
    ASSERT_TRUE(wide.ok()) << wide.error();
    Expected<FactoredMatrix> square = FactoredMatrix::checkedForHead(*(*wide)->weights, 2, 1);
    ASSERT_TRUE(square.ok()) << square.error();
    EXPECT_EQ(square->dense().rows(), 6);
    EXPECT_EQ(square->singularValues().size(), 6);
    EXPECT_EQ(square->numericalRank(), 6);
    const Eigen::JacobiSVD<MatrixD> reference(square->dense());
    EXPECT_MATRIX_NEAR(MatrixD(square->singularValues().transpose()), MatrixD(reference.singularValues().transpose()),
                       1e-9);
}

// Every head preset writes its W_i^Q and W_i^K blocks at any width: wider than d_model (20 at
// d_model 16) and narrower than d_model / h (3 at 16 / 2).
TEST(HeadWidth, EveryPresetFitsHeadsOfAnyWidth)
{
    for (const Index d_k : {Index{20}, Index{3}}) {
        for (const HeadPresetKind kind : allPresetKinds()) {
            Config config = builtInExample();
            config.d_model = 16;
            config.headCount = 2;
            config.headDim = d_k;
            config.presets = {{1, kind, defaultPresetSharpness, std::min<Index>(2, d_k - 1)}};
            EXPECT_TRUE(validateConfig(config).empty()) << presetName(kind) << " at d_k " << d_k;
            const auto result = compute(config);
            ASSERT_TRUE(result.ok()) << presetName(kind) << " at d_k " << d_k << ": " << result.error();
            EXPECT_TRUE((*result)->attention.output.allFinite()) << presetName(kind) << " at d_k " << d_k;
            EXPECT_EQ((*result)->attention.d_k(), d_k);
        }
    }
}

TEST(HeadWidth, TheSessionSavesHeadDimOnlyWhenSet)
{
    Session session;
    session.config = wideConfig();
    const std::string json = sessionToJson(session);
    EXPECT_NE(json.find("\"head_dim\": 8"), std::string::npos);
    const auto back = parseSession(json, "wide.qkv.json");
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back->config.headDim, 8);
    EXPECT_EQ(back->config, session.config);

    session.config = builtInExample();
    const std::string plain = sessionToJson(session);
    EXPECT_EQ(plain.find("head_dim"), std::string::npos);
    const auto plainBack = parseSession(plain, "plain.qkv.json");
    ASSERT_TRUE(plainBack.ok()) << plainBack.error();
    EXPECT_EQ(plainBack->config.headDim, 0);
}

TEST(HeadWidth, CostsUseTheGeneralFormulas)
{
    // d_model (2 h + 2 g) d_k weights (W^Q, W^O: d_model x h d_k; W^K, W^V: d_model x g d_k).
    LayerShape shape{12, 5, 1, false, HeadLayout::Factored, 8};
    EXPECT_TRUE(validateLayerShape(shape).ok());
    EXPECT_EQ(headDim(shape), 8);
    EXPECT_EQ(layerParameterCount(shape), 12 * (2 * 5 + 2 * 1) * 8);
    const ScorePathComparison path = compareScorePath(12, 5, 5, 8);
    EXPECT_EQ(path.factored.parametersPerHead, 2 * 12 * 8);
    EXPECT_EQ(path.full.parametersPerHead, 12 * 12);
    // The table's formulas say h d_k, not d_model, and each row's value is its formula's.
    const std::vector<CostRow> rows = layerParameterRows(shape);
    const auto row = [&](const std::string& name) {
        for (const CostRow& r : rows)
            if (r.name == name) return r;
        ADD_FAILURE() << "no row " << name;
        return CostRow{};
    };
    EXPECT_EQ(row("W^Q").formula, "d_model * (h * d_k) = 12 * (5 * 8)");
    EXPECT_EQ(row("W^Q").value, 12 * 5 * 8);
    EXPECT_EQ(row("W^O").formula, "(h * d_k) * d_model = (5 * 8) * 12");
    EXPECT_EQ(row("W^K").value, 12 * 1 * 8);
    EXPECT_EQ(row("total").formula,
              "2 * d_model * h * d_k + 2 * d_model * g * d_k = 2 * 12 * 5 * 8 + 2 * 12 * 1 * 8");
    EXPECT_EQ(row("total").value, 2 * 12 * 5 * 8 + 2 * 12 * 1 * 8);
    shape.withBias = true;
    EXPECT_EQ(layerParameterCount(shape), 2 * 12 * 5 * 8 + 2 * 12 * 1 * 8 + 5 * 8 + 2 * 8 + 12);
    shape.layout = HeadLayout::FullBilinear;
    // W_1..W_5 (5 x 12^2), W^V (12 x 8), W^O (40 x 12), u_i (5 x 12), b^V (8), b^O (12).
    EXPECT_EQ(layerParameterCount(shape), 5 * 144 + 12 * 8 + 40 * 12 + 5 * 12 + 8 + 12);
    shape.headWidth = 0;
    shape.layout = HeadLayout::Factored;
    EXPECT_FALSE(validateLayerShape(shape).ok());  // then h must divide d_model
}

}  // namespace
}  // namespace qkv
