// `qkv-studio export --weights CHECKPOINT --list-layers | --layer NAME|INDEX` end to end.

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "core/io/safetensors.hpp"
#include "core/io/weights_file.hpp"
#include "core/weights/attention_weights.hpp"
#include "support/test_paths.hpp"

namespace qkv::testing {
namespace {

std::string checkpoint(const std::string& name) { return std::string(qkv::testDataDir()) + "/checkpoint/" + name; }

nlohmann::json readJson(const std::string& path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in, nullptr, false);
}

TEST_F(ExportCli, ListLayersPrintsOneTabSeparatedLinePerLayer)
{
    const CommandRun listed = run({"export", "--weights", checkpoint("llama/model.safetensors"), "--list-layers"});
    EXPECT_EQ(listed.status, 0) << listed.output;
    EXPECT_EQ(listed.output, "0\tmodel.layers.0.self_attn\tcausal\t4\t2\t16\n"
                             "1\tmodel.layers.1.self_attn\tcausal\t4\t2\t16\n");
    const CommandRun sharded =
        run({"export", "--weights", checkpoint("sharded/model.safetensors.index.json"), "--list-layers"});
    EXPECT_EQ(sharded.status, 0) << sharded.output;
    EXPECT_EQ(sharded.output, "0\tencoder.layer.0.attention\tself\t2\t2\t8\n1\tencoder.layer.1.attention\tself\t2\t2\t8\n");
    // Without config.json, --heads gives h.
    const CommandRun distil =
        run({"export", "--weights", checkpoint("distilbert/model.safetensors"), "--heads", "2", "--list-layers"});
    EXPECT_EQ(distil.status, 0) << distil.output;
    EXPECT_NE(distil.output.find("0\tdistilbert.transformer.layer.0.attention\tself\t2\t2\t8\n"), std::string::npos)
        << distil.output;
}

TEST_F(ExportCli, LayerByNameOrIndexSetsTheConfigurationAndProvenance)
{
    const CommandRun byName = run({"export", "--weights", checkpoint("t5/model.safetensors"), "--layer",
                                   "decoder.block.0.layer.1.EncDecAttention", "--format", "json", "--out", path("t5.json")});
    ASSERT_EQ(byName.status, 0) << byName.output;
    EXPECT_NE(byName.output.find("relative position bias"), std::string::npos) << byName.output;  // the note
    const nlohmann::json t5 = readJson(path("t5.json"));
    EXPECT_EQ(t5["config"]["mode"], "cross");
    EXPECT_EQ(t5["config"]["scale_scores"], false);
    EXPECT_EQ(t5["config"]["d_model"], 16);
    EXPECT_EQ(t5["config"]["weights_layer"], "decoder.block.0.layer.1.EncDecAttention");

    const CommandRun byIndex = run({"export", "--weights", checkpoint("llama/model.safetensors"), "--layer", "1",
                                    "--format", "json", "--out", path("llama.json")});
    ASSERT_EQ(byIndex.status, 0) << byIndex.output;
    const nlohmann::json llama = readJson(path("llama.json"));
    EXPECT_EQ(llama["config"]["kv_heads"], 2);
    EXPECT_EQ(llama["config"]["positional"], "rotary");
    EXPECT_EQ(llama["config"]["rope_base"], 500.0);
    EXPECT_EQ(llama["config"]["weights_layer"], "model.layers.1.self_attn");
}

TEST_F(ExportCli, SeveralLayersWithoutLayerPointsToTheOptions)
{
    const CommandRun refused =
        run({"export", "--weights", checkpoint("gpt2/model.safetensors"), "--format", "json", "--out", path("x.json")});
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.output.find("holds 2 attention layers ('h.0.attn', 'h.1.attn')"), std::string::npos) << refused.output;
    EXPECT_NE(refused.output.find("--layer"), std::string::npos);
    EXPECT_NE(refused.output.find("--list-layers"), std::string::npos);
}

TEST_F(ExportCli, CheckpointArgumentAndFileErrorsHaveTheirExitStatus)
{
    EXPECT_EQ(run({"export", "--list-layers"}).status, 2);
    EXPECT_EQ(run({"export", "--layer", "0", "--format", "json", "--out", path("x.json")}).status, 2);
    const CommandRun missingLayer = run({"export", "--weights", checkpoint("bart/model.safetensors"), "--layer", "9",
                                         "--format", "json", "--out", path("x.json")});
    EXPECT_EQ(missingLayer.status, 1);
    EXPECT_NE(missingLayer.output.find("no layer '9'"), std::string::npos) << missingLayer.output;
    std::ofstream(path("broken.safetensors")) << "not a checkpoint";
    const CommandRun broken = run({"export", "--weights", path("broken.safetensors"), "--list-layers"});
    EXPECT_EQ(broken.status, 1);
    EXPECT_NE(broken.output.find("broken.safetensors"), std::string::npos) << broken.output;
}

// A PyTorch state dict with several nn.MultiheadAttention layers lists and loads like a
// checkpoint: by name, by index, or by its prefix with the trailing dot.
TEST_F(ExportCli, PyTorchStateDictLayersAreListedAndChosenByIndex)
{
    SafetensorsFile merged;
    for (const std::string prefix : {"decoder.layers.0.multihead_attn", "encoder.layers.0.self_attn"}) {
        AttentionWeights weights = initialiseWeights(16, 7, WeightInit::Normal, false);
        ASSERT_TRUE(savePyTorchMultiheadAttention(path("one.safetensors"), weights, prefix).ok());
        Expected<SafetensorsFile> one = readSafetensors(path("one.safetensors"));
        ASSERT_TRUE(one.ok()) << one.error();
        for (Tensor& t : one->tensors) merged.tensors.push_back(std::move(t));
    }
    ASSERT_TRUE(writeSafetensors(path("state.safetensors"), merged).ok());

    const CommandRun listed = run({"export", "--weights", path("state.safetensors"), "--heads", "4", "--list-layers"});
    EXPECT_EQ(listed.status, 0) << listed.output;
    EXPECT_EQ(listed.output, "0\tdecoder.layers.0.multihead_attn\tcross\t4\t4\t16\n"
                             "1\tencoder.layers.0.self_attn\tself\t4\t4\t16\n");
    const CommandRun byIndex = run({"export", "--weights", path("state.safetensors"), "--heads", "4", "--layer", "0",
                                    "--format", "json", "--out", path("cross.json")});
    ASSERT_EQ(byIndex.status, 0) << byIndex.output;
    const nlohmann::json cross = readJson(path("cross.json"));
    EXPECT_EQ(cross["config"]["mode"], "cross");
    EXPECT_EQ(cross["config"]["heads"], 4);
    EXPECT_EQ(cross["config"]["weights_layer"], "decoder.layers.0.multihead_attn");
    const CommandRun byPrefix = run({"export", "--weights", path("state.safetensors"), "--heads", "4", "--layer",
                                     "encoder.layers.0.self_attn.", "--format", "json", "--out", path("self.json")});
    ASSERT_EQ(byPrefix.status, 0) << byPrefix.output;
    EXPECT_EQ(readJson(path("self.json"))["config"]["weights_layer"], "encoder.layers.0.self_attn");
    // Without --layer: both are named, and the options that choose.
    const CommandRun refused = run({"export", "--weights", path("state.safetensors"), "--format", "json", "--out",
                                    path("x.json")});
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.output.find("'encoder.layers.0.self_attn'"), std::string::npos) << refused.output;
    EXPECT_NE(refused.output.find("--list-layers"), std::string::npos) << refused.output;
}

// --embeddings model: the first layer reads X as BERT builds it; the tokens are its subwords.
TEST_F(ExportCli, EmbeddingsModelGivesTheFirstLayerItsOwnInputAndSubwordTokens)
{
    const CommandRun bert = run({"export", "--weights", checkpoint("bert_input/model.safetensors"), "--layer", "0",
                                 "--embeddings", "model", "--source", "The cat sat on the mat, playing.", "--format",
                                 "json", "--out", path("bert.json")});
    ASSERT_EQ(bert.status, 0) << bert.output;
    EXPECT_NE(bert.output.find("the model's own input: X = LayerNorm(token + position + token type)"), std::string::npos)
        << bert.output;
    const nlohmann::json json = readJson(path("bert.json"));
    const nlohmann::json expected = readJson(checkpoint("bert_input/input.json"));
    EXPECT_EQ(json["tokens"]["query"], expected["pieces"]);
    EXPECT_EQ(json["config"]["embeddings"], "model");
    EXPECT_EQ(json["config"]["positional_encoding"], false);  // the positions are inside X
    EXPECT_EQ(json["config"]["source_embeddings"], "model");

    // The session keeps "model" and reads the input again from the checkpoint it names.
    ASSERT_EQ(run({"export", "--weights", checkpoint("gpt2_input/model.safetensors"), "--layer", "transformer.h.0.attn",
                   "--embeddings", "model", "--target", "The cat sat on the mat, playing.", "--format", "session",
                   "--out", path("gpt2.qkv.json")}).status, 0);
    const CommandRun reopened = run({"export", "--session", path("gpt2.qkv.json"), "--format", "json", "--out",
                                     path("gpt2.json")});
    ASSERT_EQ(reopened.status, 0) << reopened.output;
    EXPECT_EQ(readJson(path("gpt2.json"))["tokens"]["query"], readJson(checkpoint("gpt2_input/input.json"))["display"]);
}

// A checkpoint named relative to where the session was written is still found from elsewhere:
// the session reads the model's input again from it.
TEST_F(ExportCli, ASessionFromACheckpointNamedRelativelyOpensFromAnotherFolder)
{
    const std::string inData = "cd " + quote(std::string(qkv::testDataDir()) + "/checkpoint") + " &&";
    ASSERT_EQ(run({"export", "--weights", "gpt2_input/model.safetensors", "--layer", "0", "--embeddings", "model",
                   "--target", "The cat sat on the mat, playing.", "--format", "session", "--out", path("s.qkv.json")},
                  inData).status, 0);
    const nlohmann::json session = readJson(path("s.qkv.json"));
    const std::string stored = session["weights"]["file"];
    EXPECT_TRUE(std::filesystem::path(stored).is_absolute()) << stored;

    const CommandRun reopened = run({"export", "--session", "s.qkv.json", "--format", "json", "--out", "s.json"},
                                    "cd " + quote(path("")) + " &&");
    ASSERT_EQ(reopened.status, 0) << reopened.output;
    EXPECT_EQ(readJson(path("s.json"))["config"]["embeddings"], "model");
    EXPECT_EQ(readJson(path("s.json"))["tokens"]["query"], readJson(checkpoint("gpt2_input/input.json"))["display"]);
}

TEST_F(ExportCli, EmbeddingsModelWhereThereIsNoneSaysWhy)
{
    const CommandRun second = run({"export", "--weights", checkpoint("bert_input/model.safetensors"), "--layer", "1",
                                   "--embeddings", "model", "--format", "json", "--out", path("x.json")});
    EXPECT_EQ(second.status, 1);
    // Its file holds attention layers only: no MLP to run the layers below layer 1.
    EXPECT_NE(second.output.find("cannot run whole"), std::string::npos) << second.output;
    const CommandRun generated = run({"export", "--embeddings", "model", "--format", "json", "--out", path("y.json")});
    EXPECT_EQ(generated.status, 2);
    EXPECT_NE(generated.output.find("--embeddings model"), std::string::npos) << generated.output;
    EXPECT_NE(generated.output.find("--layer"), std::string::npos) << generated.output;
}

// An option the user gave is never silently replaced: what the checkpoint leaves open (a
// LLaMA-style layer's positions without config.json) follows the option; what it fixes wins,
// and a note says which option was not used and why.
TEST_F(ExportCli, PositionsTheCheckpointLeavesOpenFollowTheOption)
{
    std::filesystem::copy_file(checkpoint("llama/model.safetensors"), path("model.safetensors"));  // no config.json
    for (const std::string positional : {"rotary-interleaved", "none"}) {
        const CommandRun given = run({"export", "--weights", path("model.safetensors"), "--layer", "1", "--heads", "4",
                                      "--kv-heads", "2", "--positional", positional, "--rope-base", "1000", "--format",
                                      "json", "--out", path(positional + ".json")});
        ASSERT_EQ(given.status, 0) << given.output;
        EXPECT_EQ(given.output.find("was not used"), std::string::npos) << given.output;
        const nlohmann::json config = readJson(path(positional + ".json"))["config"];
        EXPECT_EQ(config["positional"], positional);
        EXPECT_EQ(config["rope_base"], 1000.0);
        EXPECT_EQ(config["heads"], 4);
        EXPECT_EQ(config["kv_heads"], 2);
    }
    // Without the option: the family's usual, said as such.
    const CommandRun usual = run({"export", "--weights", path("model.safetensors"), "--layer", "1", "--heads", "4",
                                  "--format", "json", "--out", path("usual.json")});
    ASSERT_EQ(usual.status, 0) << usual.output;
    EXPECT_EQ(readJson(path("usual.json"))["config"]["positional"], "rotary");
    EXPECT_NE(usual.output.find("No config.json fixes the positions"), std::string::npos) << usual.output;

    // BERT's file says nothing of the positional option: --positional stands there too.
    const CommandRun bert = run({"export", "--weights", checkpoint("bert/model.safetensors"), "--layer", "1",
                                 "--no-positional", "--format", "json", "--out", path("bert.json")});
    ASSERT_EQ(bert.status, 0) << bert.output;
    EXPECT_EQ(readJson(path("bert.json"))["config"]["positional"], "none");
    EXPECT_EQ(bert.output.find("sinusoidal encoding added to X stands in"), std::string::npos) << bert.output;
}

TEST_F(ExportCli, WhatConfigJsonFixesWinsAndTheNoteSaysWhichOptionWasNotUsed)
{
    const CommandRun fixed = run({"export", "--weights", checkpoint("llama/model.safetensors"), "--layer", "1",
                                  "--positional", "none", "--rope-base", "1000", "--heads", "8", "--format", "json",
                                  "--out", path("llama.json")});
    ASSERT_EQ(fixed.status, 0) << fixed.output;
    EXPECT_NE(fixed.output.find("qkv-studio: note: config.json sets rotary positions; --positional none was not used.\n"),
              std::string::npos) << fixed.output;
    EXPECT_NE(fixed.output.find("qkv-studio: note: config.json sets rope_theta = 500; --rope-base 1000 was not used.\n"),
              std::string::npos) << fixed.output;
    EXPECT_NE(fixed.output.find("qkv-studio: note: config.json sets h = 4; --heads 8 was not used.\n"),
              std::string::npos) << fixed.output;
    const nlohmann::json config = readJson(path("llama.json"))["config"];
    EXPECT_EQ(config["positional"], "rotary");
    EXPECT_EQ(config["rope_base"], 500.0);
    EXPECT_EQ(config["heads"], 4);

    // Options that agree with the checkpoint need no note.
    const CommandRun agreeing = run({"export", "--weights", checkpoint("llama/model.safetensors"), "--layer", "1",
                                     "--heads", "4", "--kv-heads", "2", "--positional", "rotary", "--mode", "causal",
                                     "--format", "json", "--out", path("agreeing.json")});
    ASSERT_EQ(agreeing.status, 0) << agreeing.output;
    EXPECT_EQ(agreeing.output.find("was not used"), std::string::npos) << agreeing.output;
}

TEST_F(ExportCli, ALayersKindAndShapeWinOverModeAndSizeOptionsWithANote)
{
    const CommandRun run1 = run({"export", "--weights", checkpoint("gpt2/model.safetensors"), "--layer", "h.1.attn",
                                 "--mode", "self", "--d-model", "32", "--format", "json", "--out", path("gpt2.json")});
    ASSERT_EQ(run1.status, 0) << run1.output;
    EXPECT_NE(run1.output.find("note: the family (GPT-2) sets causal attention; --mode self was not used."),
              std::string::npos) << run1.output;
    EXPECT_NE(run1.output.find("note: the layer's shape sets d_model = "), std::string::npos) << run1.output;
    EXPECT_NE(run1.output.find("; --d-model 32 was not used."), std::string::npos) << run1.output;
    EXPECT_EQ(readJson(path("gpt2.json"))["config"]["mode"], "causal");

    const CommandRun bias = run({"export", "--weights", checkpoint("llama/model.safetensors"), "--layer", "1", "--bias",
                                 "--format", "json", "--out", path("llama.json")});
    ASSERT_EQ(bias.status, 0) << bias.output;
    EXPECT_NE(bias.output.find("note: the layer has no biases; --bias was not used."), std::string::npos) << bias.output;
}

// A session saved from a checkpoint is the user's own from then on: options given with it stand.
TEST_F(ExportCli, ASessionFromACheckpointKeepsTheOptionsGivenLater)
{
    ASSERT_EQ(run({"export", "--weights", checkpoint("llama/model.safetensors"), "--layer", "1", "--format", "session",
                   "--out", path("llama.qkv.json")}).status, 0);
    const CommandRun reopened = run({"export", "--session", path("llama.qkv.json"), "--positional", "none", "--format",
                                     "json", "--out", path("none.json")});
    ASSERT_EQ(reopened.status, 0) << reopened.output;
    EXPECT_EQ(readJson(path("none.json"))["config"]["positional"], "none");
    EXPECT_EQ(readJson(path("none.json"))["config"]["weights_layer"], "model.layers.1.self_attn");
}

// The command line applies a checkpoint layer as the app's Open Checkpoint does (core's
// applyCheckpointLayer): a session's presets and switched-off heads would overwrite the layer's
// own heads, so they go, and the token scale they served returns to 1.
TEST_F(ExportCli, ACheckpointLayerClearsTheSessionsPresetsAndSwitchedOffHeads)
{
    ASSERT_EQ(run({"export", "--preset", "uniform", "--ablate", "2", "--token-scale", "0.5", "--format", "session",
                   "--out", path("presets.qkv.json")})
                  .status,
              0);
    ASSERT_FALSE(readJson(path("presets.qkv.json"))["config"]["presets"].empty());
    const CommandRun layer =
        run({"export", "--session", path("presets.qkv.json"), "--weights", checkpoint("llama/model.safetensors"),
             "--layer", "0", "--format", "session", "--out", path("layer.qkv.json")});
    ASSERT_EQ(layer.status, 0) << layer.output;
    EXPECT_NE(layer.output.find("presets and switched-off heads were cleared"), std::string::npos) << layer.output;
    const nlohmann::json config = readJson(path("layer.qkv.json"))["config"];
    EXPECT_TRUE(config["presets"].empty()) << config.dump();
    EXPECT_TRUE(config["ablated_heads"].empty()) << config.dump();
    EXPECT_EQ(config["token_embedding_scale"], 1);
    // Options given on the command line still apply over the layer.
    const CommandRun again =
        run({"export", "--session", path("presets.qkv.json"), "--weights", checkpoint("llama/model.safetensors"),
             "--layer", "0", "--ablate", "1", "--format", "session", "--out", path("again.qkv.json")});
    ASSERT_EQ(again.status, 0) << again.output;
    EXPECT_EQ(readJson(path("again.qkv.json"))["config"]["ablated_heads"], nlohmann::json::array({1}));
}

// Weights whose d_model h does not divide move h to the nearest valid head count, as the app's
// Load Weights does (core's applyWeightsFile), with a note.
TEST_F(ExportCli, WeightsWhoseDModelHDoesNotDivideMoveHToTheNearestValidCount)
{
    ASSERT_TRUE(
        saveAttentionWeights(path("w32.safetensors"), initialiseWeights(32, 3, WeightInit::Normal, false)).ok());
    const CommandRun loaded = run({"export", "--heads", "3", "--weights", path("w32.safetensors"), "--format",
                                   "session", "--out", path("w32.qkv.json")});
    ASSERT_EQ(loaded.status, 0) << loaded.output;
    EXPECT_NE(loaded.output.find("h is 4"), std::string::npos) << loaded.output;
    const nlohmann::json config = readJson(path("w32.qkv.json"))["config"];
    EXPECT_EQ(config["d_model"], 32);
    EXPECT_EQ(config["heads"], 4);
}

}  // namespace
}  // namespace qkv::testing
