// The one rule between a checkpoint layer's settings and what the user chose: what the
// checkpoint fixes wins and a note names the choice not used; what it does not fix keeps the
// user's choice; a choice equal to the checkpoint's value needs no note.

#include <filesystem>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "core/checkpoint/checkpoint.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

std::string data(const std::string& name) { return std::string(qkv::testDataDir()) + "/checkpoint/" + name; }

std::string asOption(LayerSetting, std::string_view value) { return "--option " + std::string(value); }

// A LLaMA-style layer as config.json describes it: rotary positions with rope_theta 500.
CheckpointLayerSettings llamaWithConfig()
{
    CheckpointLayerSettings settings;
    settings.d_model = 16;
    settings.headCount = 4;
    settings.keyValueHeadCount = 2;
    settings.mode = AttentionMode::DecoderCausal;
    settings.positional = PositionalEncoding::Rotary;
    settings.conventions.ropeBase = 500.0;
    settings.fixedBy = {{LayerSetting::Mode, "the family (LLaMA-style)"}, {LayerSetting::Positional, "config.json"},
                        {LayerSetting::RopeBase, "config.json"}};
    return settings;
}

TEST(CheckpointLayerSettingsRule, WhatTheCheckpointFixesWinsAndTheNoteNamesTheChoiceNotUsed)
{
    Config config;
    config.positional = PositionalEncoding::None;
    config.mode = AttentionMode::EncoderSelf;
    const std::vector<std::string> notes = applyCheckpointLayerSettings(
        llamaWithConfig(), config, {LayerSetting::Positional, LayerSetting::Mode}, asOption);
    EXPECT_EQ(config.positional, PositionalEncoding::Rotary);
    EXPECT_EQ(config.mode, AttentionMode::DecoderCausal);
    EXPECT_EQ(notes, (std::vector<std::string>{
                         "the family (LLaMA-style) sets causal attention; --option self was not used.",
                         "config.json sets rotary positions; --option none was not used."}));
}

TEST(CheckpointLayerSettingsRule, WhatItDoesNotFixKeepsTheUsersChoice)
{
    CheckpointLayerSettings settings = llamaWithConfig();
    settings.fixedBy.erase(LayerSetting::Positional);
    settings.fixedBy.erase(LayerSetting::RopeBase);
    settings.usualPositionsNote = "rotary by habit";
    Config config;
    config.positional = PositionalEncoding::RotaryInterleaved;
    config.conventions.ropeBase = 1000.0;
    config.d_model = 64;  // not chosen: the layer's
    const std::vector<std::string> notes =
        applyCheckpointLayerSettings(settings, config, {LayerSetting::Positional, LayerSetting::RopeBase}, asOption);
    EXPECT_EQ(config.positional, PositionalEncoding::RotaryInterleaved);
    EXPECT_EQ(config.conventions.ropeBase, 1000.0);
    EXPECT_EQ(config.d_model, 16);
    EXPECT_TRUE(notes.empty()) << notes.front();  // nor the usual positions' note: they are not used

    // Not chosen: the family's usual positions, and what they mean.
    Config unchosen;
    unchosen.positional = PositionalEncoding::None;
    EXPECT_EQ(applyCheckpointLayerSettings(settings, unchosen), (std::vector<std::string>{"rotary by habit"}));
    EXPECT_EQ(unchosen.positional, PositionalEncoding::Rotary);
    EXPECT_EQ(unchosen.conventions.ropeBase, 500.0);
}

TEST(CheckpointLayerSettingsRule, AChoiceEqualToTheFixedValueNeedsNoNote)
{
    Config config;
    config.positional = PositionalEncoding::Rotary;
    config.conventions.ropeBase = 500.0;
    config.mode = AttentionMode::DecoderCausal;
    config.headCount = 4;
    config.keyValueHeadCount = 2;
    const std::vector<std::string> notes = applyCheckpointLayerSettings(
        llamaWithConfig(), config,
        {LayerSetting::Positional, LayerSetting::RopeBase, LayerSetting::Mode, LayerSetting::KeyValueHeads}, asOption);
    EXPECT_TRUE(notes.empty()) << notes.front();
    EXPECT_EQ(config.g(), 2);
}

// Positions are fixed by config.json (LLaMA-style, T5), never by BERT's or GPT-2's file, and
// only the family's habit without config.json; the tensors fix the shape whatever the family.
TEST(CheckpointLayerSettingsRule, ConfigJsonFixesPositionsAndTheTensorsFixTheShape)
{
    Expected<CheckpointLayerWeights> llama = loadCheckpointLayer(data("llama/model.safetensors"), "1");
    ASSERT_TRUE(llama.ok()) << llama.error();
    EXPECT_EQ(fixedSettingText(llama->settings, LayerSetting::Positional), "config.json sets rotary positions");
    EXPECT_EQ(fixedSettingText(llama->settings, LayerSetting::RopeBase), "config.json sets rope_theta = 500");
    EXPECT_EQ(fixedSettingText(llama->settings, LayerSetting::Heads), "config.json sets h = 4");
    EXPECT_EQ(fixedSettingText(llama->settings, LayerSetting::KeyValueHeads), "the layer's shape sets g = 2");
    EXPECT_EQ(fixedSettingText(llama->settings, LayerSetting::Mode), "the family (LLaMA-style) sets causal attention");

    const fs::path folder = fs::temp_directory_path() / ("qkv_layer_settings_" + std::to_string(::getpid()));
    fs::create_directories(folder);
    const fs::path copy = folder / "model.safetensors";  // no config.json beside it
    fs::copy_file(data("llama/model.safetensors"), copy, fs::copy_options::overwrite_existing);
    Expected<CheckpointLayerWeights> bare = loadCheckpointLayer(copy.string(), "1", CheckpointOptions{4});
    fs::remove_all(folder);
    ASSERT_TRUE(bare.ok()) << bare.error();
    EXPECT_EQ(bare->settings.positional, PositionalEncoding::Rotary);  // the family's usual
    EXPECT_EQ(fixedSettingText(bare->settings, LayerSetting::Positional), "");
    EXPECT_EQ(fixedSettingText(bare->settings, LayerSetting::Heads), "");  // --heads gave it
    EXPECT_EQ(fixedSettingText(bare->settings, LayerSetting::DModel), "the layer's shape sets d_model = 16");

    Expected<CheckpointLayerWeights> bert = loadCheckpointLayer(data("bert/model.safetensors"), "1");
    ASSERT_TRUE(bert.ok()) << bert.error();
    EXPECT_EQ(fixedSettingText(bert->settings, LayerSetting::Positional), "");
    Expected<CheckpointLayerWeights> t5 = loadCheckpointLayer(data("t5/model.safetensors"), "0");
    ASSERT_TRUE(t5.ok()) << t5.error();
    EXPECT_EQ(fixedSettingText(t5->settings, LayerSetting::Positional), "config.json sets no absolute positions");
    EXPECT_EQ(fixedSettingText(t5->settings, LayerSetting::Mode).rfind("the module path '", 0), 0u);
}

// config.json's rope_scaling goes with a rotary layer loaded alone, as with the whole model: the
// layer's views rotate by the stretched frequencies, and a note says so.
TEST(CheckpointLayerSettingsRule, RopeScalingGoesWithTheLayer)
{
    const std::string path = std::string(qkv::testDataDir()) + "/pretrained/llama3/model.safetensors";
    Expected<CheckpointLayerWeights> layer = loadCheckpointLayer(path, "0");
    ASSERT_TRUE(layer.ok()) << layer.error();
    EXPECT_EQ(layer->settings.conventions.ropeScaling.kind, RopeScalingKind::Llama3);
    bool said = false;
    for (const std::string& note : layer->notes) said = said || note.find("rope_scaling llama3") != std::string::npos;
    EXPECT_TRUE(said);
    Config config;
    applyCheckpointLayerSettings(layer->settings, config, {LayerSetting::RopeBase}, asOption);
    EXPECT_EQ(config.conventions.ropeScaling, layer->settings.conventions.ropeScaling) << "no control sets it: the layer's always";
    EXPECT_EQ(config.conventions.ropeScaling.originalMaxPositions, 64.0);
}

}  // namespace
}  // namespace qkv
