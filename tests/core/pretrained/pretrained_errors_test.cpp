// Whole models: the first layer reads exactly what the one-layer path gives it, and bad input
// (ids, lengths, heads, files) gets a message naming what is wrong, never a crash.

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/checkpoint/model_input_loading.hpp"
#include "core/io/safetensors.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/common/limits.hpp"
#include "support/pretrained_fixtures.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

std::string data(const std::string& name) { return std::string(qkv::testDataDir()) + "/" + name; }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Layer 0 of a whole run gets the X and the attention of the one-layer path (loadModelInput +
// loadCheckpointLayer + multiHeadAttentionForward), bit for bit.
void expectFirstLayerAsOneLayerPath(const std::string& folder, const std::string& text)
{
    Expected<PretrainedModel> model = openPretrainedModel(data(folder));
    ASSERT_TRUE(model.ok()) << model.error();
    const CheckpointLayer& first = model->layersInModelOrder.front();
    Expected<std::shared_ptr<const ModelInput>> input = loadModelInput(model->checkpoint, first);
    ASSERT_TRUE(input.ok()) << input.error();
    Expected<ModelSentence> sentence = (*input)->embed(text);
    ASSERT_TRUE(sentence.ok()) << sentence.error();
    Expected<CheckpointLayerWeights> layer = loadCheckpointLayer(model->checkpoint, first);
    ASSERT_TRUE(layer.ok()) << layer.error();
    AttentionOptions options;
    options.mask.causal = first.kind == AttentionMode::DecoderCausal;
    const AttentionResult oneLayer = multiHeadAttentionForward(sentence->input, sentence->input, layer->weights,
                                                               layer->weights.grouping(first.headCount), options);

    Expected<ModelRun> run = runPretrainedModel(*model, ModelTokens{sentence->tokens.ids(), {}});
    ASSERT_TRUE(run.ok()) << run.error();
    EXPECT_TRUE(run->layer(0).queryInput == sentence->input) << folder;
    EXPECT_TRUE(run->layer(0).attention.output == oneLayer.output) << folder;
    for (Index i = 0; i < oneLayer.headCount(); ++i)
        EXPECT_TRUE(run->layer(0).attention.heads[i].attention == oneLayer.heads[i].attention)
            << folder << " head " << i;
}

TEST(WholeModelFirstLayer, BertReadsTheOneLayerPathsInput)
{
    expectFirstLayerAsOneLayerPath("pretrained/bert", "The cat sat on the mat.");
}
TEST(WholeModelFirstLayer, Gpt2ReadsTheOneLayerPathsInput)
{
    expectFirstLayerAsOneLayerPath("pretrained/gpt2", "The cat sat.");
}

TEST(WholeModelFolder, OpensWithItsTokenizerAndRecipe)
{
    Expected<PretrainedModel> bert = openPretrainedModel(data("pretrained/bert"));
    ASSERT_TRUE(bert.ok()) << bert.error();
    EXPECT_TRUE(bert->tokenizer.has_value());
    EXPECT_EQ(bert->recipe.placement, NormPlacement::Post);
    EXPECT_EQ(bert->recipe.readout, ReadoutKind::MaskedLm);
    EXPECT_TRUE(bert->recipe.tiedReadout);
    EXPECT_EQ(bert->recipe.d_ff, 64);
    EXPECT_EQ(&bert->readoutMatrix(), &bert->encoder.embeddings.tokens);  // tied: not copied
    EXPECT_EQ(bert->modelIndexOf("bert.encoder.layer.2.attention"), 2);
    EXPECT_EQ(bert->modelIndexOf("bert.encoder.layer.3.attention"), -1);
    EXPECT_EQ(&bert->sublayer(1), &bert->encoder.blocks[1].selfAttention);
    Expected<PretrainedModel> roberta = openPretrainedModel(data("pretrained/roberta/model.safetensors"));
    ASSERT_TRUE(roberta.ok()) << roberta.error();
    EXPECT_EQ(roberta->recipe.positionOffset, 2);
    EXPECT_EQ(roberta->recipe.positionCount, 16);
    EXPECT_FALSE(roberta->tokenizer.has_value());
    Expected<PretrainedModel> gpt2 = openPretrainedModel(data("pretrained/gpt2_bare"));
    ASSERT_TRUE(gpt2.ok()) << gpt2.error();
    EXPECT_EQ(gpt2->recipe.prefix, "");
    EXPECT_EQ(gpt2->recipe.activation, BlockActivation::GeluTanh);
    EXPECT_EQ(gpt2->recipe.d_ff, 4 * gpt2->recipe.d_model);
    EXPECT_EQ(recipeSummary(gpt2->recipe),
              "pre-LayerNorm, gelu_new, learned positions, LM head tied to the token embeddings");
}

class WholeModelInput : public ::testing::Test {
protected:
    void SetUp() override
    {
        Expected<PretrainedModel> opened = openPretrainedModel(data("pretrained/bert"));
        ASSERT_TRUE(opened.ok()) << opened.error();
        model_ = std::make_unique<PretrainedModel>(std::move(*opened));
    }
    std::string error(const ModelTokens& tokens, const RunOptions& options = {}) const
    {
        Expected<ModelRun> run = runPretrainedModel(*model_, tokens, options);
        EXPECT_FALSE(run.ok());
        return run ? std::string() : run.error();
    }
    std::unique_ptr<PretrainedModel> model_;
};

TEST_F(WholeModelInput, IdsOutsideTheVocabularyAreRefused)
{
    const std::string message = error(ModelTokens{{2, 5, 201}, {}});
    EXPECT_TRUE(contains(message, "token 2")) << message;
    EXPECT_TRUE(contains(message, "201 tokens")) << message;
    EXPECT_TRUE(contains(error(ModelTokens{{2, -1}, {}}), "id -1"));
}

TEST_F(WholeModelInput, MoreTokensThanPositionsAreRefused)
{
    const std::string message = error(ModelTokens{std::vector<std::int32_t>(17, 5), {}});
    EXPECT_TRUE(contains(message, "17 tokens")) << message;
    EXPECT_TRUE(contains(message, "positions go up to 16")) << message;
    EXPECT_TRUE(runPretrainedModel(*model_, ModelTokens{std::vector<std::int32_t>(16, 5), {}}).ok());
}

TEST_F(WholeModelInput, NoTokensAndDecoderIdsForAnEncoderAreRefused)
{
    EXPECT_TRUE(contains(error(ModelTokens{}), "no tokens"));
    EXPECT_TRUE(contains(error(ModelTokens{{2, 3}, {2}}), "no decoder"));
}

TEST_F(WholeModelInput, HeadsThatDoNotExistAreRefused)
{
    RunOptions options;
    options.ablatedHeads = {ModelHead{3, 0}};
    EXPECT_TRUE(contains(error(ModelTokens{{2, 3}, {}}, options), "no attention layer 3"))
        << error(ModelTokens{{2, 3}, {}}, options);
    options.ablatedHeads = {ModelHead{1, 4}};
    EXPECT_TRUE(contains(error(ModelTokens{{2, 3}, {}}, options), "no head 4"));
}

// A copy of the BERT fixture whose tensors `change` edits (position_ids, an I64 buffer, is left out).
class BrokenCheckpoint : public ::testing::Test {
protected:
    void SetUp() override
    {
        folder_ = fs::temp_directory_path() /
                  ("qkv-pretrained-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(folder_);
        fs::create_directories(folder_);
        fs::copy_file(data("pretrained/bert/config.json"), folder_ / "config.json");
    }
    void TearDown() override { fs::remove_all(folder_); }

    std::string write(const std::function<void(SafetensorsFile&)>& change)
    {
        Expected<SafetensorsFile> file =
            readSafetensors(data("pretrained/bert/model.safetensors"),
                            [](std::string_view name) { return !name.ends_with("position_ids"); });
        EXPECT_TRUE(file.ok()) << file.error();
        change(*file);
        const std::string path = (folder_ / "model.safetensors").string();
        EXPECT_TRUE(writeSafetensors(path, *file).ok());
        return path;
    }
    std::string openError(const std::string& path)
    {
        Expected<PretrainedModel> model = openPretrainedModel(path);
        EXPECT_FALSE(model.ok());
        return model ? std::string() : model.error();
    }
    static void remove(SafetensorsFile& file, const std::function<bool(const std::string&)>& which)
    {
        std::erase_if(file.tensors, [&](const Tensor& t) { return which(t.name); });
    }

    fs::path folder_;
};

TEST_F(BrokenCheckpoint, AMissingTensorOfALayerIsNamed)
{
    const std::string path = write([](SafetensorsFile& file) {
        remove(file, [](const std::string& name) { return name == "bert.encoder.layer.1.intermediate.dense.weight"; });
    });
    const std::string message = openError(path);
    EXPECT_TRUE(contains(message, path)) << message;
    EXPECT_TRUE(contains(message, "'bert.encoder.layer.1.intermediate.dense.weight'")) << message;
}

TEST_F(BrokenCheckpoint, AMissingLayerIsNamed)
{
    const std::string message = openError(write([](SafetensorsFile& file) {
        remove(file, [](const std::string& name) { return name.starts_with("bert.encoder.layer.2.attention.self"); });
    }));
    EXPECT_TRUE(contains(message, "says 3 layers")) << message;
    EXPECT_TRUE(contains(message, "block 2")) << message;
}

TEST_F(BrokenCheckpoint, AMissingEmbeddingTableIsNamed)
{
    const std::string message = openError(write([](SafetensorsFile& file) {
        remove(file, [](const std::string& name) { return name == "bert.embeddings.token_type_embeddings.weight"; });
    }));
    EXPECT_TRUE(contains(message, "'bert.embeddings.token_type_embeddings.weight'")) << message;
}

TEST_F(BrokenCheckpoint, ANotFiniteWeightIsRefused)
{
    const std::string message = openError(write([](SafetensorsFile& file) {
        for (Tensor& t : file.tensors)
            if (t.name == "bert.encoder.layer.2.output.LayerNorm.weight") {
                const float nan = std::nanf("");
                std::memcpy(t.data.data() + 3 * sizeof(float), &nan, sizeof nan);
            }
    }));
    EXPECT_TRUE(contains(message, "'bert.encoder.layer.2.output.LayerNorm.weight'")) << message;
    EXPECT_TRUE(contains(message, "not finite")) << message;
}

TEST_F(BrokenCheckpoint, AWronglyShapedMlpIsNamed)
{
    const std::string message = openError(write([](SafetensorsFile& file) {
        for (Tensor& t : file.tensors)
            if (t.name == "bert.encoder.layer.0.output.dense.weight")
                t = Tensor::fromMatrix(t.name, MatrixF::Zero(32, 48));
    }));
    EXPECT_TRUE(contains(message, "'bert.encoder.layer.0.output.dense.weight' is 32x48, expected 32x64")) << message;
}

TEST_F(BrokenCheckpoint, AnUnknownActivationOrRelativePositionsNameTheKey)
{
    const std::string path = write([](SafetensorsFile&) {});
    std::ifstream in(folder_ / "config.json");
    nlohmann::json config = nlohmann::json::parse(in);
    in.close();
    config["hidden_act"] = "mish";
    std::ofstream(folder_ / "config.json") << config.dump();
    const std::string message = openError(path);
    EXPECT_TRUE(contains(message, "'hidden_act' is \"mish\"")) << message;
    config["hidden_act"] = "gelu";
    config["position_embedding_type"] = "relative_key";
    std::ofstream(folder_ / "config.json") << config.dump();
    const std::string relative = openError(path);
    EXPECT_TRUE(contains(relative, "'position_embedding_type' is \"relative_key\"")) << relative;
}

TEST_F(BrokenCheckpoint, AFolderWithoutAModelFileSaysWhatItNeeds)
{
    const std::string message = openError(folder_.string());
    EXPECT_TRUE(contains(message, "model.safetensors")) << message;
}

TEST_F(BrokenCheckpoint, ConfigKeysOfTheWholeModelAreReadAndChecked)
{
    const fs::path path = folder_ / "config.json";
    std::ofstream(path) << R"({"n_layer": 12, "n_inner": null, "encoder_ffn_dim": 4096, "vocab_size": 50257,
        "n_positions": 1024, "pad_token_id": 0, "tie_word_embeddings": false, "scale_embedding": true,
        "activation_function": "gelu_new", "rms_norm_eps": 1e-6, "type_vocab_size": 2})";
    Expected<CheckpointConfig> config = readCheckpointConfig(path.string());
    ASSERT_TRUE(config.ok()) << config.error();
    EXPECT_EQ(config->layerCount, 12);
    EXPECT_FALSE(config->d_ff.has_value());
    EXPECT_EQ(config->encoderFfnDim, 4096);
    EXPECT_EQ(config->vocabularySize, 50257);
    EXPECT_EQ(config->positionCount, 1024);
    EXPECT_EQ(config->padTokenId, 0);
    EXPECT_EQ(config->typeVocabularySize, 2);
    EXPECT_EQ(config->tieWordEmbeddings, false);
    EXPECT_EQ(config->scaleEmbedding, true);
    EXPECT_EQ(config->activation, "gelu_new");
    EXPECT_EQ(config->activationKey, "activation_function");
    EXPECT_DOUBLE_EQ(*config->rmsNormEpsilon, 1e-6);
    for (const char* bad : {R"({"pad_token_id": -1})", R"({"tie_word_embeddings": "yes"})", R"({"hidden_act": 3})",
                            R"({"num_hidden_layers": 0})", R"({"rms_norm_eps": 2})"}) {
        std::ofstream(path) << bad;
        Expected<CheckpointConfig> refused = readCheckpointConfig(path.string());
        ASSERT_FALSE(refused.ok()) << bad;
        EXPECT_TRUE(contains(refused.error(), path.string())) << refused.error();
    }
}

TEST(WholeModelFamilies, AFamilyNotRunWholeYetIsRefusedWithItsName)
{
    for (const char* folder : {"checkpoint/t5/model.safetensors", "checkpoint/distilbert/model.safetensors"}) {
        Expected<PretrainedModel> model = openPretrainedModel(data(folder));
        ASSERT_FALSE(model.ok()) << folder;
        EXPECT_TRUE(contains(model.error(), data(folder))) << model.error();
    }
    Expected<PretrainedModel> t5 = openPretrainedModel(data("checkpoint/t5/model.safetensors"));
    ASSERT_FALSE(t5.ok());
    EXPECT_TRUE(contains(t5.error(), "T5 model is not run")) << t5.error();
}

}  // namespace
}  // namespace qkv

namespace qkv {
namespace {

// A whole model runs on at most limits::maxModelTokens tokens, and a run whose maps would not fit
// limits::maxModelRunBytes is refused, with its numbers, before anything of it is allocated.
TEST(WholeModelLimits, ALongPromptIsRefusedByTheTokenLimitOrByTheRunsMemory)
{
    PretrainedModel model = openPretrainedFixture("gemma3");
    model.recipe.positionCount = 131072;  // as Gemma 3's config.json
    const auto run = [&](std::size_t tokens) {
        return runPretrainedModel(model, ModelTokens{std::vector<std::int32_t>(tokens, 5), {}});
    };
    const Expected<ModelRun> tooLong = run(static_cast<std::size_t>(limits::maxModelTokens) + 1);
    ASSERT_FALSE(tooLong.ok());
    EXPECT_TRUE(contains(tooLong.error(), "8193 tokens; a whole model runs on up to 8192")) << tooLong.error();
    // 8,192 tokens, 4 layers of 4 heads with their scores kept: 8 GiB of maps.
    const Expected<ModelRun> tooLarge = run(static_cast<std::size_t>(limits::maxModelTokens));
    ASSERT_FALSE(tooLarge.ok());
    EXPECT_TRUE(contains(tooLarge.error(), "8192 tokens: the run would hold about 8.")) << tooLarge.error();
    EXPECT_TRUE(contains(tooLarge.error(), "attention maps); the limit is 6.00 GiB. Shorten the sentence, or stream"))
        << tooLarge.error();
    EXPECT_TRUE(run(300).ok());
}

}  // namespace
}  // namespace qkv
