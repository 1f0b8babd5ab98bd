// The whole-model memory estimate (model_memory.hpp) against what a run of the synthetic
// checkpoints really holds, matrix by matrix, and the weights against each family's parameter
// formula from its config.json.

#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/pretrained/model_memory.hpp"
#include "support/pretrained_fixtures.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

std::string folder(const std::string& family) { return pretrainedFixture(family); }

PretrainedModel open(const std::string& family) { return openPretrainedFixture(family); }

nlohmann::json config(const std::string& family)
{
    std::ifstream in(folder(family) + "/config.json");
    return nlohmann::json::parse(in);
}

std::size_t bytes(const MatrixF& m) { return static_cast<std::size_t>(m.size()) * sizeof(float); }

// Every matrix a LayerRun holds.
std::size_t counted(const LayerRun& layer)
{
    const AttentionResult& a = layer.attention;
    std::size_t n = bytes(layer.queryInput) + bytes(layer.keyValueInput) + bytes(a.query) + bytes(a.key) +
                    bytes(a.value) + bytes(a.queryBeforeRotation) + bytes(a.keyBeforeRotation) +
                    bytes(a.headOutputs) + bytes(a.output);
    for (const HeadAttention& head : a.heads) n += bytes(head.scores) + bytes(head.attention);
    return n;
}

struct Counted {
    std::size_t layers = 0, hidden = 0, logits = 0;
};

Counted counted(const ModelRun& run)
{
    Counted c;
    for (const auto& layer : run.layers) c.layers += counted(*layer);
    for (const auto* states : {&run.hiddenStates, &run.decoderHiddenStates})
        for (const MatrixF& h : *states) c.hidden += bytes(h);
    c.logits = bytes(run.logits);
    return c;
}

ModelTokens tokensFor(const PretrainedModel& model)
{
    ModelTokens tokens;
    tokens.ids = {5, 7, 9, 11, 13, 6, 8};
    if (model.recipe.encoderDecoder()) tokens.decoderIds = {2, 14, 15, 16, 17};
    return tokens;
}

class ModelMemory : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelMemory, HeldTermsAreWhatTheRunHolds)
{
    const PretrainedModel model = open(GetParam());
    const ModelTokens tokens = tokensFor(model);
    std::vector<RunOptions> variants(5);
    variants[1].keepScores = false;
    variants[2].logitRows = LogitRows::Chosen;
    variants[2].logitPositions = {3, 1};
    variants[3].logitRows = LogitRows::None;
    variants[4].lastLayer = model.layerCount() / 2;
    for (std::size_t v = 0; v < variants.size(); ++v) {
        Expected<ModelRun> run = runPretrainedModel(model, tokens, variants[v]);
        ASSERT_TRUE(run.ok()) << run.error();
        const Counted c = counted(*run);
        const ModelMemoryEstimate e = estimateModelRunMemory(model, tokens, variants[v]);
        EXPECT_EQ(e.layers, c.layers) << "variant " << v;
        EXPECT_EQ(e.hiddenStates, c.hidden) << "variant " << v;
        EXPECT_EQ(e.logits, c.logits) << "variant " << v;
        EXPECT_GT(e.scratch, 0u);
        EXPECT_EQ(e.peak(), e.program + e.weights + e.layers + e.hiddenStates + e.logits + e.scratch);
    }
}

INSTANTIATE_TEST_SUITE_P(Families, ModelMemory,
                         ::testing::Values("bert", "roberta", "distilbert", "gpt2", "llama", "bart", "marian"));

// BertForMaskedLM: embeddings (V + P + T) d + 2d; per layer 4 (d^2 + d) + 2d, then
// d d_ff + d_ff + d_ff d + d + 2d; the readout's transform d^2 + d + 2d and its bias V (E tied).
TEST(ModelWeights, BertIsItsParameterFormula)
{
    const nlohmann::json c = config("bert");
    const std::size_t d = c["hidden_size"], L = c["num_hidden_layers"], f = c["intermediate_size"],
                      V = c["vocab_size"], P = c["max_position_embeddings"], T = c["type_vocab_size"];
    const std::size_t parameters = (V + P + T) * d + 2 * d + L * (4 * (d * d + d) + 2 * d + 2 * d * f + f + d + 2 * d) +
                                   d * d + d + 2 * d + V;
    EXPECT_EQ(modelWeightBytes(open("bert")), parameters * sizeof(float));
}

// GPT2LMHeadModel: wte V d, wpe P d; per layer ln_1 2d, c_attn 3 (d^2 + d), c_proj d^2 + d,
// ln_2 2d, c_fc d 4d + 4d, c_proj 4d d + d; ln_f 2d; lm_head tied, no bias.
TEST(ModelWeights, Gpt2IsItsParameterFormula)
{
    const nlohmann::json c = config("gpt2");
    const std::size_t d = c["n_embd"], L = c["n_layer"], V = c["vocab_size"], P = c["n_positions"], f = 4 * d;
    const std::size_t parameters = (V + P) * d + L * (2 * d + 4 * (d * d + d) + 2 * d + 2 * d * f + f + d) + 2 * d;
    EXPECT_EQ(modelWeightBytes(open("gpt2")), parameters * sizeof(float));
}

}  // namespace
}  // namespace qkv
