#include <gtest/gtest.h>

#include "core/common/limits.hpp"
#include "core/config/examples.hpp"
#include "core/config/validation.hpp"
#include "support/issue_assertions.hpp"

namespace qkv {
namespace {

using testing::mentions;

TEST(Validation, BuiltInExampleIsValid)
{
    EXPECT_TRUE(validateConfig(builtInExample()).empty()) << describe(validateConfig(builtInExample()));
}

TEST(Validation, HeadCountThatDoesNotDivideNamesTheNearestValidOne)
{
    Config config = builtInExample();
    config.d_model = 64;
    config.headCount = 5;
    const auto issues = validateConfig(config);
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].field, ConfigField::Heads);
    EXPECT_NE(issues[0].message.find("h = 5 does not divide d_model = 64"), std::string::npos) << issues[0].message;
    EXPECT_NE(issues[0].message.find("nearest valid h is 4 (d_k = 16)"), std::string::npos) << issues[0].message;
}

TEST(Validation, NearestValidHeadCount)
{
    EXPECT_EQ(nearestValidHeadCount(64, 5), 4);
    EXPECT_EQ(nearestValidHeadCount(64, 6), 8);   // 4 and 8 tie at distance 2: the larger wins
    EXPECT_EQ(nearestValidHeadCount(768, 11), 12);
    EXPECT_EQ(nearestValidHeadCount(7, 3), 1);    // prime d_model: 1 or 7; 1 is nearer
    EXPECT_EQ(nearestValidHeadCount(64, 1000), 64);
    EXPECT_EQ(nearestValidHeadCount(64, 0), 1);
}

TEST(Validation, HeadCountBelowOneAndDModelOutOfRange)
{
    Config config = builtInExample();
    config.headCount = 0;
    EXPECT_TRUE(mentions(validateConfig(config), ConfigField::Heads, "at least 1"));
    config = builtInExample();
    config.d_model = 0;
    EXPECT_TRUE(mentions(validateConfig(config), ConfigField::DModel, "between 1 and"));
    config.d_model = limits::maxDModel + 1;
    EXPECT_TRUE(mentions(validateConfig(config), ConfigField::DModel, "between 1 and"));
}

TEST(Validation, EmptySentenceTheModeNeedsIsReportedAtThatSentence)
{
    Config config = builtInExample();
    config.mode = AttentionMode::Cross;
    config.targetText = "   ";
    EXPECT_TRUE(mentions(validateConfig(config), ConfigField::Target, "queries from the target"));

    config.mode = AttentionMode::EncoderSelf;  // self-attention ignores the target
    EXPECT_TRUE(validateConfig(config).empty());

    config.mode = AttentionMode::DecoderCausal;
    EXPECT_TRUE(mentions(validateConfig(config), ConfigField::Target, "empty"));

    config = builtInExample();
    config.sourceText.clear();
    config.mode = AttentionMode::DecoderCausal;  // causal ignores the source
    EXPECT_TRUE(validateConfig(config).empty());
    config.mode = AttentionMode::Cross;
    EXPECT_TRUE(mentions(validateConfig(config), ConfigField::Source, "keys and values from the source"));
}

TEST(Validation, TooManyTokensAndTooManyBytes)
{
    Config config = builtInExample();
    config.mode = AttentionMode::EncoderSelf;
    config.sourceText.clear();
    for (Index i = 0; i <= limits::maxTokens; ++i) config.sourceText += "w ";
    EXPECT_TRUE(mentions(validateConfig(config), ConfigField::Source, "tokens; the limit is"));
    config.sourceText.assign(limits::maxSentenceBytes + 1, 'a');
    EXPECT_TRUE(mentions(validateConfig(config), ConfigField::Source, "bytes long"));
}

TEST(Validation, AStreamedLayerTakesLongPromptsThatHeldMapsDoNot)
{
    Config config = builtInExample();
    config.mode = AttentionMode::DecoderCausal;
    config.d_model = 512;
    config.headCount = 8;
    config.targetText.clear();
    for (Index i = 0; i <= limits::maxFullMapTokens; ++i) config.targetText += "w ";
    EXPECT_TRUE(mentions(validateConfig(config), ConfigField::Target,
                         "4097 tokens; the limit is 4096 when every head's full map is held (qkv-studio export --pool"));
    AnalysisPlan streamed;
    streamed.pooledBlocks = 512;
    EXPECT_TRUE(validateConfig(config, {}, streamed).empty());
    // 32,768 tokens streamed: the pooled maps, not n x n, and well under the 1.5 GiB aimed at.
    const MemoryEstimate estimate = estimateMemory(config, limits::maxTokens, limits::maxTokens, {}, streamed);
    EXPECT_LT(estimate.maps, std::size_t{100} << 20);
    EXPECT_LT(estimate.peak(), std::size_t{1536} << 20);
    config.targetText.clear();
    for (Index i = 0; i <= limits::maxTokens; ++i) config.targetText += "w ";
    EXPECT_TRUE(mentions(validateConfig(config, {}, streamed), ConfigField::Target, "32769 tokens; the limit is 32768."));
}

TEST(Validation, MemoryEstimateRefusesHugeConfigurations)
{
    Config config = builtInExample();
    config.mode = AttentionMode::EncoderSelf;
    config.sourceText.clear();
    for (int i = 0; i < 4000; ++i) config.sourceText += "w ";
    config.d_model = 256;
    config.headCount = 256;  // 256 heads x 4000 x 4000 x 2 floats = 32 GiB
    const auto issues = validateConfig(config);
    EXPECT_TRUE(mentions(issues, ConfigField::Source, "GiB")) << describe(issues);
    EXPECT_GT(estimateResultBytes(4000, 4000, 256, 256), limits::maxResultBytes);
}

TEST(Validation, NonFiniteScaleIsRejected)
{
    Config config = builtInExample();
    config.scales.key = std::numeric_limits<float>::quiet_NaN();
    EXPECT_TRUE(mentions(validateConfig(config), ConfigField::Weights, "finite"));
}

TEST(Validation, OverriddenSentencesAreNotTokenized)
{
    Config config = builtInExample();
    config.sourceText.clear();
    config.targetText.clear();
    EXPECT_TRUE(validateConfig(config, {.sourceRows = 3, .targetRows = 2}).empty());
}

TEST(Modes, NamesRoundTripAndExplanationsSayWhereQKVComeFrom)
{
    for (AttentionMode mode : {AttentionMode::EncoderSelf, AttentionMode::DecoderCausal, AttentionMode::Cross}) {
        AttentionMode parsed{};
        ASSERT_TRUE(parseMode(modeName(mode), parsed));
        EXPECT_EQ(parsed, mode);
    }
    AttentionMode ignored{};
    EXPECT_FALSE(parseMode("decoder", ignored));
    EXPECT_NE(modeExplanation(AttentionMode::Cross).find("queries Q come from the target"), std::string_view::npos);
    EXPECT_NE(modeExplanation(AttentionMode::Cross).find("K and V from the encoder's output"), std::string_view::npos);
}

}  // namespace
}  // namespace qkv
