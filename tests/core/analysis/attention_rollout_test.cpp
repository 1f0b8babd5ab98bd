// Attention rollout against NumPy (tests/data/analysis/make_model_analysis_fixtures.py), its
// properties over random stacks, and bad input.

#include "core/analysis/attention_rollout.hpp"

#include <fstream>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis_test_support.hpp"
#include "core/attention/multi_head_attention.hpp"
#include "support/matrix_assertions.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

using testing::jsonMatrix;
using testing::randomMatrixF;
using testing::randomWeights;

nlohmann::json loadFixtures()
{
    std::ifstream file(std::string(qkv::testDataDir()) + "/analysis/model_analysis_fixtures.json");
    EXPECT_TRUE(file) << "missing fixture tests/data/analysis/model_analysis_fixtures.json";
    return file ? nlohmann::json::parse(file) : nlohmann::json::object();
}

// The stored layers as attention results (attention maps and ablation flags only).
std::vector<AttentionResult> layersOf(const nlohmann::json& c)
{
    std::vector<AttentionResult> layers;
    for (std::size_t l = 0; l < c.at("attention").size(); ++l) {
        AttentionResult r;
        for (const nlohmann::json& a : c.at("attention")[l]) r.heads.push_back({MatrixF(), jsonMatrix(a).cast<float>()});
        r.ablated = c.at("ablated")[l].get<std::vector<bool>>();
        layers.push_back(std::move(r));
    }
    return layers;
}

std::vector<const AttentionResult*> pointers(const std::vector<AttentionResult>& layers)
{
    std::vector<const AttentionResult*> p;
    for (const AttentionResult& r : layers) p.push_back(&r);
    return p;
}

TEST(AttentionRollout, MatchesNumPyAtEveryStopLayer)
{
    bool allOff = false, maskedRow = false;
    const nlohmann::json fixtures = loadFixtures();  // kept: a range-for over a temporary's member dangles
    for (const nlohmann::json& c : fixtures.at("rollout")) {
        SCOPED_TRACE(c.at("name").get<std::string>());
        const std::vector<AttentionResult> layers = layersOf(c);
        for (const AttentionResult& r : layers) {
            allOff |= r.heads.size() > 0 && r.isAblated(0) && r.isAblated(1) && r.isAblated(r.headCount() - 1);
            maskedRow |= r.heads[0].attention.row(0).sum() == 0.0f;
        }
        for (std::size_t s = 0; s < c.at("rollouts").size(); ++s) {
            SCOPED_TRACE("up to layer " + std::to_string(s));
            const Expected<MatrixD> rollout = attentionRollout(pointers(layers), static_cast<Index>(s));
            ASSERT_TRUE(rollout.ok()) << rollout.error();
            EXPECT_MATRIX_NEAR(*rollout, jsonMatrix(c.at("rollouts")[s]), 1e-12);
        }
    }
    EXPECT_TRUE(allOff && maskedRow) << "the fixtures should hold a layer with every head off and a fully masked row";
}

TEST(AttentionRollout, RowsSumToOneOverRandomStacks)
{
    SplitMix64 rng(2020);
    for (int trial = 0; trial < 20; ++trial) {
        SCOPED_TRACE("trial " + std::to_string(trial));
        const Index h = 1 + static_cast<Index>(rng.next() % 4);
        const Index d_model = h * (1 + static_cast<Index>(rng.next() % 3));
        const Index n = 1 + static_cast<Index>(rng.next() % 9);
        const Index layerCount = 1 + static_cast<Index>(rng.next() % 5);
        AttentionOptions options;
        options.mask.causal = rng.next() % 2 == 0;
        std::vector<AttentionResult> layers;
        MatrixF x = randomMatrixF(n, d_model, rng);
        for (Index l = 0; l < layerCount; ++l) {
            const AttentionWeights w = randomWeights(d_model, h, h, true, rng, 1.5);
            options.ablated.assign(static_cast<std::size_t>(h), false);
            for (Index i = 0; i < h; ++i) options.ablated[static_cast<std::size_t>(i)] = rng.next() % 4 == 0;
            layers.push_back(multiHeadAttentionForward(x, x, w, w.grouping(h), options));
            x += layers.back().output;
        }
        for (Index s = 0; s < layerCount; ++s) {
            const Expected<MatrixD> rollout = attentionRollout(pointers(layers), s);
            ASSERT_TRUE(rollout.ok()) << rollout.error();
            EXPECT_MATRIX_NEAR(rollout->rowwise().sum(), VectorD::Ones(n), 1e-12);
            EXPECT_GE(rollout->minCoeff(), 0.0);
            // Causal attention mixes only earlier tokens, so rollout does too.
            if (options.mask.causal) {
                EXPECT_MATRIX_NEAR(rollout->triangularView<Eigen::StrictlyUpper>().toDenseMatrix(), MatrixD::Zero(n, n), 0.0);
            }
        }
    }
}

TEST(AttentionRollout, LayersWithEveryHeadOffAreTheIdentity)
{
    SplitMix64 rng(4);
    const MatrixD a = randomMatrixF(4, 4, rng).cwiseAbs().cast<double>();
    const Expected<MatrixD> one = attentionRollout(std::vector<MatrixD>{a}, 0);
    const Expected<MatrixD> withEmpty = attentionRollout(std::vector<MatrixD>{MatrixD(), a, MatrixD()}, 2);
    ASSERT_TRUE(one.ok() && withEmpty.ok());
    EXPECT_MATRIX_NEAR(*withEmpty, *one, 0.0);
    // A single layer is (A + I) with its rows divided by their sums.
    MatrixD expected = a + MatrixD::Identity(4, 4);
    for (Index r = 0; r < 4; ++r) expected.row(r) /= expected.row(r).sum();
    EXPECT_MATRIX_NEAR(*one, expected, 1e-15);
    // Stopping before the only layer with heads on: the identity (n from the later layer).
    const Expected<MatrixD> before = attentionRollout(std::vector<MatrixD>{MatrixD(), a}, 0);
    ASSERT_TRUE(before.ok()) << before.error();
    EXPECT_MATRIX_NEAR(*before, MatrixD::Identity(4, 4), 0.0);
}

TEST(AttentionRollout, AModelWithEveryHeadOffIsTheIdentity)
{
    SplitMix64 rng(6);
    const AttentionWeights w = randomWeights(4, 2, 2, true, rng);
    AttentionOptions options;
    options.ablated = {true, true};
    const MatrixF x = randomMatrixF(3, 4, rng);
    const AttentionResult off = multiHeadAttentionForward(x, x, w, w.grouping(2), options);
    const Expected<MatrixD> rollout = attentionRollout(std::vector<const AttentionResult*>{&off, &off}, 1);
    ASSERT_TRUE(rollout.ok()) << rollout.error();
    EXPECT_MATRIX_NEAR(*rollout, MatrixD::Identity(3, 3), 0.0);
    ASSERT_FALSE(attentionRollout(std::vector<const AttentionResult*>{&off, &off}, 2).ok());
}

TEST(AttentionRollout, MeanLeavesSwitchedOffHeadsOut)
{
    AttentionResult r;
    r.heads.push_back({MatrixF(), MatrixF::Constant(2, 2, 0.5f)});
    r.heads.push_back({MatrixF(), MatrixF::Identity(2, 2)});
    r.heads.push_back({MatrixF(), MatrixF::Constant(2, 2, 7.0f)});
    r.ablated = {false, false, true};
    MatrixD expected(2, 2);
    expected << 0.75, 0.25, 0.25, 0.75;
    EXPECT_MATRIX_NEAR(meanAttentionOfActiveHeads(r), expected, 0.0);
    r.ablated = {true, true, true};
    EXPECT_EQ(meanAttentionOfActiveHeads(r).size(), 0);
}

TEST(AttentionRollout, BadInputGetsAMessage)
{
    auto expectError = [](const Expected<MatrixD>& result, const std::string& words) {
        ASSERT_FALSE(result.ok());
        EXPECT_NE(result.error().find(words), std::string::npos) << result.error();
    };
    const MatrixD a = MatrixD::Constant(3, 3, 1.0 / 3.0);
    expectError(attentionRollout(std::vector<MatrixD>{}, 0), "no layers");
    expectError(attentionRollout(std::vector<MatrixD>{a, a}, 2), "layer 2 does not exist");
    expectError(attentionRollout(std::vector<MatrixD>{a, a}, -1), "layer -1 does not exist");
    expectError(attentionRollout(std::vector<MatrixD>{a, MatrixD::Constant(3, 2, 0.5)}, 0), "3 x 2, not square");
    expectError(attentionRollout(std::vector<MatrixD>{a, MatrixD::Constant(4, 4, 0.25)}, 1), "earlier layers' is 3 x 3");
    expectError(attentionRollout(std::vector<MatrixD>{MatrixD(), MatrixD()}, 1), "every head of every layer is switched off");
    MatrixD bad = a;
    bad(1, 2) = std::numeric_limits<double>::quiet_NaN();
    expectError(attentionRollout(std::vector<MatrixD>{bad}, 0), "NaN, infinite or negative");
    bad(1, 2) = -0.1;
    expectError(attentionRollout(std::vector<MatrixD>{bad}, 0), "NaN, infinite or negative");
    bad(1, 2) = std::numeric_limits<double>::infinity();
    expectError(attentionRollout(std::vector<MatrixD>{bad}, 0), "NaN, infinite or negative");

    // Cross-attention results and missing layers.
    SplitMix64 rng(8);
    const AttentionWeights w = randomWeights(4, 2, 2, false, rng);
    const AttentionResult cross = multiHeadAttentionForward(randomMatrixF(2, 4, rng), randomMatrixF(3, 4, rng), w, 2, AttentionMask{});
    expectError(attentionRollout(std::vector<const AttentionResult*>{&cross}, 0), "self-attention");
    expectError(attentionRollout(std::vector<const AttentionResult*>{nullptr}, 0), "layer 0 has no result");
}

}  // namespace
}  // namespace qkv
