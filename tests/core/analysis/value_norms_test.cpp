// Value-weighted attention norms against NumPy (tests/data/analysis/make_model_analysis_fixtures.py)
// and against sums formed directly in double over many random layers; bad input.

#include "core/analysis/value_norms.hpp"

#include <cmath>
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

std::vector<bool> ablationFlags(const nlohmann::json& c, Index h)
{
    std::vector<bool> flags(static_cast<std::size_t>(h), false);
    for (const Index head : c.at("ablated").get<std::vector<Index>>()) flags[static_cast<std::size_t>(head)] = true;
    return flags;
}

AttentionWeights weightsOf(const nlohmann::json& c)
{
    AttentionWeights w;
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
    return w;
}

void expectNorms(const ValueNorms& actual, const nlohmann::json& c, double tolerance)
{
    EXPECT_MATRIX_NEAR(actual.transformedNorms, jsonMatrix(c.at("transformed_norms")), tolerance);
    ASSERT_EQ(actual.heads.size(), c.at("head_norms").size());
    for (std::size_t i = 0; i < actual.heads.size(); ++i) {
        SCOPED_TRACE("head " + std::to_string(i));
        EXPECT_MATRIX_NEAR(actual.heads[i], jsonMatrix(c.at("head_norms")[i]), tolerance);
    }
    EXPECT_MATRIX_NEAR(actual.layer, jsonMatrix(c.at("layer_norms")), tolerance);
}

// The stored float32 V and A_i, exactly as NumPy used them.
AttentionResult resultOf(const nlohmann::json& c)
{
    AttentionResult r;
    const Index h = c.at("heads").get<Index>();
    r.grouping = {h, c.at("key_value_heads").get<Index>(), c.at("d_model").get<Index>() / h};
    r.value = jsonMatrix(c.at("V")).cast<float>();
    for (const nlohmann::json& a : c.at("attention")) r.heads.push_back({MatrixF(), jsonMatrix(a).cast<float>()});
    r.ablated = ablationFlags(c, h);
    return r;
}

TEST(ValueNorms, FixturesCoverGroupedQueryMaskedAndAblatedLayers)
{
    const nlohmann::json fixtures = loadFixtures();
    bool grouped = false, masked = false, ablated = false, cross = false;
    for (const nlohmann::json& c : fixtures.at("value_norms")) {
        grouped |= c.at("key_value_heads").get<Index>() < c.at("heads").get<Index>();
        masked |= !c.at("fully_masked_rows").empty() && c.at("mode") == "causal";
        ablated |= !c.at("ablated").empty();
        cross |= c.at("mode") == "cross";
    }
    EXPECT_TRUE(grouped && masked && ablated && cross);
}

TEST(ValueNorms, KernelMatchesNumPyOnTheSameFloatInputs)
{
    const nlohmann::json fixtures = loadFixtures();  // kept: a range-for over a temporary's member dangles
    for (const nlohmann::json& c : fixtures.at("value_norms")) {
        SCOPED_TRACE(c.at("name").get<std::string>());
        const Expected<ValueNorms> norms = valueWeightedNorms(resultOf(c), jsonMatrix(c.at("W_O")).cast<float>());
        ASSERT_TRUE(norms.ok()) << norms.error();
        // f_i(x_j) is formed in float (d_k products): ~1e-7 relative to norms of order 1-10.
        expectNorms(*norms, c, 2e-5);
    }
}

TEST(ValueNorms, ForwardPassThenNormsMatchNumPy)
{
    const nlohmann::json fixtures = loadFixtures();  // kept: a range-for over a temporary's member dangles
    for (const nlohmann::json& c : fixtures.at("value_norms")) {
        SCOPED_TRACE(c.at("name").get<std::string>());
        const AttentionWeights w = weightsOf(c);
        const Index h = c.at("heads").get<Index>();
        AttentionOptions options;
        options.mask.causal = c.at("mode") == "causal";
        options.mask.keyPadding = c.at("key_padding").get<std::vector<bool>>();
        options.ablated = ablationFlags(c, h);
        const AttentionResult r = multiHeadAttentionForward(jsonMatrix(c.at("X_q")).cast<float>(), jsonMatrix(c.at("X_kv")).cast<float>(),
                                                            w, w.grouping(h), options);
        const Expected<ValueNorms> norms = valueWeightedNorms(r, w);
        ASSERT_TRUE(norms.ok()) << norms.error();
        expectNorms(*norms, c, 2e-4);
    }
}

// Independent of the kernel's QR: every f_i(x_j) and every sum formed in double.
struct DirectNorms {
    MatrixD transformed;  // n_k x h
    MatrixD layer;        // n_q x n_k
};

DirectNorms directNorms(const AttentionResult& r, const MatrixF& w_o)
{
    const Index h = r.headCount(), d_k = r.grouping.d_k, n_k = r.value.rows(), n_q = r.heads[0].attention.rows();
    DirectNorms d{MatrixD(n_k, h), MatrixD::Zero(n_q, n_k)};
    std::vector<MatrixD> f;  // h entries, n_k x d_model
    for (Index i = 0; i < h; ++i) {
        f.push_back(r.valueHead(i).cast<double>() * w_o.middleRows(i * d_k, d_k).cast<double>());
        d.transformed.col(i) = f.back().rowwise().norm();
    }
    for (Index q = 0; q < n_q; ++q)
        for (Index j = 0; j < n_k; ++j) {
            Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(w_o.cols());
            for (Index i = 0; i < h; ++i)
                if (!r.isAblated(i)) sum += static_cast<double>(r.heads[static_cast<std::size_t>(i)].attention(q, j)) * f[static_cast<std::size_t>(i)].row(j);
            d.layer(q, j) = sum.norm();
        }
    return d;
}

TEST(ValueNorms, PropertiesHoldOverRandomLayers)
{
    SplitMix64 rng(2020);
    for (int trial = 0; trial < 30; ++trial) {
        SCOPED_TRACE("trial " + std::to_string(trial));
        const Index h = 1 + static_cast<Index>(rng.next() % 4);
        const Index g = (h % 2 == 0 && rng.next() % 2 == 0) ? h / 2 : h;
        const Index d_model = h * (1 + static_cast<Index>(rng.next() % 4));
        const Index n_q = 1 + static_cast<Index>(rng.next() % 7);
        const bool self = rng.next() % 2 == 0;
        const Index n_k = self ? n_q : 1 + static_cast<Index>(rng.next() % 7);
        const AttentionWeights w = randomWeights(d_model, h, g, rng.next() % 2 == 0, rng);
        AttentionOptions options;
        options.mask.causal = self && rng.next() % 2 == 0;
        options.ablated.resize(static_cast<std::size_t>(h));
        for (Index i = 0; i < h; ++i) options.ablated[static_cast<std::size_t>(i)] = rng.next() % 3 == 0;
        const MatrixF x_q = randomMatrixF(n_q, d_model, rng);
        const MatrixF x_kv = self ? x_q : randomMatrixF(n_k, d_model, rng);
        const AttentionResult r = multiHeadAttentionForward(x_q, x_kv, w, w.grouping(h), options);
        const Expected<ValueNorms> norms = valueWeightedNorms(r, w);
        ASSERT_TRUE(norms.ok()) << norms.error();
        ASSERT_EQ(norms->headCount(), h);

        const DirectNorms direct = directNorms(r, w.outputProjection);
        EXPECT_MATRIX_NEAR(norms->transformedNorms, direct.transformed, 1e-5);
        EXPECT_MATRIX_NEAR(norms->layer, direct.layer, 1e-5);
        MatrixD headSum = MatrixD::Zero(n_q, n_k);  // triangle inequality: N(q, j) <= sum_{i on} N_i(q, j)
        for (Index i = 0; i < h; ++i) {
            // N_i = A_i times ||f_i||, column by column.
            const MatrixD expected = r.heads[static_cast<std::size_t>(i)].attention.cast<double>() *
                                     norms->transformedNorms.col(i).asDiagonal();
            EXPECT_MATRIX_NEAR(norms->heads[static_cast<std::size_t>(i)], expected, 1e-6);
            if (!r.isAblated(i)) headSum += norms->heads[static_cast<std::size_t>(i)].cast<double>();
        }
        EXPECT_TRUE(((norms->layer.cast<double>() - headSum).array() <= 1e-5).all());
    }
}

TEST(ValueNorms, LayerNormOfOneHeadIsThatHeadsNorm)
{
    SplitMix64 rng(7);
    const Index h = 4, d_model = 8;
    const AttentionWeights w = randomWeights(d_model, h, 2, true, rng);
    const MatrixF x = randomMatrixF(5, d_model, rng);
    for (Index on = 0; on < h; ++on) {
        AttentionOptions options;
        options.ablated.assign(static_cast<std::size_t>(h), true);
        options.ablated[static_cast<std::size_t>(on)] = false;
        const AttentionResult r = multiHeadAttentionForward(x, x, w, w.grouping(h), options);
        const Expected<ValueNorms> norms = valueWeightedNorms(r, w);
        ASSERT_TRUE(norms.ok()) << norms.error();
        EXPECT_MATRIX_NEAR(norms->layer, norms->heads[static_cast<std::size_t>(on)], 1e-6);
    }
    // h = 1: the layer is its only head.
    const AttentionWeights single = randomWeights(d_model, 1, 1, false, rng);
    const AttentionResult r = multiHeadAttentionForward(x, x, single, 1, AttentionMask{});
    const Expected<ValueNorms> norms = valueWeightedNorms(r, single);
    ASSERT_TRUE(norms.ok()) << norms.error();
    EXPECT_MATRIX_NEAR(norms->layer, norms->heads[0], 1e-6);
}

// Two heads that read the same values with the same weights and write opposite vectors:
// each head moves the output, the layer does not.
TEST(ValueNorms, HeadsThatCancelGiveALayerNormOfZero)
{
    SplitMix64 rng(3);
    const Index h = 2, d_model = 6, d_k = 3;
    AttentionWeights w = randomWeights(d_model, h, 1, true, rng);
    w.queryProjection.middleCols(d_k, d_k) = w.queryProjection.middleCols(0, d_k);
    w.queryBias->segment(d_k, d_k) = w.queryBias->segment(0, d_k);
    w.outputProjection.middleRows(d_k, d_k) = -w.outputProjection.middleRows(0, d_k);
    const MatrixF x = randomMatrixF(4, d_model, rng, 3.0);
    const AttentionResult r = multiHeadAttentionForward(x, x, w, w.grouping(h), AttentionOptions{});
    const Expected<ValueNorms> norms = valueWeightedNorms(r, w);
    ASSERT_TRUE(norms.ok()) << norms.error();
    EXPECT_GT(norms->heads[0].minCoeff(), 1e-3);
    EXPECT_MATRIX_NEAR(norms->heads[0], norms->heads[1], 1e-6);
    EXPECT_LT(norms->layer.maxCoeff(), 1e-6 * norms->heads[0].maxCoeff());
}

TEST(ValueNorms, ManyKeysSpanSeveralBlocks)
{
    SplitMix64 rng(11);
    // A narrow layer takes all 300 keys in one block.
    const Index h = 2, d_model = 4, n = 300;
    const AttentionWeights w = randomWeights(d_model, h, h, true, rng);
    const MatrixF x = randomMatrixF(n, d_model, rng);
    AttentionOptions options;
    options.mask.causal = true;
    const AttentionResult r = multiHeadAttentionForward(x, x, w, w.grouping(h), options);
    const Expected<ValueNorms> norms = valueWeightedNorms(r, w);
    ASSERT_TRUE(norms.ok()) << norms.error();
    EXPECT_MATRIX_NEAR(norms->layer, directNorms(r, w.outputProjection).layer, 1e-5);
    // h d_model = 8192: blocks of 2^19 / 8192 = 64 keys on one thread (75 keys: 64 + 11), of
    // 32 in a team of two (32 + 32 + 11); one head off, grouped-query heads.
    const Index wideHeads = 32, wideModel = 256;
    const AttentionWeights big = randomWeights(wideModel, wideHeads, 8, false, rng, 0.1);
    const MatrixF xs = randomMatrixF(75, wideModel, rng);
    AttentionOptions wideOptions;
    wideOptions.ablated.assign(static_cast<std::size_t>(wideHeads), false);
    wideOptions.ablated[5] = true;
    const AttentionResult rs = multiHeadAttentionForward(xs, xs, big, big.grouping(wideHeads), wideOptions);
    const Expected<ValueNorms> wideNorms = valueWeightedNorms(rs, big);
    ASSERT_TRUE(wideNorms.ok()) << wideNorms.error();
    const DirectNorms direct = directNorms(rs, big.outputProjection);
    EXPECT_MATRIX_NEAR(wideNorms->transformedNorms, direct.transformed, 1e-5);
    EXPECT_MATRIX_NEAR(wideNorms->layer, direct.layer, 1e-5);
}

TEST(ValueNorms, BadInputGetsAMessage)
{
    SplitMix64 rng(5);
    const AttentionWeights w = randomWeights(8, 2, 2, true, rng);
    const MatrixF x = randomMatrixF(3, 8, rng);
    const AttentionResult good = multiHeadAttentionForward(x, x, w, 2, AttentionMask{});
    ASSERT_TRUE(valueWeightedNorms(good, w).ok());
    auto expectError = [&](const AttentionResult& r, const MatrixF& w_o, const std::string& words) {
        const Expected<ValueNorms> norms = valueWeightedNorms(r, w_o);
        ASSERT_FALSE(norms.ok());
        EXPECT_NE(norms.error().find(words), std::string::npos) << norms.error();
    };
    expectError(good, w.outputProjection.topRows(4), "W^O is 4 x 8");
    AttentionResult r = good;
    r.value = r.value.leftCols(4).eval();  // a block of itself: evaluated first (no aliasing)
    expectError(r, w.outputProjection, "V has 4 columns");
    r = good;
    r.heads[1].attention = r.heads[1].attention.topRows(2).eval();
    expectError(r, w.outputProjection, "head 2's attention is 2 x 3");
    r = good;
    r.ablated = {true};
    expectError(r, w.outputProjection, "1 ablation flags for 2 heads");
    r = good;
    r.heads.clear();
    expectError(r, w.outputProjection, "head layout");
    r = good;
    r.value(1, 2) = std::numeric_limits<float>::quiet_NaN();
    expectError(r, w.outputProjection, "NaN or infinite");
    r = good;
    r.heads[0].attention(2, 0) = std::numeric_limits<float>::infinity();
    expectError(r, w.outputProjection, "NaN or infinite");
    MatrixF w_o = w.outputProjection;
    w_o(5, 1) = std::numeric_limits<float>::quiet_NaN();
    expectError(good, w_o, "NaN or infinite");
}

}  // namespace
}  // namespace qkv
