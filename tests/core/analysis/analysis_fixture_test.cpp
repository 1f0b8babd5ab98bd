// Compares the per-head analyses with NumPy (tests/data/analysis/make_analysis_fixtures.py):
// the kernels on exactly the float32 intermediates NumPy used (double tolerances), and the
// whole path from X and W through multiHeadAttentionForward (float tolerances).

#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis_test_support.hpp"
#include "core/analysis/head_ablation.hpp"
#include "core/analysis/head_statistics.hpp"
#include "core/analysis/qk_projection.hpp"
#include "core/attention/multi_head_attention.hpp"
#include "support/matrix_assertions.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

using testing::expectVectorsNear;
using testing::jsonMatrix;
using testing::jsonVector;

nlohmann::json loadFixtures()
{
    std::ifstream file(std::string(qkv::testDataDir()) + "/analysis/analysis_fixtures.json");
    EXPECT_TRUE(file) << "missing fixture tests/data/analysis/analysis_fixtures.json";
    return file ? nlohmann::json::parse(file) : nlohmann::json::object({{"cases", nlohmann::json::array()}});
}

struct FixtureLayer {
    AttentionWeights weights;
    HeadGrouping grouping;
    AttentionOptions options;
    MatrixF queryInput, keyValueInput;
    bool ownPosition = false;
};

FixtureLayer layerOf(const nlohmann::json& c)
{
    FixtureLayer layer;
    AttentionWeights& w = layer.weights;
    w.queryProjection = jsonMatrix(c.at("W_Q")).cast<float>();
    w.keyProjection = jsonMatrix(c.at("W_K")).cast<float>();
    w.valueProjection = jsonMatrix(c.at("W_V")).cast<float>();
    w.outputProjection = jsonMatrix(c.at("W_O")).cast<float>();
    if (c.at("bias").get<bool>()) {
        w.queryBias = testing::jsonRowF(c.at("b_Q"));
        w.keyBias = testing::jsonRowF(c.at("b_K"));
        w.valueBias = testing::jsonRowF(c.at("b_V"));
        w.outputBias = testing::jsonRowF(c.at("b_O"));
    }
    const Index h = c.at("heads").get<Index>();
    layer.grouping = {h, c.at("key_value_heads").get<Index>(), c.at("d_model").get<Index>() / h};
    const std::string mode = c.at("mode").get<std::string>();
    layer.ownPosition = mode != "cross";
    layer.options.mask.causal = mode == "causal";
    layer.options.mask.keyPadding = c.at("key_padding").get<std::vector<bool>>();
    layer.options.ablated.assign(static_cast<std::size_t>(h), false);
    for (const Index head : c.at("ablated").get<std::vector<Index>>()) layer.options.ablated[static_cast<std::size_t>(head)] = true;
    layer.queryInput = jsonMatrix(c.at("X_q")).cast<float>();
    layer.keyValueInput = jsonMatrix(c.at("X_kv")).cast<float>();
    return layer;
}

std::vector<bool> fullyMaskedFlags(const nlohmann::json& c, Index n_q)
{
    std::vector<bool> flags(static_cast<std::size_t>(n_q), false);
    for (const Index q : c.at("fully_masked_rows").get<std::vector<Index>>()) flags[static_cast<std::size_t>(q)] = true;
    return flags;
}

void expectStatistics(const HeadStatistics& actual, const nlohmann::json& expected, double tolerance)
{
    EXPECT_EQ(actual.visibleKeys, expected.at("visible_keys").get<std::vector<Index>>());
    expectVectorsNear(actual.entropy, jsonVector(expected.at("entropy")), tolerance, "entropy");
    expectVectorsNear(actual.normalizedEntropy, jsonVector(expected.at("normalized_entropy")), tolerance, "normalized_entropy");
    expectVectorsNear(actual.meanDistance, jsonVector(expected.at("mean_distance")), tolerance, "mean_distance");
    expectVectorsNear(actual.maxWeight, jsonVector(expected.at("max_weight")), tolerance, "max_weight");
    if (expected.at("self_weight").is_null()) EXPECT_FALSE(actual.hasSelfWeight());
    else expectVectorsNear(actual.selfWeight, jsonVector(expected.at("self_weight")), tolerance, "self_weight");
    const nlohmann::json& mean = expected.at("mean");
    EXPECT_TRUE(testing::sameOrBothNaN(actual.summary.entropy, testing::numberOrNaN(mean.at("entropy")), tolerance));
    EXPECT_TRUE(testing::sameOrBothNaN(actual.summary.normalizedEntropy, testing::numberOrNaN(mean.at("normalized_entropy")), tolerance));
    EXPECT_TRUE(testing::sameOrBothNaN(actual.summary.meanDistance, testing::numberOrNaN(mean.at("mean_distance")), tolerance));
    EXPECT_TRUE(testing::sameOrBothNaN(actual.summary.maxWeight, testing::numberOrNaN(mean.at("max_weight")), tolerance));
    EXPECT_TRUE(testing::sameOrBothNaN(actual.summary.selfWeight, testing::numberOrNaN(mean.at("self_weight")), tolerance));
    EXPECT_EQ(actual.summary.rows, mean.at("rows").get<Index>());
}

// Magnitudes first (independent of any sign convention), then the signs the rule fixes.
void expectProjection(const QkProjection& actual, const nlohmann::json& expected, double tolerance, double ratioTolerance)
{
    const MatrixD queries = jsonMatrix(expected.at("queries"));
    const MatrixD keys = jsonMatrix(expected.at("keys"));
    EXPECT_MATRIX_NEAR(actual.queries.cwiseAbs(), queries.cwiseAbs(), tolerance);
    EXPECT_MATRIX_NEAR(actual.keys.cwiseAbs(), keys.cwiseAbs(), tolerance);
    EXPECT_MATRIX_NEAR(actual.queries, queries, tolerance);
    EXPECT_MATRIX_NEAR(actual.keys, keys, tolerance);
    const auto ratios = expected.at("explained_variance_ratio").get<std::vector<double>>();
    EXPECT_NEAR(actual.explainedVarianceRatio[0], ratios.at(0), ratioTolerance);
    EXPECT_NEAR(actual.explainedVarianceRatio[1], ratios.at(1), ratioTolerance);
}

void expectAblation(const AblationEffects& actual, const nlohmann::json& expected, double tolerance)
{
    expectVectorsNear(actual.fullOutputNorm, jsonVector(expected.at("full_output_norm")), tolerance, "full_output_norm");
    EXPECT_MATRIX_NEAR(actual.changeNorm, jsonMatrix(expected.at("change_norm")), tolerance);
    const MatrixD relative = jsonMatrix(expected.at("relative_change"));
    ASSERT_EQ(actual.relativeChange.rows(), relative.rows());
    for (Index i = 0; i < relative.cols(); ++i)
        expectVectorsNear(actual.relativeChange.col(i), relative.col(i), tolerance, "relative_change");
    expectVectorsNear(actual.currentChangeNorm, jsonVector(expected.at("current_change_norm")), tolerance, "current_change_norm");
    expectVectorsNear(actual.currentRelativeChange, jsonVector(expected.at("current_relative_change")), tolerance,
                      "current_relative_change");
    expectVectorsNear(actual.meanRelativeChange, jsonVector(expected.at("mean_relative_change")), tolerance, "mean_relative_change");
    EXPECT_EQ(actual.mostImportantHead, expected.at("most_important_head").get<std::vector<Index>>());
    EXPECT_EQ(actual.definedRows, expected.at("defined_rows").get<Index>());
}

TEST(AnalysisFixtures, CoverTheEdgeCasesTheyClaim)
{
    const nlohmann::json fixtures = loadFixtures();
    ASSERT_EQ(fixtures.at("cases").size(), 5u);
    bool fullyMasked = false, oneVisibleKey = false, zeroVariance = false, oneAxis = false, zeroOutput = false;
    for (const nlohmann::json& c : fixtures.at("cases")) {
        fullyMasked |= !c.at("fully_masked_rows").empty();
        zeroOutput |= c.at("ablation").at("defined_rows").get<Index>() < static_cast<Index>(c.at("X_q").size());
        for (const nlohmann::json& head : c.at("per_head")) {
            for (const nlohmann::json& v : head.at("statistics").at("visible_keys")) oneVisibleKey |= v.get<Index>() == 1;
            const auto ratios = head.at("qk_projection").at("explained_variance_ratio").get<std::vector<double>>();
            zeroVariance |= ratios[0] == 0.0;
            oneAxis |= ratios[0] > 0.0 && ratios[1] == 0.0;
        }
    }
    EXPECT_TRUE(fullyMasked && oneVisibleKey && zeroVariance && oneAxis && zeroOutput);
}

TEST(AnalysisFixtures, KernelsMatchNumPyOnTheSameFloatInputs)
{
    const nlohmann::json fixtures = loadFixtures();
    for (const nlohmann::json& c : fixtures.at("cases")) {
        SCOPED_TRACE(c.at("name").get<std::string>());
        const FixtureLayer layer = layerOf(c);
        const Index n_q = layer.queryInput.rows();
        const std::vector<bool> fullyMasked = fullyMaskedFlags(c, n_q);
        for (std::size_t head = 0; head < c.at("per_head").size(); ++head) {
            SCOPED_TRACE("head " + std::to_string(head + 1));
            const nlohmann::json& expected = c.at("per_head")[head];
            const MatrixF attention = jsonMatrix(expected.at("attention")).cast<float>();
            const auto stats = attentionStatistics(attention, layer.options.mask, fullyMasked, layer.ownPosition);
            ASSERT_TRUE(stats.ok()) << stats.error();
            expectStatistics(*stats, expected.at("statistics"), 1e-12);

            const MatrixF query = jsonMatrix(expected.at("query")).cast<float>();
            const MatrixF key = jsonMatrix(expected.at("key")).cast<float>();
            const auto projection = qkProjection(query, key);
            ASSERT_TRUE(projection.ok()) << projection.error();
            expectProjection(*projection, expected.at("qk_projection"), 1e-9, 1e-9);
        }
        const auto ablation = ablationEffects(jsonMatrix(c.at("head_outputs")).cast<float>(), layer.weights.outputProjection,
                                              jsonMatrix(c.at("output")).cast<float>(), layer.options.ablated, layer.grouping.d_k);
        ASSERT_TRUE(ablation.ok()) << ablation.error();
        expectAblation(*ablation, c.at("ablation"), 1e-10);
    }
}

TEST(AnalysisFixtures, WholePathFromInputsMatchesNumPy)
{
    const nlohmann::json fixtures = loadFixtures();
    for (const nlohmann::json& c : fixtures.at("cases")) {
        SCOPED_TRACE(c.at("name").get<std::string>());
        const FixtureLayer layer = layerOf(c);
        const AttentionResult r =
            multiHeadAttentionForward(layer.queryInput, layer.keyValueInput, layer.weights, layer.grouping, layer.options);
        EXPECT_EQ(r.fullyMaskedRows, fullyMaskedFlags(c, r.queryCount()));
        for (Index head = 0; head < r.headCount(); ++head) {
            SCOPED_TRACE("head " + std::to_string(head + 1));
            const nlohmann::json& expected = c.at("per_head")[static_cast<std::size_t>(head)];
            const auto stats = headStatistics(r, head, layer.ownPosition);
            ASSERT_TRUE(stats.ok()) << stats.error();
            expectStatistics(*stats, expected.at("statistics"), 1e-5);  // float attention
            const auto projection = qkProjection(r, head);
            ASSERT_TRUE(projection.ok()) << projection.error();
            expectProjection(*projection, expected.at("qk_projection"), 1e-4, 1e-5);  // float Q_i, K_i
        }
        const auto ablation = ablationEffects(r, layer.weights);
        ASSERT_TRUE(ablation.ok()) << ablation.error();
        expectAblation(*ablation, c.at("ablation"), 1e-5);
    }
}

}  // namespace
}  // namespace qkv
