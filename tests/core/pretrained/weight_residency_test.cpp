// A model that reads one block at a time from the mapped file (WeightResidency::OneBlockAtATime)
// computes the same bits as one that converted every block at load, for every family, with heads
// switched off and with a previous run reused; it holds no block weights between runs; and a
// layer's Result and value norms read the layer's weights from the file.

#include <fstream>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/analysis/value_norms.hpp"
#include "core/pipeline/pretrained_run.hpp"
#include "core/pretrained/model_memory.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

std::string data(const std::string& name) { return std::string(qkv::testDataDir()) + "/pretrained/" + name; }

std::vector<std::int32_t> ids(const nlohmann::json& list) { return list.get<std::vector<std::int32_t>>(); }

// The fixture's tokens: run.json (BERT, RoBERTa, DistilBERT, GPT-2) or reference.json.
ModelTokens tokensOf(const std::string& family)
{
    ModelTokens tokens;
    std::ifstream run(data(family + "/run.json"));
    if (run) {
        tokens.ids = ids(nlohmann::json::parse(run).at("ids"));
        return tokens;
    }
    std::ifstream in(data(family + "/reference.json"));
    const nlohmann::json ref = nlohmann::json::parse(in);
    if (ref.contains("ids")) return ModelTokens{ids(ref["ids"]), {}};
    tokens.ids = ids(ref["source_ids"]);
    tokens.decoderIds = ids(ref["decoder_input_ids"]);
    return tokens;
}

std::shared_ptr<const PretrainedModel> load(const std::string& family, WeightResidency residency)
{
    Expected<PretrainedModel> model = openPretrainedModel(data(family), {}, residency);
    EXPECT_TRUE(model) << family << ": " << (model ? "" : model.error());
    return model ? std::make_shared<const PretrainedModel>(std::move(*model)) : nullptr;
}

void expectSameRun(const ModelRun& a, const ModelRun& b, const std::string& what)
{
    ASSERT_EQ(a.layers.size(), b.layers.size()) << what;
    for (std::size_t l = 0; l < a.layers.size(); ++l) {
        const AttentionResult& x = a.layers[l]->attention;
        const AttentionResult& y = b.layers[l]->attention;
        ASSERT_EQ(x.headCount(), y.headCount()) << what;
        for (Index i = 0; i < x.headCount(); ++i)
            EXPECT_TRUE(x.heads[static_cast<std::size_t>(i)].attention == y.heads[static_cast<std::size_t>(i)].attention)
                << what << " layer " << l << " head " << i;
        EXPECT_TRUE(x.output == y.output) << what << " layer " << l;
    }
    ASSERT_EQ(a.hiddenStates.size(), b.hiddenStates.size()) << what;
    for (std::size_t i = 0; i < a.hiddenStates.size(); ++i)
        EXPECT_TRUE(a.hiddenStates[i] == b.hiddenStates[i]) << what << " hidden " << i;
    EXPECT_TRUE(a.logits == b.logits) << what;
}

TEST(WeightResidency, OneBlockAtATimeComputesTheSameBitsForEveryFamily)
{
    for (const std::string family : {"bert", "roberta", "distilbert", "gpt2", "llama", "bart", "marian"}) {
        const auto whole = load(family, WeightResidency::Whole);
        const auto lazy = load(family, WeightResidency::OneBlockAtATime);
        ASSERT_TRUE(whole && lazy) << family;
        EXPECT_EQ(whole->residency, WeightResidency::Whole);
        EXPECT_EQ(lazy->residency, WeightResidency::OneBlockAtATime);
        // Between runs the lazy model holds its embeddings and readout, not its blocks.
        EXPECT_LT(modelWeightBytes(*lazy), modelWeightBytes(*whole)) << family;
        for (const StackWeights* stack : {&lazy->encoder, &lazy->decoder})
            for (const BlockWeights& block : stack->blocks) {
                EXPECT_EQ(block.feedForward.in.size(), 0) << family;
                EXPECT_EQ(block.selfAttention.attention.queryProjection.size(), 0) << family;
            }
        const ModelTokens tokens = tokensOf(family);
        Expected<ModelRun> a = runPretrainedModel(*whole, tokens);
        Expected<ModelRun> b = runPretrainedModel(*lazy, tokens);
        ASSERT_TRUE(a && b) << family << ": " << (a ? "" : a.error()) << (b ? "" : b.error());
        expectSameRun(*a, *b, family);

        // Heads off, reusing the run above: only the later blocks are read again.
        RunOptions off;
        off.ablatedHeads = {{lazy->layerCount() - 1, 0}};
        off.previous = std::make_shared<const ModelRun>(*b);
        Expected<ModelRun> c = runPretrainedModel(*whole, tokens, off);
        Expected<ModelRun> d = runPretrainedModel(*lazy, tokens, off);
        ASSERT_TRUE(c && d) << family;
        expectSameRun(*c, *d, family + " with a head off");
    }
}

TEST(WeightResidency, ALayersResultAndValueNormsReadItsWeightsFromTheFile)
{
    const auto whole = load("bert", WeightResidency::Whole);
    const auto lazy = load("bert", WeightResidency::OneBlockAtATime);
    ASSERT_TRUE(whole && lazy);
    Expected<ModelSentences> sentences = modelSentences(*lazy, "d [MASK] super / [MASK]", "");
    ASSERT_TRUE(sentences) << sentences.error();
    Expected<ModelRun> run = runPretrainedModel(*lazy, sentences->tokens);
    ASSERT_TRUE(run) << run.error();
    for (Index l = 0; l < lazy->layerCount(); ++l) {
        Expected<std::shared_ptr<const Result>> result = pretrainedLayerResult(lazy, *run, l, *sentences, Config{});
        ASSERT_TRUE(result) << result.error();
        const AttentionWeights& expected = whole->sublayer(l).attention;
        EXPECT_TRUE((*result)->weights->queryProjection == expected.queryProjection) << l;
        EXPECT_TRUE((*result)->weights->outputProjection == expected.outputProjection) << l;
        EXPECT_EQ((*result)->config.withBias, expected.hasBias()) << l;
        Expected<ValueNorms> norms = valueWeightedNorms((*result)->attention, *(*result)->weights);
        ASSERT_TRUE(norms) << norms.error();
        Expected<ValueNorms> reference = valueWeightedNorms(run->layer(l).attention, expected);
        ASSERT_TRUE(reference);
        EXPECT_TRUE(norms->layer == reference->layer) << l;
    }
}

}  // namespace
}  // namespace qkv
