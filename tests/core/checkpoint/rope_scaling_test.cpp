// Rotary scaling (config.json's rope_scaling): the llama3 and linear frequencies against the
// formula Hugging Face computes (the fixture's own numbers are checked against PyTorch in
// seq2seq_families_test.cpp), how config.json spells it, what a session keeps, and what is
// refused or reported.

#include <cmath>
#include <fstream>
#include <numbers>
#include <string>

#include <gtest/gtest.h>

#include "core/attention/multi_head_attention.hpp"
#include "core/attention/rotary.hpp"
#include "core/checkpoint/checkpoint.hpp"
#include "core/modelfiles/checkpoint_config.hpp"
#include "core/config/validation.hpp"
#include "core/session/config_json.hpp"
#include "support/test_folder.hpp"

namespace qkv {
namespace {

RopeScaling llama3(double factor = 8, double low = 1, double high = 4, double context = 8192)
{
    return {RopeScalingKind::Llama3, factor, low, high, context};
}

// LLaMA 3.1-8B's numbers (d_k 128, rope_theta 500000, factor 8, 1, 4, 8192): pairs whose
// wavelength is below 8192 / 4 = 2048 positions keep their frequency, those above 8192 are
// divided by 8, and those between move smoothly from one to the other.
TEST(RopeScaling, Llama3KeepsFastPairsDividesSlowOnesAndBlendsBetween)
{
    const Eigen::VectorXd plain = rotaryFrequencies(128, 500000.0);
    const Eigen::VectorXd scaled = rotaryFrequencies(128, 500000.0, llama3());
    ASSERT_EQ(scaled.size(), 64);
    int kept = 0, divided = 0, blended = 0;
    for (Index j = 0; j < 64; ++j) {
        const double wavelength = 2 * std::numbers::pi / plain(j);
        const double ratio = scaled(j) / plain(j);
        if (wavelength < 2048) {
            EXPECT_EQ(ratio, 1.0) << j;
            ++kept;
        } else if (wavelength > 8192) {
            EXPECT_NEAR(ratio, 1.0 / 8, 1e-15) << j;
            ++divided;
        } else {
            const double s = (8192 / wavelength - 1) / (4 - 1);
            EXPECT_NEAR(ratio, (1 - s) / 8 + s, 1e-15) << j;
            EXPECT_GT(ratio, 1.0 / 8);
            EXPECT_LT(ratio, 1.0);
            ++blended;
        }
    }
    EXPECT_GT(kept, 0);
    EXPECT_GT(divided, 0);
    EXPECT_GT(blended, 0);
    // Linear scaling divides every pair.
    const Eigen::VectorXd linear = rotaryFrequencies(128, 500000.0, {RopeScalingKind::Linear, 4.0});
    EXPECT_TRUE(linear.isApprox(plain / 4.0, 1e-15));
    // Scaling changes the rotation applyRotary makes, and only where positions differ from 0.
    MatrixF x = MatrixF::Ones(300, 128), y = x;
    applyRotary(x, 128, RotaryLayout::RotateHalf, 500000.0);
    applyRotary(y, 128, RotaryLayout::RotateHalf, 500000.0, llama3());
    EXPECT_TRUE(x.row(0) == y.row(0));
    EXPECT_GT((x.row(299) - y.row(299)).cwiseAbs().maxCoeff(), 1e-3f);
}

TEST(RopeScaling, ImpossibleNumbersAreNamed)
{
    EXPECT_EQ(ropeScalingProblem({}), "");
    EXPECT_EQ(ropeScalingProblem(llama3()), "");
    EXPECT_NE(ropeScalingProblem(llama3(0.5)).find("factor is 0.5"), std::string::npos);
    EXPECT_NE(ropeScalingProblem(llama3(8, 4, 1)).find("low_freq_factor < high_freq_factor"), std::string::npos);
    EXPECT_NE(ropeScalingProblem(llama3(8, 1, 4, 0)).find("original_max_position_embeddings is 0"), std::string::npos);
    EXPECT_NE(ropeScalingProblem({RopeScalingKind::Linear, std::nan("")}).find("factor"), std::string::npos);
    Config config;
    config.positional = PositionalEncoding::Rotary;
    config.conventions.ropeScaling = llama3(8, 4, 1);
    const auto scalingIssues = [](const Config& c) {
        std::vector<ValidationIssue> found;
        for (const ValidationIssue& issue : validateConfig(c))
            if (issue.message.find("scaling") != std::string::npos) found.push_back(issue);
        return found;
    };
    const std::vector<ValidationIssue> issues = scalingIssues(config);
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].field, ConfigField::Positional);
    EXPECT_NE(issues[0].message.find("low_freq_factor"), std::string::npos) << issues[0].message;
    config.conventions.ropeScaling = llama3();
    EXPECT_TRUE(scalingIssues(config).empty());
}

TEST(RopeScaling, ASessionKeepsItUnderConfigJsonsNames)
{
    Config config;
    config.positional = PositionalEncoding::Rotary;
    config.conventions.ropeScaling = llama3(32, 1, 4, 8192);
    const nlohmann::json json = configToJson(config);
    EXPECT_EQ(json["rope_scaling"]["rope_type"], "llama3");
    EXPECT_EQ(json["rope_scaling"]["original_max_position_embeddings"], 8192.0);
    Expected<Config> back = configFromJson(json);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back->conventions.ropeScaling, config.conventions.ropeScaling);
    // Without scaling the key is not written (sessions of earlier versions read the same).
    EXPECT_FALSE(configToJson(Config{}).contains("rope_scaling"));
    nlohmann::json wrong = json;
    wrong["rope_scaling"]["rope_type"] = "yarn";
    Expected<Config> refused = configFromJson(wrong);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("rope_scaling.rope_type"), std::string::npos) << refused.error();
}

class RopeScalingConfig : public ::testing::Test {
protected:
    Expected<CheckpointConfig> read(const std::string& text)
    {
        const std::string file = (folder.path() / "config.json").string();
        std::ofstream(file) << text;
        return readCheckpointConfig(file);
    }
    TestFolder folder{"rope_scaling"};
};

TEST_F(RopeScalingConfig, Llama3AndLinearAreRead)
{
    Expected<CheckpointConfig> c = read(R"({"rope_theta": 500000, "rope_scaling": {"factor": 32.0,
        "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192,
        "rope_type": "llama3"}})");
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c->ropeScaling, llama3(32, 1, 4, 8192));
    EXPECT_EQ(c->ropeScalingNotApplied, "");
    // The older spelling "type".
    c = read(R"({"rope_scaling": {"type": "linear", "factor": 2}})");
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c->ropeScaling, (RopeScaling{RopeScalingKind::Linear, 2.0}));
    // transformers 5 nests rope_theta with the scaling in rope_parameters.
    c = read(R"({"rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0}})");
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c->ropeTheta, 1000000.0);
    EXPECT_EQ(c->ropeScaling.kind, RopeScalingKind::None);
}

// Mistral's sliding window is read (and said in the notes); Qwen2's per-layer one is reported.
TEST_F(RopeScalingConfig, ASlidingWindowIsReadWhereItIsUsed)
{
    Expected<CheckpointConfig> c = read(R"({"model_type": "mistral", "sliding_window": 4096})");
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c->slidingWindow, 4096);
    c = read(R"({"model_type": "qwen2", "sliding_window": 4096, "use_sliding_window": false})");
    ASSERT_TRUE(c) << c.error();
    EXPECT_FALSE(c->slidingWindow.has_value());
    EXPECT_FALSE(c->slidingWindowNotApplied.has_value());
    c = read(R"({"model_type": "qwen2", "sliding_window": 4096, "use_sliding_window": true})");
    ASSERT_TRUE(c) << c.error();
    EXPECT_FALSE(c->slidingWindow.has_value()) << "Qwen2 windows some layers only";
    EXPECT_EQ(c->slidingWindowNotApplied, 4096);
    c = read(R"({"model_type": "mistral", "sliding_window": null})");
    ASSERT_TRUE(c) << c.error();
    EXPECT_FALSE(c->slidingWindow.has_value());
    Checkpoint checkpoint;
    checkpoint.configPath = "config.json";
    checkpoint.config.slidingWindow = 4096;
    EXPECT_NE(slidingWindowNote(checkpoint).find("each query sees only its 4096 latest keys"), std::string::npos)
        << slidingWindowNote(checkpoint);
}

TEST_F(RopeScalingConfig, KindsNotAppliedAreKeptForTheNotesAndBrokenOnesRefused)
{
    Expected<CheckpointConfig> c = read(R"({"rope_scaling": {"rope_type": "yarn", "factor": 4.0}})");
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c->ropeScalingNotApplied, "yarn");
    EXPECT_EQ(c->ropeScaling.kind, RopeScalingKind::None);
    c = read(R"({"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0}})");
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().find("needs a number 'high_freq_factor'"), std::string::npos) << c.error();
    c = read(R"({"rope_scaling": {"rope_type": "linear", "factor": "two"}})");
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().find("not \"two\""), std::string::npos) << c.error();
    c = read(R"({"rope_scaling": {"rope_type": "linear", "factor": 0.25}})");
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().find("factor is 0.25"), std::string::npos) << c.error();
    c = read(R"({"rope_scaling": [8]})");
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().find("not an object"), std::string::npos) << c.error();
}

// The 2024-2026 blocks' keys: read under their names, each bad value refused naming its key.
TEST_F(RopeScalingConfig, TheNewerBlocksKeysAreReadAndBadOnesNamed)
{
    Expected<CheckpointConfig> c = read(R"({"model_type": "gemma2", "query_pre_attn_scalar": 256,
        "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0, "sliding_window": 4096,
        "hidden_act": "gelu", "hidden_activation": "gelu_pytorch_tanh",
        "layer_types": ["sliding_attention", "full_attention"], "rope_local_base_freq": 10000.0})");
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c->queryPreAttnScalar, 256);
    EXPECT_EQ(c->attentionSoftCap, 50.0);
    EXPECT_EQ(c->finalLogitSoftCap, 30.0);
    EXPECT_EQ(c->layerTypes.size(), 2u);
    EXPECT_EQ(c->ropeLocalBase, 10000.0);
    EXPECT_EQ(c->activation, "gelu_pytorch_tanh") << "Gemma's MLP reads hidden_activation";
    EXPECT_EQ(c->activationKey, "hidden_activation");
    c = read(R"({"model_type": "gpt_neox", "rotary_pct": 0.25, "rotary_emb_base": 10000, "use_parallel_residual": true})");
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c->partialRotary, 0.25);
    EXPECT_EQ(c->ropeTheta, 10000.0) << "rotary_emb_base is GPT-NeoX's rope_theta";
    EXPECT_EQ(c->parallelResidual, true);
    c = read(R"({"partial_rotary_factor": 0.75, "rotary_pct": 0.25})");
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c->partialRotary, 0.75) << "partial_rotary_factor first";
    const std::pair<const char*, const char*> bad[] = {
        {R"({"rotary_pct": 1.5})", "above 1"},
        {R"({"attn_logit_softcapping": -3})", "'attn_logit_softcapping'"},
        {R"({"final_logit_softcapping": "big"})", "'final_logit_softcapping'"},
        {R"({"query_pre_attn_scalar": 0})", "'query_pre_attn_scalar'"},
        {R"({"layer_types": "sliding_attention"})", "'layer_types'"},
        {R"({"layer_types": [1, 2]})", "'layer_types'"},
        {R"({"use_parallel_residual": "yes"})", "'use_parallel_residual'"},
        {R"({"rope_local_base_freq": 0.5})", "'rope_local_base_freq'"},
    };
    for (const auto& [text, named] : bad) {
        c = read(text);
        ASSERT_FALSE(c) << text;
        EXPECT_NE(c.error().find(named), std::string::npos) << c.error();
    }
}

// Validation's messages about a layer's own conventions.
std::vector<ValidationIssue> conventionIssues(const Config& c)
{
    std::vector<ValidationIssue> found;
    for (const ValidationIssue& issue : validateConfig(c))
        for (const char* part : {"rotated components", "soft cap", "scores' scale"})
            if (issue.message.find(part) != std::string::npos) found.push_back(issue);
    return found;
}

// A loaded layer's own conventions travel with its session under config.json's names, and
// impossible values are refused where they are set.
TEST(LayerConventionsInASession, RotaryShareScoreScaleAndCapRoundTripAndAreChecked)
{
    Config config;
    config.mode = AttentionMode::DecoderCausal;
    config.positional = PositionalEncoding::Rotary;
    config.d_model = 32;
    config.headCount = 2;
    config.conventions.rotaryDims = 4;
    config.conventions.scoreDim = 24;
    config.conventions.scoreSoftCap = 50.0;
    const nlohmann::json json = configToJson(config);
    EXPECT_EQ(json["rotary_dims"], 4);
    EXPECT_EQ(json["query_pre_attn_scalar"], 24);
    EXPECT_EQ(json["attn_logit_softcapping"], 50.0);
    Expected<Config> back = configFromJson(json);
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back->conventions.rotaryDims, 4);
    EXPECT_EQ(back->conventions.scoreDim, 24);
    EXPECT_EQ(back->conventions.scoreSoftCap, 50.0);
    EXPECT_TRUE(conventionIssues(config).empty());
    for (const std::string key : {"rotary_dims", "query_pre_attn_scalar", "attn_logit_softcapping"})
        EXPECT_FALSE(configToJson(Config{}).contains(key)) << key << " is written only when set";
    config.conventions.rotaryDims = 3;  // pairs turn
    EXPECT_FALSE(conventionIssues(config).empty());
    config.conventions.rotaryDims = 18;  // past d_k = 16
    EXPECT_FALSE(conventionIssues(config).empty());
    config.conventions.rotaryDims = 4;
    config.conventions.scoreSoftCap = std::nan("");
    EXPECT_FALSE(conventionIssues(config).empty());
    // The cap reaches the softmax: scores beyond c are pulled in, so the weights are flatter.
    const MatrixF x = MatrixF::Random(6, 32);
    AttentionWeights w;
    w.queryProjection = MatrixF::Random(32, 32) * 3.0f;
    w.keyProjection = MatrixF::Random(32, 32) * 3.0f;
    w.valueProjection = MatrixF::Random(32, 32);
    w.outputProjection = MatrixF::Random(32, 32);
    AttentionOptions options;
    const AttentionResult plain = multiHeadAttentionForward(x, x, w, w.grouping(2), options);
    options.conventions.scoreSoftCap = 1.0;
    const AttentionResult capped = multiHeadAttentionForward(x, x, w, w.grouping(2), options);
    EXPECT_TRUE(capped.heads[0].scores == plain.heads[0].scores) << "the kept scores are before the cap";
    EXPECT_LT(capped.heads[0].attention.maxCoeff(), plain.heads[0].attention.maxCoeff());
    MatrixF expected = (plain.heads[0].scores.array() / 1.0f).tanh().matrix();
    for (Index r = 0; r < expected.rows(); ++r) {
        const Eigen::ArrayXf e = (expected.row(r).array() - expected.row(r).maxCoeff()).exp();
        expected.row(r) = (e / e.sum()).matrix().transpose();
    }
    EXPECT_LT((capped.heads[0].attention - expected).cwiseAbs().maxCoeff(), 1e-6f);
}

}  // namespace
}  // namespace qkv
