// Applying a file to a session (core/session/apply_weights.hpp): the one rule the app's Load
// Weights and Open Checkpoint and the command line's --weights [--layer] share.
#include <gtest/gtest.h>

#include "core/config/examples.hpp"
#include "core/config/validation.hpp"
#include "core/session/apply_weights.hpp"

namespace qkv {
namespace {

std::shared_ptr<const AttentionWeights> weightsOf(Index d_model, Index keyValueWidth, bool withBias = false)
{
    return std::make_shared<const AttentionWeights>(
        initialiseWeights(d_model, keyValueWidth, 7, WeightInit::XavierUniform, withBias));
}

TEST(ApplyWeightsFile, SizesFollowTheFileAndHMovesToTheNearestValidHeadCount)
{
    Session session;
    session.config = builtInExample();
    session.config.headCount = 3;  // divides 48, not 32
    session.config.d_model = 48;
    const std::vector<std::string> notes = applyWeightsFile(session, weightsOf(32, 32, true), "w.safetensors");
    EXPECT_EQ(session.config.d_model, 32);
    EXPECT_EQ(session.config.headCount, nearestValidHeadCount(32, 3));
    EXPECT_EQ(session.config.headCount, 4);
    EXPECT_TRUE(session.config.withBias);
    EXPECT_EQ(session.config.keyValueHeadCount, 0);  // multi-head: W^K is d_model wide
    EXPECT_EQ(session.weightsProvenance.file, "w.safetensors");
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("h is 4"), std::string::npos) << notes[0];
}

TEST(ApplyWeightsFile, GFollowsTheWidthOfTheKeyProjection)
{
    Session session;
    session.config = builtInExample();  // d_model 64, h 4
    session.config.keyValueHeadCount = 4;
    EXPECT_TRUE(applyWeightsFile(session, weightsOf(64, 32), "gqa.safetensors").empty());
    EXPECT_EQ(session.config.keyValueHeadCount, 2);  // 32 = g d_k, d_k = 16
}

TEST(ApplyWeightsFile, ModelEmbeddingsBecomeWordsAndNullReturnsToGeneratedWeights)
{
    Session session;
    session.config = builtInExample();
    session.config.embeddings = EmbeddingKind::Model;
    session.weightsProvenance = {"model.safetensors", "h.0.attn", {}};
    applyWeightsFile(session, weightsOf(64, 64), "plain.safetensors");
    EXPECT_EQ(session.config.embeddings, EmbeddingKind::Word);
    EXPECT_EQ(session.weightsProvenance.layer, "");
    applyWeightsFile(session, nullptr, "ignored");
    EXPECT_EQ(session.weights, nullptr);
    EXPECT_EQ(session.weightsProvenance.file, "");
}

TEST(ApplyCheckpointLayer, PresetsAndSwitchedOffHeadsAreClearedAndTheTokenScaleIsOne)
{
    Session session;
    session.config = builtInExample();
    session.config.presets = {{0, HeadPresetKind::PreviousToken, 1.0, 1}};
    session.config.ablatedHeads = {1};
    session.config.tokenEmbeddingScale = 0.25f;
    CheckpointLayerSettings settings;
    settings.d_model = 16;
    settings.headCount = 2;
    settings.keyValueHeadCount = 2;
    settings.mode = AttentionMode::DecoderCausal;
    const AppliedCheckpointLayer applied = applyCheckpointLayer(
        session, {weightsOf(16, 16), settings, "/m/model.safetensors", "h.0.attn", nullptr, {}, {}});
    EXPECT_TRUE(applied.headChangesCleared);
    EXPECT_TRUE(session.config.presets.empty());
    EXPECT_TRUE(session.config.ablatedHeads.empty());
    EXPECT_EQ(session.config.tokenEmbeddingScale, 1.0f);
    EXPECT_EQ(session.config.d_model, 16);
    EXPECT_EQ(session.config.headCount, 2);
    EXPECT_EQ(session.config.mode, AttentionMode::DecoderCausal);
    EXPECT_EQ(session.weightsProvenance.file, "/m/model.safetensors");
    EXPECT_EQ(session.weightsProvenance.layer, "h.0.attn");
    EXPECT_TRUE(validateConfig(session.config).empty()) << describe(validateConfig(session.config));
}

CheckpointLayerSettings causalLayerSettings()
{
    CheckpointLayerSettings settings;
    settings.d_model = 16;
    settings.headCount = 2;
    settings.keyValueHeadCount = 2;
    settings.mode = AttentionMode::DecoderCausal;
    return settings;
}

// A document that shows a model trained in the app: its model, an edited layer, user embeddings,
// heads switched off in the whole model, a seed and scales of its own.
Session trainedDocument()
{
    Session session;
    session.config = builtInExample();
    session.config.sourceText = "the cat sat";
    session.config.targetText = "le chat";
    session.config.seed = 99;
    session.config.scales.query = 2.0;
    session.config.ablatedHeads = {1};
    session.model = std::make_shared<const TrainedModel>();
    session.modelLayer = 2;
    session.sourceEmbeddings = std::make_shared<const MatrixF>(MatrixF::Ones(3, 64));
    session.sourceEmbeddingsFile = "x.npy";
    session.view.tab = "model";
    session.view.colormap = "magma";
    session.view.zoom = 2.0;
    session.view.head = 3;
    session.view.query = 2;
    session.view.modelHeadsOff = {"1.1"};
    return session;
}

TEST(ApplyCheckpointLayer, ATrainedModelGivesWayToTheCheckpointsLayer)
{
    Session session = trainedDocument();
    applyCheckpointLayer(session, {weightsOf(16, 16), causalLayerSettings(), "/m/model.safetensors", "h.0.attn",
                                   nullptr, {}, {}});
    EXPECT_EQ(session.model, nullptr);
    EXPECT_EQ(session.modelLayer, 0);
}

TEST(SessionOnCheckpointLayer, NothingOfTheDocumentBeforeStaysButItsSentencesAndLooks)
{
    const Session before = trainedDocument();
    const Session opened = sessionOnCheckpointLayer(
        before, {weightsOf(16, 16), causalLayerSettings(), "/m/model.safetensors", "h.0.attn", nullptr, {}, {}});
    EXPECT_EQ(opened.model, nullptr);
    EXPECT_EQ(opened.sourceEmbeddings, nullptr);
    EXPECT_EQ(opened.sourceEmbeddingsFile, "");
    EXPECT_EQ(opened.config.seed, builtInExample().seed);
    EXPECT_EQ(opened.config.scales.query, builtInExample().scales.query);
    EXPECT_TRUE(opened.config.ablatedHeads.empty());
    EXPECT_EQ(opened.config.sourceText, "the cat sat");
    EXPECT_EQ(opened.config.targetText, "le chat");
    EXPECT_EQ(opened.config.d_model, 16);
    EXPECT_EQ(opened.config.mode, AttentionMode::DecoderCausal);
    EXPECT_EQ(opened.weightsProvenance.layer, "h.0.attn");
    EXPECT_EQ(opened.view.tab, "model");
    EXPECT_EQ(opened.view.colormap, "magma");
    EXPECT_EQ(opened.view.zoom, 2.0);
    EXPECT_EQ(opened.view.head, 0);
    EXPECT_EQ(opened.view.query, 0);
    EXPECT_TRUE(opened.view.modelHeadsOff.empty());
    EXPECT_TRUE(validateConfig(opened.config).empty()) << describe(validateConfig(opened.config));
}

TEST(SessionOnCheckpointLayer, TheOpeningSentenceAndChosenPositionsAreUsed)
{
    const Session before = trainedDocument();
    const Session opened = sessionOnCheckpointLayer(
        before, {weightsOf(16, 16), causalLayerSettings(), "/m/model.safetensors", "h.0.attn", nullptr, {}, {}},
        {PositionalEncoding::RotaryInterleaved, std::string("a b c a b")});
    EXPECT_EQ(opened.config.targetText, "a b c a b");
    EXPECT_EQ(opened.config.positional, PositionalEncoding::RotaryInterleaved);
}

}  // namespace
}  // namespace qkv
