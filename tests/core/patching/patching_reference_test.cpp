// Activation patching and the logit lens against an independent NumPy forward (float64) with the
// same patches: tests/data/patching/make_patching_fixtures.py wrote a GPT-2 and a grouped-query
// LLaMA-style checkpoint and expected.json (logit differences, both grids, the clean run's logit
// lens). Also: the last layer's lens is the run's predictions, and what patching cannot measure is
// refused with a message.

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/pipeline/logit_lens.hpp"
#include "core/pipeline/patching.hpp"
#include "support/pretrained_fixtures.hpp"

namespace qkv {
namespace {

nlohmann::json expected(const std::string& family)
{
    std::ifstream in(std::string(testDataDir()) + "/patching/expected.json");
    return nlohmann::json::parse(in)[family];
}

PretrainedModel openFixture(const std::string& family)
{
    Expected<PretrainedModel> model = openPretrainedModel(std::string(testDataDir()) + "/patching/" + family);
    EXPECT_TRUE(model.ok()) << (model ? "" : model.error());
    return model ? std::move(*model) : PretrainedModel();
}

// Float runs against float64: logits agree to ~1e-5 of their size; a fraction divides by LD(P) - LD(P').
constexpr double kLogitTolerance = 2e-4;

class PatchingReferenceTest : public ::testing::TestWithParam<const char*> {};

TEST_P(PatchingReferenceTest, GridsMatchTheNumPyForwardWithTheSamePatches)
{
    const nlohmann::json e = expected(GetParam());
    const PretrainedModel model = openFixture(GetParam());
    ASSERT_GT(model.layerCount(), 0);
    Expected<PatchingRuns> runs =
        patchingRuns(model, e["clean"].get<std::vector<std::int32_t>>(), e["corrupt"].get<std::vector<std::int32_t>>());
    ASSERT_TRUE(runs.ok()) << runs.error();
    Index calls = 0;
    Expected<PatchingReadouts> readouts = patchingReadouts(model, *runs, [&](Index done, Index total) {
        EXPECT_LE(done, total);
        ++calls;
        return true;
    });
    ASSERT_TRUE(readouts.ok()) << readouts.error();
    EXPECT_GT(calls, 0);
    Expected<PatchingGrids> grids = patchingGrids(model, *readouts, e["answer"], e["wrong"]);
    ASSERT_TRUE(grids.ok()) << grids.error();
    EXPECT_NEAR(grids->cleanDifference, e["clean_logit_difference"].get<double>(), kLogitTolerance);
    EXPECT_NEAR(grids->corruptDifference, e["corrupt_logit_difference"].get<double>(), kLogitTolerance);
    const double span = std::abs(grids->cleanDifference - grids->corruptDifference);
    for (const char* grid : {"heads", "residual"}) {
        const auto& reference = e[grid];
        const auto& ours = std::string(grid) == "heads" ? grids->heads : grids->residual;
        ASSERT_EQ(ours.size(), reference.size()) << grid;
        for (std::size_t l = 0; l < ours.size(); ++l) {
            ASSERT_EQ(ours[l].size(), reference[l].size()) << grid << " layer " << l;
            for (std::size_t i = 0; i < ours[l].size(); ++i)
                EXPECT_NEAR(ours[l][i], reference[l][i].get<double>(), 2 * kLogitTolerance / span)
                    << grid << " layer " << l << " entry " << i;
        }
    }
    // A layer's residual row before the first differing token is the same in both runs: r = 0.
    const Index split = e["split"];
    for (const auto& layer : grids->residual)
        for (Index p = 0; p < split; ++p) EXPECT_EQ(layer[static_cast<std::size_t>(p)], 0.0);
}

TEST_P(PatchingReferenceTest, LogitLensMatchesTheNumPyForwardAndEndsAtThePredictions)
{
    const nlohmann::json e = expected(GetParam());
    const PretrainedModel model = openFixture(GetParam());
    ASSERT_GT(model.layerCount(), 0);
    Expected<ModelRun> run = runPretrainedModel(model, ModelTokens{e["clean"].get<std::vector<std::int32_t>>(), {}});
    ASSERT_TRUE(run.ok()) << run.error();
    Expected<std::vector<LogitLensLayer>> lens = logitLens(model, *run);
    ASSERT_TRUE(lens.ok()) << lens.error();
    ASSERT_EQ(lens->size(), e["logit_lens"].size());
    for (std::size_t l = 0; l < lens->size(); ++l) {
        const LogitLensLayer& layer = (*lens)[l];
        EXPECT_EQ(layer.layer, static_cast<Index>(l));
        ASSERT_EQ(layer.positions.size(), e["logit_lens"][l].size());
        for (std::size_t p = 0; p < layer.positions.size(); ++p) {
            const auto& reference = e["logit_lens"][l][p];
            ASSERT_EQ(layer.positions[p].top.size(), 5u);
            for (std::size_t k = 0; k < 5; ++k) {
                const double probability = reference[k]["probability"];
                EXPECT_NEAR(layer.positions[p].top[k].probability, probability, 1e-5)
                    << "layer " << l << " position " << p << " rank " << k;
                // Ids agree unless two probabilities are too close for float to order them.
                if (k + 1 < 5 && std::abs(probability - reference[k + 1]["probability"].get<double>()) > 1e-5) {
                    EXPECT_EQ(layer.positions[p].top[k].id, reference[k]["id"].get<std::int32_t>())
                        << "layer " << l << " position " << p << " rank " << k;
                }
            }
        }
    }
    // After the last block the lens is the run's own readout: the predictions, exactly.
    const auto n = static_cast<Index>(run->tokens.ids.size());
    for (Index p = 0; p < n; ++p) {
        Expected<std::vector<TokenProbability>> top = topPredictions(run->logits.row(p), 5);
        ASSERT_TRUE(top.ok());
        for (std::size_t k = 0; k < 5; ++k) {
            EXPECT_EQ(lens->back().positions[static_cast<std::size_t>(p)].top[k].id, (*top)[k].id);
            EXPECT_EQ(lens->back().positions[static_cast<std::size_t>(p)].top[k].probability, (*top)[k].probability);
        }
    }
}

// Stop: the progress callback's false ends the work; the layers done so far are kept whole.
TEST(PatchingProgress, StoppingKeepsTheLayersDone)
{
    const nlohmann::json e = expected("gpt2");
    const PretrainedModel model = openFixture("gpt2");
    Expected<PatchingRuns> runs =
        patchingRuns(model, e["clean"].get<std::vector<std::int32_t>>(), e["corrupt"].get<std::vector<std::int32_t>>());
    ASSERT_TRUE(runs.ok()) << runs.error();
    const Index perLayer = 4 + static_cast<Index>(e["clean"].size());  // heads, then positions
    Index last = -1;
    Expected<PatchingReadouts> stopped = patchingReadouts(model, *runs, [&](Index done, Index total) {
        EXPECT_EQ(total, 2 * perLayer);
        EXPECT_GT(done, last);  // in order, each patch once
        last = done;
        return done < perLayer + 3;  // stop inside the second layer
    });
    ASSERT_TRUE(stopped.ok()) << stopped.error();
    EXPECT_EQ(stopped->layersDone, 1);
    EXPECT_EQ(stopped->heads.size(), 1u);
    EXPECT_EQ(stopped->residual.size(), 1u);
    EXPECT_EQ(last, perLayer + 3);
    Expected<PatchingGrids> grids = patchingGrids(model, *stopped, e["answer"], e["wrong"]);
    ASSERT_TRUE(grids.ok()) << grids.error();
    ASSERT_EQ(grids->heads.size(), 1u);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(grids->heads[0][i], e["heads"][0][i].get<double>(), 1e-3);
}

// Each finished layer is handed over as it ends, the readouts so far equal to the final ones'
// first rows: what the window draws while the later layers are computed.
TEST(PatchingProgress, EachLayerIsHandedOverWhenItEnds)
{
    const nlohmann::json e = expected("gpt2");
    const PretrainedModel model = openFixture("gpt2");
    Expected<PatchingRuns> runs =
        patchingRuns(model, e["clean"].get<std::vector<std::int32_t>>(), e["corrupt"].get<std::vector<std::int32_t>>());
    ASSERT_TRUE(runs.ok()) << runs.error();
    std::vector<PatchingReadouts> handed;
    Expected<PatchingReadouts> all =
        patchingReadouts(model, *runs, {}, [&](const PatchingReadouts& soFar) { handed.push_back(soFar); });
    ASSERT_TRUE(all.ok()) << all.error();
    ASSERT_EQ(handed.size(), 2u);
    for (std::size_t l = 0; l < handed.size(); ++l) {
        EXPECT_EQ(handed[l].layersDone, static_cast<Index>(l + 1));
        ASSERT_EQ(handed[l].heads.size(), l + 1);
        for (std::size_t i = 0; i < handed[l].heads[l].size(); ++i)
            EXPECT_EQ(handed[l].heads[l][i], all->heads[l][i]) << "layer " << l << " head " << i;
        ASSERT_EQ(handed[l].residual.size(), l + 1);
        for (std::size_t p = 0; p < handed[l].residual[l].size(); ++p)
            EXPECT_EQ(handed[l].residual[l][p], all->residual[l][p]) << "layer " << l << " position " << p;
    }
}

INSTANTIATE_TEST_SUITE_P(Families, PatchingReferenceTest, ::testing::Values("gpt2", "llama"));

TEST(PatchingRefusals, DifferentLengthsNameBothCounts)
{
    const PretrainedModel model = openFixture("gpt2");
    Expected<PatchingRuns> runs = patchingRuns(model, {1, 2, 3, 4}, {1, 2, 3});
    ASSERT_FALSE(runs.ok());
    EXPECT_NE(runs.error().find("into 4 tokens and the corrupted one into 3"), std::string::npos) << runs.error();
}

TEST(PatchingRefusals, EqualLogitDifferencesAndTheSameTokenAreRefused)
{
    const PretrainedModel model = openFixture("gpt2");
    Expected<PatchingRuns> runs = patchingRuns(model, {5, 6, 7}, {5, 6, 7});
    ASSERT_TRUE(runs.ok()) << runs.error();
    Expected<PatchingReadouts> readouts = patchingReadouts(model, *runs);
    ASSERT_TRUE(readouts.ok()) << readouts.error();
    Expected<PatchingGrids> same = patchingGrids(model, *readouts, 10, 11);
    ASSERT_FALSE(same.ok());
    EXPECT_NE(same.error().find("same logit difference"), std::string::npos) << same.error();
    Expected<PatchingGrids> sameToken = patchingGrids(model, *readouts, 10, 10);
    ASSERT_FALSE(sameToken.ok());
    EXPECT_NE(sameToken.error().find("same token"), std::string::npos) << sameToken.error();
}

TEST(PatchingRefusals, EncoderOnlyEncoderDecoderAndModelsWithoutAReadoutAreRefused)
{
    const PretrainedModel bert = openPretrainedFixture("bert");
    const Status encoder = checkPatchingModel(bert);
    ASSERT_FALSE(encoder.ok());
    EXPECT_NE(encoder.error().find("encoder-only"), std::string::npos) << encoder.error();
    const Status encoderDecoder = checkPatchingModel(openPretrainedFixture("bart"));
    ASSERT_FALSE(encoderDecoder.ok());
    EXPECT_NE(encoderDecoder.error().find("encoder-decoder"), std::string::npos) << encoderDecoder.error();
    Expected<PretrainedModel> bare = openPretrainedModel(std::string(testDataDir()) + "/circuits/bert_bare");
    ASSERT_TRUE(bare.ok()) << bare.error();
    ASSERT_FALSE(bare->hasReadout());
    const Status noReadout = checkPatchingModel(*bare);
    ASSERT_FALSE(noReadout.ok());
    EXPECT_NE(noReadout.error().find("no readout"), std::string::npos) << noReadout.error();
}

TEST(PatchingRefusals, AnAnswerThatCutsIntoSeveralTokensIsRefusedNamingThem)
{
    const PretrainedModel model = openFixture("gpt2");
    Expected<std::int32_t> one = singleTokenId(model, "a", "answer");
    ASSERT_TRUE(one.ok()) << one.error();
    EXPECT_EQ(*one, 64);
    Expected<std::int32_t> several = singleTokenId(model, "zqxj", "answer");
    ASSERT_FALSE(several.ok());
    EXPECT_NE(several.error().find("must be one token"), std::string::npos) << several.error();
    EXPECT_NE(several.error().find("\"z\""), std::string::npos) << several.error();
}

}  // namespace
}  // namespace qkv
