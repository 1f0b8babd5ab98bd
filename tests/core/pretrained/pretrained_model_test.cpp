// Whole pretrained models against the independent PyTorch forward passes of
// tests/data/pretrained/make_pretrained_fixtures.py: every layer's attention (model order), every
// hidden state and the logits, with and without switched-off heads, within 1e-4.

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/io/npy.hpp"
#include "core/pretrained/model_run.hpp"
#include "support/matrix_assertions.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

constexpr double kTolerance = 1e-4;

std::string data(const std::string& name) { return std::string(qkv::testDataDir()) + "/pretrained/" + name; }

MatrixF npy(const std::string& path)
{
    Expected<MatrixD> matrix = readNpyMatrixD(path);
    EXPECT_TRUE(matrix.ok()) << (matrix ? "" : matrix.error());
    return matrix ? MatrixF(matrix->cast<float>()) : MatrixF();
}

struct Case {
    std::string folder;
    Family family;
    Index layers;
};

struct Reference {
    ModelTokens tokens;
    std::set<ModelHead> ablated;
};

Reference reference(const std::string& folder)
{
    std::ifstream in(data(folder + "/run.json"));
    const nlohmann::json json = nlohmann::json::parse(in);
    Reference r;
    r.tokens.ids = json.at("ids").get<std::vector<std::int32_t>>();
    for (const auto& pair : json.at("ablated"))
        r.ablated.insert(ModelHead{pair.at(0).get<Index>(), pair.at(1).get<Index>()});
    return r;
}

// The attention maps stacked as the references store them: h*n_q x n_k.
MatrixF stackedAttention(const AttentionResult& result)
{
    const Index n_q = result.queryCount(), n_k = result.keyCount();
    MatrixF stacked(result.headCount() * n_q, n_k);
    for (Index i = 0; i < result.headCount(); ++i)
        stacked.middleRows(i * n_q, n_q) = result.heads[static_cast<std::size_t>(i)].attention;
    return stacked;
}

void expectMatchesReference(const ModelRun& run, const std::string& folder, const std::string& prefix)
{
    for (Index l = 0; l < static_cast<Index>(run.layers.size()); ++l)
        EXPECT_MATRIX_NEAR(stackedAttention(run.layer(l).attention),
                           npy(data(folder + "/" + prefix + "attention_" + std::to_string(l) + ".npy")), kTolerance)
            << folder << " layer " << l;
    for (std::size_t i = 0; i < run.hiddenStates.size(); ++i)
        EXPECT_MATRIX_NEAR(run.hiddenStates[i],
                           npy(data(folder + "/" + prefix + "hidden_" + std::to_string(i) + ".npy")), kTolerance)
            << folder << " hidden state " << i;
    EXPECT_MATRIX_NEAR(run.logits, npy(data(folder + "/" + prefix + "logits.npy")), kTolerance) << folder;
}

class WholeModel : public ::testing::TestWithParam<Case> {};

TEST_P(WholeModel, EveryLayerHiddenStateAndLogitMatchesPyTorch)
{
    const Case& c = GetParam();
    Expected<PretrainedModel> model = openPretrainedModel(data(c.folder));
    ASSERT_TRUE(model.ok()) << model.error();
    EXPECT_EQ(model->recipe.family, c.family);
    EXPECT_EQ(model->layerCount(), c.layers);
    const Reference r = reference(c.folder);
    Expected<ModelRun> run = runPretrainedModel(*model, r.tokens);
    ASSERT_TRUE(run.ok()) << run.error();
    ASSERT_EQ(static_cast<Index>(run->layers.size()), c.layers);
    ASSERT_EQ(static_cast<Index>(run->hiddenStates.size()), c.layers + 1);
    expectMatchesReference(*run, c.folder, "");
}

TEST_P(WholeModel, SwitchedOffHeadsMatchPyTorch)
{
    const Case& c = GetParam();
    Expected<PretrainedModel> model = openPretrainedModel(data(c.folder));
    ASSERT_TRUE(model.ok()) << model.error();
    const Reference r = reference(c.folder);
    RunOptions options;
    options.ablatedHeads = r.ablated;
    Expected<ModelRun> run = runPretrainedModel(*model, r.tokens, options);
    ASSERT_TRUE(run.ok()) << run.error();
    expectMatchesReference(*run, c.folder, "ablated_");
    for (const ModelHead& head : r.ablated) EXPECT_TRUE(run->layer(head.layer).attention.isAblated(head.head));
}

// Re-running from a previous run gives the bits of a full run, recomputing only from the first
// layer whose switched-off heads changed and sharing the layers before it.
TEST_P(WholeModel, ReRunFromTheFirstChangedLayerGivesTheBitsOfAFullRun)
{
    const Case& c = GetParam();
    Expected<PretrainedModel> model = openPretrainedModel(data(c.folder));
    ASSERT_TRUE(model.ok()) << model.error();
    const Reference r = reference(c.folder);
    Expected<ModelRun> base = runPretrainedModel(*model, r.tokens);
    ASSERT_TRUE(base.ok()) << base.error();
    auto previous = std::make_shared<const ModelRun>(std::move(*base));
    for (const ModelHead& head : r.ablated) {
        RunOptions options;
        options.ablatedHeads = {head};
        Expected<ModelRun> full = runPretrainedModel(*model, r.tokens, options);
        options.previous = previous;
        Expected<ModelRun> rerun = runPretrainedModel(*model, r.tokens, options);
        ASSERT_TRUE(full.ok() && rerun.ok());
        EXPECT_EQ(rerun->firstRecomputedLayer, head.layer);
        for (Index l = 0; l < head.layer; ++l) EXPECT_EQ(rerun->layers[l].get(), previous->layers[l].get()) << l;
        for (Index l = head.layer; l < c.layers; ++l) {
            EXPECT_NE(rerun->layers[l].get(), previous->layers[l].get()) << l;
            EXPECT_TRUE(rerun->layer(l).attention.output == full->layer(l).attention.output) << l;
            for (Index i = 0; i < full->layer(l).attention.headCount(); ++i)
                EXPECT_TRUE(rerun->layer(l).attention.heads[i].attention ==
                            full->layer(l).attention.heads[i].attention);
        }
        ASSERT_EQ(rerun->hiddenStates.size(), full->hiddenStates.size());
        for (std::size_t i = 0; i < full->hiddenStates.size(); ++i)
            EXPECT_TRUE(rerun->hiddenStates[i] == full->hiddenStates[i]) << i;
        EXPECT_TRUE(rerun->logits == full->logits);
        EXPECT_FALSE(rerun->logits == previous->logits);  // the head matters
    }
    // Nothing changed: nothing recomputed.
    RunOptions same;
    same.previous = previous;
    Expected<ModelRun> again = runPretrainedModel(*model, r.tokens, same);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->firstRecomputedLayer, c.layers);
    EXPECT_TRUE(again->logits == previous->logits);
}

INSTANTIATE_TEST_SUITE_P(Families, WholeModel,
                         ::testing::Values(Case{"bert", Family::Bert, 3},
                                           Case{"roberta", Family::Roberta, 2},
                                           Case{"distilbert", Family::DistilBert, 2},
                                           Case{"gpt2", Family::Gpt2, 3},
                                           Case{"gpt2_bare", Family::Gpt2, 2}),
                         [](const auto& info) { return info.param.folder; });

}  // namespace
}  // namespace qkv
