#include <functional>
#include <limits>

#include <gtest/gtest.h>

#include "core/config/examples.hpp"
#include "core/embedding/embeddings.hpp"
#include "core/pipeline/compute.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

TEST(Compute, CrossModeTakesQueriesFromTargetAndKeysFromSource)
{
    Config config = builtInExample();
    config.sourceText = "the cat sat";
    config.targetText = "le chat";
    const auto result = compute(config);
    ASSERT_TRUE(result.ok()) << result.error();
    const Result& r = **result;
    EXPECT_EQ(r.queryLabels, (std::vector<std::string>{"le", "chat"}));
    EXPECT_EQ(r.keyLabels, (std::vector<std::string>{"the", "cat", "sat"}));
    EXPECT_EQ(r.attention.heads[0].attention.rows(), 2);
    EXPECT_EQ(r.attention.heads[0].attention.cols(), 3);
    EXPECT_MATRIX_NEAR(r.queryInput, embedSentence(tokenize("le chat"), 64, config.seed, true), 0.0);
    EXPECT_FALSE(r.attention.mask.causal);
}

TEST(Compute, SelfAndCausalModesUseOneSentence)
{
    Config config = builtInExample();
    config.sourceText = "a b c d";
    config.targetText = "x y z";
    config.mode = AttentionMode::EncoderSelf;
    auto self = compute(config);
    ASSERT_TRUE(self.ok()) << self.error();
    EXPECT_EQ((*self)->queryLabels, (*self)->keyLabels);
    EXPECT_EQ((*self)->queryLabels.size(), 4u);

    config.mode = AttentionMode::DecoderCausal;
    auto causal = compute(config);
    ASSERT_TRUE(causal.ok()) << causal.error();
    EXPECT_EQ((*causal)->queryLabels, (std::vector<std::string>{"x", "y", "z"}));
    EXPECT_TRUE((*causal)->attention.mask.causal);
    EXPECT_EQ((*causal)->attention.heads[1].attention(0, 2), 0.0f);
}

TEST(Compute, SameConfigSameBits)
{
    // Two fresh initialisations (no cache anywhere): the same config gives the same bits.
    const auto a = compute(builtInExample());
    const auto b = compute(builtInExample());
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ((*a)->attention.output, (*b)->attention.output);
    Config other = builtInExample();
    other.seed += 1;
    EXPECT_NE((*compute(other))->attention.output, (*a)->attention.output);
}

TEST(Compute, InvalidConfigIsAMessageNotACrash)
{
    Config config = builtInExample();
    config.headCount = 7;
    const auto result = compute(config);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().find("h: h = 7 does not divide d_model = 64"), std::string::npos) << result.error();
}

TEST(Compute, UserEmbeddingsReplaceSentencesAndLabelRowsByPositionWhenCountsDiffer)
{
    Config config = builtInExample();
    config.d_model = 8;
    config.headCount = 2;
    config.sourceText = "one two";  // 2 tokens, but 3 rows supplied
    config.targetText = "";         // nothing typed: labels are positions
    UserInputs inputs;
    inputs.sourceEmbeddings = std::make_shared<const MatrixF>(MatrixF::Random(3, 8));
    inputs.targetEmbeddings = std::make_shared<const MatrixF>(MatrixF::Random(2, 8));
    const auto result = compute(config, inputs);
    ASSERT_TRUE(result.ok()) << result.error();
    EXPECT_EQ((*result)->keyLabels, (std::vector<std::string>{"t0", "t1", "t2"}));
    EXPECT_EQ((*result)->queryLabels, (std::vector<std::string>{"t0", "t1"}));
    EXPECT_MATRIX_NEAR((*result)->keyValueInput, *inputs.sourceEmbeddings, 0.0);

    inputs.sourceEmbeddings = std::make_shared<const MatrixF>(MatrixF::Random(2, 8));
    EXPECT_EQ((*compute(config, inputs))->keyLabels, (std::vector<std::string>{"one", "two"}));
}

TEST(Compute, BadUserInputsAreReportedTogether)
{
    Config config = builtInExample();
    UserInputs inputs;
    inputs.sourceEmbeddings = std::make_shared<const MatrixF>(MatrixF::Random(3, 32));  // d_model is 64
    AttentionWeights weights = initialiseWeights(64, 1, WeightInit::Normal, false);
    weights.keyProjection(0, 0) = std::numeric_limits<float>::quiet_NaN();
    inputs.weights = std::make_shared<const AttentionWeights>(weights);
    const auto result = compute(config, inputs);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().find("32 columns but d_model is 64"), std::string::npos) << result.error();
    EXPECT_NE(result.error().find("NaN"), std::string::npos) << result.error();
}

TEST(Compute, WeightsOfAnotherDModelAreRefused)
{
    UserInputs inputs;
    inputs.weights = std::make_shared<const AttentionWeights>(initialiseWeights(32, 1, WeightInit::Normal, false));
    const auto result = compute(builtInExample(), inputs);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().find("d_model = 32 but d_model is set to 64"), std::string::npos) << result.error();
}

TEST(Compute, ScalesSharpenAttention)
{
    Config config = builtInExample();
    const auto plain = compute(config);
    config.scales.query = 8.0f;
    const auto sharp = compute(config);
    ASSERT_TRUE(plain.ok() && sharp.ok());
    // Larger query scale -> larger logits -> peakier rows.
    EXPECT_GT((*sharp)->attention.heads[0].attention.rowwise().maxCoeff().mean(),
              (*plain)->attention.heads[0].attention.rowwise().maxCoeff().mean());
    EXPECT_MATRIX_NEAR((*sharp)->weights->queryProjection, 8.0f * (*plain)->weights->queryProjection, 1e-6);
    EXPECT_EQ((*sharp)->unscaledWeights->queryProjection, (*plain)->weights->queryProjection);
}

TEST(Compute, OverflowIsReportedNotReturnedAsInfinity)
{
    Config config = builtInExample();
    config.scales = {1e30f, 1e30f, 1e30f, 1e30f};
    const auto result = compute(config);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().find("overflowed"), std::string::npos) << result.error();
}

}  // namespace
}  // namespace qkv

namespace qkv {
namespace {

TEST(Compute, GeneratedWeightsFollowEveryWeightSetting)
{
    // A cache reuses the last generated weights; each setting that defines them must still
    // give the weights initialiseWeights gives.
    Config config = builtInExample();
    GeneratedWeightsCache cache;
    for (int round = 0; round < 2; ++round) {
        for (const auto& change : std::vector<std::function<void(Config&)>>{
                 [](Config&) {}, [](Config& c) { c.seed = 11; }, [](Config& c) { c.init = WeightInit::Normal; },
                 [](Config& c) { c.withBias = true; }, [](Config& c) { c.d_model = 32; },
                 [](Config& c) { c.keyValueHeadCount = 2; }}) {
            Config changed = config;
            change(changed);
            const auto result = compute(changed, {}, &cache);
            ASSERT_TRUE(result.ok()) << result.error();
            const AttentionWeights expected = initialiseWeights(changed.d_model, changed.g() * changed.d_k(), changed.seed,
                                                                changed.init, changed.withBias);
            EXPECT_EQ((*result)->weights->queryProjection, expected.queryProjection);
            EXPECT_EQ((*result)->weights->keyProjection, expected.keyProjection);
            EXPECT_EQ((*result)->weights->outputProjection, expected.outputProjection);
            EXPECT_EQ((*result)->weights->hasBias(), changed.withBias);
        }
    }
}

TEST(Config, ComparesEveryField)
{
    Config a = builtInExample(), b = builtInExample();
    EXPECT_TRUE(a == b);
    b.scales.value = 2.0f;
    EXPECT_FALSE(a == b);
}

}  // namespace
}  // namespace qkv
