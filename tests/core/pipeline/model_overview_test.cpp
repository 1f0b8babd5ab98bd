// The whole-model overview against NumPy (tests/data/overview/make_overview_fixture.py computes
// the grids and rollouts from PyTorch's attention maps of the synthetic BERT fixture), and the
// overview's own promises: reuse of earlier runs, predictions with and without heads off, the
// head ranking's order and its stop.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/analysis/head_roles.hpp"
#include "core/checkpoint/checkpoint.hpp"
#include "core/pipeline/compute.hpp"
#include "core/pipeline/layer_input.hpp"
#include "core/pipeline/model_overview.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

std::string dataPath(const std::string& name) { return std::string(qkv::testDataDir()) + "/" + name; }

std::shared_ptr<const PretrainedModel> loadModel(const std::string& family)
{
    Expected<Checkpoint> checkpoint = openCheckpoint(dataPath("pretrained/" + family));
    EXPECT_TRUE(checkpoint) << (checkpoint ? "" : checkpoint.error());
    if (!checkpoint) return nullptr;
    Expected<PretrainedModel> model = loadPretrainedModel(*checkpoint);
    EXPECT_TRUE(model) << (model ? "" : model.error());
    return model ? std::make_shared<const PretrainedModel>(std::move(*model)) : nullptr;
}

nlohmann::json fixture()
{
    std::ifstream in(dataPath("overview/overview_bert.json"));
    return nlohmann::json::parse(in);
}

void expectGrid(const MatrixD& grid, const nlohmann::json& expected, const std::string& what)
{
    ASSERT_EQ(grid.rows(), static_cast<Index>(expected.size())) << what;
    for (Index l = 0; l < grid.rows(); ++l) {
        ASSERT_EQ(grid.cols(), static_cast<Index>(expected[l].size())) << what;
        for (Index i = 0; i < grid.cols(); ++i)
            EXPECT_NEAR(grid(l, i), expected[l][i].get<double>(), 1e-5) << what << " layer " << l << " head " << i;
    }
}

void expectOverviewMatches(const ModelOverview& overview, const nlohmann::json& expected)
{
    expectGrid(overview.statistics.entropy, expected["grids"]["entropy"], "entropy");
    expectGrid(overview.statistics.meanDistance, expected["grids"]["mean_distance"], "mean distance");
    expectGrid(overview.statistics.firstTokenWeight, expected["grids"]["first_token_weight"], "first token");
    expectGrid(overview.statistics.ownPositionWeight, expected["grids"]["own_position_weight"], "own position");
    const nlohmann::json& rollouts = expected["rollout"];
    for (Index stop = 0; stop < static_cast<Index>(rollouts.size()); ++stop) {
        const Expected<MatrixD> rollout = modelRollout(*overview.model, *overview.run, stop);
        ASSERT_TRUE(rollout) << rollout.error();
        const nlohmann::json& r = rollouts[stop];
        ASSERT_EQ(rollout->rows(), static_cast<Index>(r.size()));
        for (Index q = 0; q < rollout->rows(); ++q)
            for (Index j = 0; j < rollout->cols(); ++j)
                EXPECT_NEAR((*rollout)(q, j), r[q][j].get<double>(), 1e-5) << "stop " << stop << " at " << q << "," << j;
    }
}

std::set<ModelHead> headsOf(const nlohmann::json& pairs)
{
    std::set<ModelHead> heads;
    for (const auto& pair : pairs) heads.insert({pair[0].get<Index>(), pair[1].get<Index>()});
    return heads;
}

TEST(ModelOverview, GridsAndRolloutMatchNumPyWithEveryHeadOnAndWithHeadsOff)
{
    const auto model = loadModel("bert");
    ASSERT_TRUE(model);
    const nlohmann::json expected = fixture();
    ModelOverviewRequest request;
    request.source = expected["sentence"].get<std::string>();
    Expected<ModelOverview> on = computeModelOverview(model, request);
    ASSERT_TRUE(on) << on.error();
    ASSERT_EQ(on->sentences.tokens.ids, expected["ids"].get<std::vector<std::int32_t>>());
    EXPECT_EQ(on->run, on->baseline);
    expectOverviewMatches(*on, expected["baseline"]);

    request.ablatedHeads = headsOf(expected["ablated"]);
    Expected<ModelOverview> off = computeModelOverview(model, request);
    ASSERT_TRUE(off) << off.error();
    EXPECT_NE(off->run, off->baseline);
    expectOverviewMatches(*off, expected["with_heads_off"]);
}

TEST(ModelOverview, ReusesTheEarlierRunsWhereTheTokensAndHeadsAreTheSame)
{
    const auto model = loadModel("bert");
    ASSERT_TRUE(model);
    ModelOverviewRequest request;
    request.source = "d [MASK] super / [MASK]";
    auto first = std::make_shared<const ModelOverview>(*computeModelOverview(model, request));
    request.previous = first;
    request.ablatedHeads = {{1, 2}};
    Expected<ModelOverview> second = computeModelOverview(model, request);
    ASSERT_TRUE(second) << second.error();
    EXPECT_EQ(second->baseline, first->baseline);  // the same sentence: not run again
    EXPECT_EQ(second->run->firstRecomputedLayer, 1);
    request.previous = std::make_shared<const ModelOverview>(*second);
    request.valueNorms = true;
    Expected<ModelOverview> third = computeModelOverview(model, request);
    ASSERT_TRUE(third) << third.error();
    EXPECT_EQ(third->run, second->run);  // the same heads off too
    ASSERT_EQ(third->valueNorms.size(), 3u);
    request.source = "super d [MASK]";
    request.previous = std::make_shared<const ModelOverview>(*third);
    Expected<ModelOverview> other = computeModelOverview(model, request);
    ASSERT_TRUE(other) << other.error();
    EXPECT_NE(other->baseline, third->baseline);
    EXPECT_EQ(other->run->layer(0).attention.queryCount(), 5);
}

TEST(ModelOverview, PredictsAtTheMasksAndSwitchingHeadsOffChangesTheProbabilities)
{
    const auto model = loadModel("bert");
    ASSERT_TRUE(model);
    ModelOverviewRequest request;
    request.source = "d [MASK] super / [MASK]";
    request.ablatedHeads = {{0, 0}, {1, 2}};
    Expected<ModelOverview> overview = computeModelOverview(model, request);
    ASSERT_TRUE(overview) << overview.error();
    ASSERT_EQ(overview->baselinePredictions.size(), 2u);  // [CLS] d [MASK] super / [MASK] [SEP]
    EXPECT_EQ(overview->baselinePredictions[0].position, 2);
    EXPECT_EQ(overview->baselinePredictions[1].position, 5);
    ASSERT_EQ(overview->predictions.size(), 2u);
    const double before = overview->baselinePredictions[0].top[0].probability;
    // The same token in the run with heads off has another probability.
    const std::int32_t id = overview->baselinePredictions[0].top[0].id;
    const Index row = overview->run->logitRow(2);
    ASSERT_GE(row, 0);
    const Expected<double> after = tokenProbability(overview->run->logits.row(row), id);
    ASSERT_TRUE(after) << after.error();
    EXPECT_GT(std::abs(*after - before), 1e-6);
}

TEST(ModelOverview, RanksEveryHeadStillOnAndCanBeStopped)
{
    const auto model = loadModel("bert");
    ASSERT_TRUE(model);
    ModelOverviewRequest request;
    request.source = "d [MASK] super / [MASK]";
    request.ablatedHeads = {{0, 0}};
    Expected<ModelOverview> overview = computeModelOverview(model, request);
    ASSERT_TRUE(overview) << overview.error();
    const std::int32_t id = overview->predictions[0].top[0].id;
    Index calls = 0;
    Expected<std::vector<HeadEffect>> ranked = rankHeadsAtPosition(*overview, 2, id, [&](Index, Index total) {
        EXPECT_EQ(total, 11);  // 3 layers x 4 heads, one already off
        ++calls;
        return true;
    });
    ASSERT_TRUE(ranked) << ranked.error();
    ASSERT_EQ(ranked->size(), 11u);
    EXPECT_EQ(calls, 11);
    for (std::size_t k = 1; k < ranked->size(); ++k)
        EXPECT_GE(std::abs((*ranked)[k - 1].change.change), std::abs((*ranked)[k].change.change));
    // The top head's change is what a run with it off too gives.
    const HeadEffect& top = ranked->front();
    request.ablatedHeads.insert({top.candidate.layer, top.candidate.head});
    Expected<ModelOverview> without = computeModelOverview(model, request);
    ASSERT_TRUE(without) << without.error();
    const Expected<double> p = tokenProbability(without->run->logits.row(without->run->logitRow(2)), id);
    ASSERT_TRUE(p);
    EXPECT_DOUBLE_EQ(top.change.after, *p);

    Expected<std::vector<HeadEffect>> stopped =
        rankHeadsAtPosition(*overview, 2, id, [](Index done, Index) { return done < 3; });
    ASSERT_FALSE(stopped);
    EXPECT_EQ(stopped.error(), "stopped");
    EXPECT_FALSE(rankHeadsAtPosition(*overview, 3, id));  // not a [MASK]: no readout row there
}

TEST(ModelOverview, CrossAttentionHasNoOwnPositionAndRolloutFollowsTheEncoder)
{
    // The synthetic Marian weights with the tokenizer whose vocab.json gives typed sentences
    // their ids (make_marian_text_fixture.py), in one model folder.
    namespace fs = std::filesystem;
    const fs::path folder = fs::path(testing::TempDir()) / "overview-marian";
    fs::remove_all(folder);
    fs::create_directories(folder);
    for (const char* name : {"marian/config.json", "marian/model.safetensors", "marian_text/source.spm",
                             "marian_text/target.spm", "marian_text/vocab.json"})
        fs::copy_file(dataPath(std::string("pretrained/") + name), folder / fs::path(name).filename());
    Expected<Checkpoint> checkpoint = openCheckpoint(folder.string());
    ASSERT_TRUE(checkpoint) << checkpoint.error();
    Expected<PretrainedModel> loaded = loadPretrainedModel(*checkpoint);
    ASSERT_TRUE(loaded) << loaded.error();
    const auto model = std::make_shared<const PretrainedModel>(std::move(*loaded));
    std::ifstream in(dataPath("pretrained/marian_text/sentences.json"));
    const nlohmann::json sentences = nlohmann::json::parse(in);
    ModelOverviewRequest request;
    request.source = sentences.at("source").get<std::string>();
    request.target = sentences.at("target").get<std::string>();
    Expected<ModelOverview> overview = computeModelOverview(model, request);
    ASSERT_TRUE(overview) << overview.error();
    const std::vector<Index> rolled = rolloutLayers(*model, *overview->run);
    for (Index l = 0; l < overview->layerCount(); ++l) {
        const bool cross = overview->layer(l).layer.kind == AttentionMode::Cross;
        for (Index i = 0; i < overview->statistics.ownPositionWeight.cols(); ++i) {
            EXPECT_EQ(std::isnan(overview->statistics.ownPositionWeight(l, i)), cross) << l << "," << i;
            // The first-token role is the first-token weight of a self-attention layer (every
            // row has a distribution there), and undefined in cross-attention.
            const HeadStatisticGrids& grids = overview->statistics;
            EXPECT_EQ(std::isnan(grids.firstTokenRole(l, i)), cross) << l << "," << i;
            if (!cross) EXPECT_NEAR(grids.firstTokenRole(l, i), grids.firstTokenWeight(l, i), 1e-12) << l << "," << i;
            if (cross) EXPECT_TRUE(std::isnan(grids.duplicateToken(l, i))) << l << "," << i;
        }
        const bool encoder = overview->layer(l).stack == ModelStack::Encoder;
        EXPECT_EQ(std::find(rolled.begin(), rolled.end(), l) != rolled.end(), encoder) << l;
    }
    EXPECT_FALSE(modelRollout(*model, *overview->run, static_cast<Index>(rolled.size())));
    EXPECT_FALSE(overview->predictions.empty());  // every decoder position
}

TEST(ModelOverview, TheRoleGridsAreTheHeadRolesOfEachHeadsMap)
{
    const auto model = loadModel("gpt2");
    ModelOverviewRequest request;
    request.target = "the cat sat on the cat";  // "·cat" repeats
    Expected<ModelOverview> overview = computeModelOverview(model, request);
    ASSERT_TRUE(overview) << overview.error();
    const HeadStatisticGrids& grids = overview->statistics;
    for (Index l = 0; l < overview->layerCount(); ++l) {
        const std::vector<std::int32_t> ids = layerQueryTokens(*model, overview->sentences, overview->layer(l)).ids();
        for (Index i = 0; i < overview->layer(l).attention.headCount(); ++i) {
            const MatrixF& a = overview->layer(l).attention.heads[static_cast<std::size_t>(i)].attention;
            EXPECT_DOUBLE_EQ(grids.duplicateToken(l, i), duplicateTokenScore(a, ids)) << l << "," << i;
            EXPECT_FALSE(std::isnan(grids.duplicateToken(l, i)));
            EXPECT_DOUBLE_EQ(grids.firstTokenRole(l, i), firstTokenScore(a)) << l << "," << i;
        }
    }
}

TEST(ModelOverview, RefusesWhatCannotRun)
{
    const auto model = loadModel("bert");
    ASSERT_TRUE(model);
    ModelOverviewRequest request;
    for (int i = 0; i < 600; ++i) request.source += "d ";  // more tokens than the model has positions
    const Expected<ModelOverview> tooLong = computeModelOverview(model, request);
    ASSERT_FALSE(tooLong);
    EXPECT_NE(tooLong.error().find("position"), std::string::npos) << tooLong.error();
    request.source = "d super";
    request.ablatedHeads = {{7, 0}};
    const Expected<ModelOverview> noLayer = computeModelOverview(model, request);
    ASSERT_FALSE(noLayer);
    EXPECT_FALSE(noLayer.error().empty());
    EXPECT_FALSE(computeModelOverview(nullptr, request));
}

// Every layer's input brings the model it belongs to, the first layer's (read from the tables)
// too, so the views that draw every layer need not load it again.
TEST(ModelOverview, ALayersInputCarriesItsWholeModelIntoTheResult)
{
    Expected<Checkpoint> checkpoint = openCheckpoint(dataPath("pretrained/bert"));
    ASSERT_TRUE(checkpoint) << checkpoint.error();
    for (const CheckpointLayer& layer : checkpoint->layers) {
        Expected<std::shared_ptr<const ModelInput>> input = loadLayerInput(*checkpoint, layer);
        ASSERT_TRUE(input) << input.error();
        ASSERT_TRUE((*input)->wholeModel()) << layer.name;
        EXPECT_EQ((*input)->wholeModelLayer(), layer.index);
        Config config;
        config.d_model = layer.d_model;
        config.headCount = layer.headCount;
        config.mode = layer.kind;
        config.embeddings = EmbeddingKind::Model;
        config.sourceText = "d super";
        UserInputs inputs;
        inputs.modelInput = *input;
        Expected<std::shared_ptr<const Result>> result = compute(config, inputs);
        ASSERT_TRUE(result) << result.error();
        EXPECT_EQ((*result)->wholeModel, (*input)->wholeModel());
        EXPECT_EQ((*result)->wholeModelLayer, layer.index);
    }
}

}  // namespace
}  // namespace qkv
