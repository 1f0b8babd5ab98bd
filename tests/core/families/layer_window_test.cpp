// Each layer's sliding window from config.json alone (attention_rules.hpp's layerWindow): the one
// rule the forward pass applies and the layer lists mark, on synthetic configurations of the
// families whose layers alternate or all slide.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/families/attention_rules.hpp"

namespace qkv {
namespace {

std::vector<Index> windows(const CheckpointConfig& config, Index blocks)
{
    std::vector<Index> result;
    for (Index b = 0; b < blocks; ++b) {
        const Expected<Index> window = layerWindow(config, b);
        EXPECT_TRUE(window.ok()) << (window ? std::string() : window.error());
        result.push_back(window ? *window : -1);
    }
    return result;
}

TEST(LayerWindow, MistralSlidesEveryLayer)
{
    CheckpointConfig config;
    config.modelType = "mistral";
    config.slidingWindow = 4096;
    EXPECT_TRUE(hasSlidingLayers(config));
    EXPECT_EQ(windows(config, 3), (std::vector<Index>{4096, 4096, 4096}));
}

TEST(LayerWindow, WithoutASlidingWindowEveryLayerIsGlobal)
{
    CheckpointConfig config;
    config.modelType = "llama";
    EXPECT_FALSE(hasSlidingLayers(config));
    EXPECT_EQ(windows(config, 2), (std::vector<Index>{0, 0}));
    config.modelType = "qwen2";
    config.slidingWindowNotApplied = 4096;  // use_sliding_window: true, which the app does not follow
    EXPECT_FALSE(hasSlidingLayers(config));
    EXPECT_EQ(windows(config, 2), (std::vector<Index>{0, 0}));
}

TEST(LayerWindow, Gemma2SlidesItsEvenBlocks)
{
    CheckpointConfig config;
    config.modelType = "gemma2";
    config.slidingWindow = 4096;
    EXPECT_EQ(windows(config, 4), (std::vector<Index>{4096, 0, 4096, 0}));
}

TEST(LayerWindow, Gemma3KeepsEveryPatternthBlockGlobal)
{
    CheckpointConfig config;
    config.modelType = "gemma3_text";
    config.slidingWindow = 512;
    EXPECT_EQ(windows(config, 7), (std::vector<Index>{512, 512, 512, 512, 512, 0, 512}));  // default pattern 6
    config.slidingWindowPattern = 2;
    EXPECT_EQ(windows(config, 4), (std::vector<Index>{512, 0, 512, 0}));
}

TEST(LayerWindow, LayerTypesOverruleTheFamilysDefault)
{
    CheckpointConfig config;
    config.modelType = "qwen3";
    config.slidingWindow = 128;
    config.layerTypes = {"full_attention", "sliding_attention", "full_attention"};
    EXPECT_EQ(windows(config, 3), (std::vector<Index>{0, 128, 0}));
}

TEST(LayerWindow, RefusesAnUnknownLayerTypeAndAShortList)
{
    CheckpointConfig config;
    config.slidingWindow = 128;
    config.layerTypes = {"chunked_attention"};
    const Expected<Index> unknown = layerWindow(config, 0);
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().find("chunked_attention"), std::string::npos) << unknown.error();
    const Expected<Index> missing = layerWindow(config, 1);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().find("no entry for block 1"), std::string::npos) << missing.error();
}

// The forward pass reads the same window (layerAttentionConventions).
TEST(LayerWindow, IsTheWindowTheLayersConventionsCarry)
{
    CheckpointConfig config;
    config.modelType = "gemma2";
    config.slidingWindow = 64;
    for (Index b = 0; b < 4; ++b) {
        const Expected<AttentionConventions> conventions = layerAttentionConventions(config, b, 8);
        ASSERT_TRUE(conventions.ok());
        EXPECT_EQ(conventions->slidingWindow, *layerWindow(config, b)) << "block " << b;
    }
}

// The lists' words: each layer's window, or nothing where no layer slides.
TEST(LayerWindow, LabelsSayEachLayersWindowOnlyWhereSomeSlide)
{
    CheckpointConfig config;
    config.modelType = "gemma2";
    EXPECT_EQ(layerWindowLabel(config, 0), "") << "no sliding_window: nothing to tell apart";
    config.slidingWindow = 4096;
    EXPECT_EQ(layerWindowLabel(config, 0), "sliding 4096");
    EXPECT_EQ(layerWindowLabel(config, 1), "global");
    config.layerTypes = {"bogus"};
    EXPECT_EQ(layerWindowLabel(config, 0), "") << "layer_types that cannot say";
}

}  // namespace
}  // namespace qkv
