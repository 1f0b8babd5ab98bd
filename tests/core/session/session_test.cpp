// Sessions: every field survives a save and an open, and the result computed from the opened
// session is the same, bit for bit.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/checkpoint/checkpoint.hpp"
#include "core/config/examples.hpp"
#include "core/io/weights_file.hpp"
#include "core/pipeline/compute.hpp"
#include "core/session/session.hpp"
#include "support/matrix_assertions.hpp"
#include "support/test_folder.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

// A session that sets every field away from its default.
Session everyFieldSession()
{
    Session s;
    Config& c = s.config;
    c = builtInExample();
    c.mode = AttentionMode::EncoderSelf;
    c.sourceText = "Die schwarze Katze saß auf der Matte, weil sie müde war. \"quoted\" \\ \t";
    c.targetText = "x";
    c.d_model = 48;
    c.headCount = 6;
    c.keyValueHeadCount = 3;
    c.seed = 18446744073709551615ull;  // the largest seed survives JSON
    c.init = WeightInit::Normal;
    c.positional = PositionalEncoding::RotaryInterleaved;
    c.conventions.ropeBase = 500000.0;
    c.embeddings = EmbeddingKind::Meaning;
    c.tokenEmbeddingScale = 0.1f;
    c.withBias = true;
    c.scaleScores = false;
    c.scales = {0.5f, 2.0f, 1.25f, 3.0f};
    c.presets = {{0, HeadPresetKind::Uniform, 1.0, 1}, {4, HeadPresetKind::LowRank, 0.75, 3}};
    c.ablatedHeads = {1, 5};

    AttentionWeights w = initialiseWeights(48, c.g() * c.d_k(), 5, WeightInit::Normal, true);
    w.queryProjection(3, 4) = 1.5f;  // an edit
    w.keyBias->setConstant(0.25f);
    s.weights = std::make_shared<const AttentionWeights>(std::move(w));
    s.weightsProvenance.file = "layer.safetensors";
    s.weightsProvenance.layer = "h.0.attn";
    s.weightsProvenance.heads = {HeadOrigin::File, HeadOrigin::Edited, HeadOrigin::File,
                                 HeadOrigin::File, HeadOrigin::Generated, HeadOrigin::File};
    s.sourceEmbeddings = std::make_shared<const MatrixF>(MatrixF::Random(7, 48));
    s.sourceEmbeddingsFile = "source.npy";

    s.view.tab = "factored";
    s.view.head = 2;
    s.view.query = 3;
    s.view.key = 1;
    s.view.colormap = "magma";
    s.view.show = "raw-scores";
    s.view.averageOfHeads = true;
    s.view.blockMaxima = true;
    s.view.querySpanEnd = 9;  // queries [view.query, 9) selected together
    s.view.colorRange = {ColorRange::Mode::Fixed, -0.5, 2.5};
    s.view.zoom = 1.75;
    s.view.modelHeadsOff = {"3.2", "bert.encoder.layer.0.attention.1"};
    return s;
}

void expectSameSession(const Session& a, const Session& b)
{
    EXPECT_TRUE(a.config == b.config);
    EXPECT_TRUE(a.view == b.view);
    ASSERT_EQ(static_cast<bool>(a.weights), static_cast<bool>(b.weights));
    if (a.weights) {
        EXPECT_EQ(a.weights->queryProjection, b.weights->queryProjection);
        EXPECT_EQ(a.weights->keyProjection, b.weights->keyProjection);
        EXPECT_EQ(a.weights->valueProjection, b.weights->valueProjection);
        EXPECT_EQ(a.weights->outputProjection, b.weights->outputProjection);
        ASSERT_EQ(a.weights->hasBias(), b.weights->hasBias());
        if (a.weights->hasBias()) {
            EXPECT_EQ(*a.weights->queryBias, *b.weights->queryBias);
            EXPECT_EQ(*a.weights->keyBias, *b.weights->keyBias);
            EXPECT_EQ(*a.weights->valueBias, *b.weights->valueBias);
            EXPECT_EQ(*a.weights->outputBias, *b.weights->outputBias);
        }
    }
    EXPECT_EQ(a.weightsProvenance.file, b.weightsProvenance.file);
    EXPECT_EQ(a.weightsProvenance.layer, b.weightsProvenance.layer);
    EXPECT_EQ(a.weightsProvenance.heads, b.weightsProvenance.heads);
    ASSERT_EQ(static_cast<bool>(a.sourceEmbeddings), static_cast<bool>(b.sourceEmbeddings));
    if (a.sourceEmbeddings) {
        EXPECT_EQ(*a.sourceEmbeddings, *b.sourceEmbeddings);
    }
    EXPECT_EQ(a.sourceEmbeddingsFile, b.sourceEmbeddingsFile);
    EXPECT_EQ(static_cast<bool>(a.targetEmbeddings), static_cast<bool>(b.targetEmbeddings));
}

TEST(Session, EveryFieldRoundTrips)
{
    const Session original = everyFieldSession();
    const auto parsed = parseSession(sessionToJson(original), "test.qkv.json");
    ASSERT_TRUE(parsed.ok()) << parsed.error();
    expectSameSession(original, *parsed);
}

// Sessions without heads switched off in a whole model are written as before: older builds and
// tools see no new field. A malformed list is refused naming the field.
TEST(Session, ModelHeadsOffAreWrittenOnlyWhenSomeAreOff)
{
    Session s;
    s.config = builtInExample();
    EXPECT_EQ(sessionToJson(s).find("model_heads_off"), std::string::npos);
    s.view.modelHeadsOff = {"1.1"};
    const std::string json = sessionToJson(s);
    EXPECT_NE(json.find("\"model_heads_off\""), std::string::npos);
    for (const char* bad : {"\"model_heads_off\": 3", "\"model_heads_off\": [1]", "\"model_heads_off\": [\"\"]"}) {
        std::string broken = json;
        const std::size_t at = broken.find("\"model_heads_off\"");
        const std::size_t end = broken.find(']', at);
        broken.replace(at, end + 1 - at, bad);
        const auto parsed = parseSession(broken, "x.qkv.json");
        ASSERT_FALSE(parsed.ok()) << bad;
        EXPECT_NE(parsed.error().find("view.model_heads_off"), std::string::npos) << parsed.error();
    }
}

TEST(Session, GeneratedWeightsAreNotStored)
{
    Session s;
    s.config = builtInExample();
    const std::string json = sessionToJson(s);
    EXPECT_EQ(json.find("\"tensors\""), std::string::npos);
    EXPECT_NE(json.find("\"weights\": null"), std::string::npos);
    const auto parsed = parseSession(json, "x");
    ASSERT_TRUE(parsed.ok()) << parsed.error();
    EXPECT_FALSE(parsed->weights);
    EXPECT_TRUE(parsed->config == s.config);
}

TEST(Session, OpenedSessionComputesTheSameBits)
{
    Session s = everyFieldSession();
    s.config.positional = PositionalEncoding::Sinusoidal;  // the source sentence's 7 rows replace X
    const auto before = compute(s.config, s.inputs());
    ASSERT_TRUE(before.ok()) << before.error();
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("qkv-session-" + std::to_string(::getpid()) + ".qkv.json")).string();
    ASSERT_TRUE(writeSession(path, s).ok());
    const auto opened = readSession(path);
    std::filesystem::remove(path);
    ASSERT_TRUE(opened.ok()) << opened.error();
    const auto after = compute(opened->config, opened->inputs());
    ASSERT_TRUE(after.ok()) << after.error();
    EXPECT_EQ((*before)->attention.output, (*after)->attention.output);
    for (Index head = 0; head < s.config.headCount; ++head)
        EXPECT_EQ((*before)->attention.heads[head].attention, (*after)->attention.heads[head].attention);
}

// A loaded Qwen3 layer in a session: heads wider than d_model / h (W^Q 32 x 64), rotary
// positions, and q_norm / k_norm. The saved session opens to the same bits; the norms are kept.
TEST(Session, ALoadedLayerWithWideHeadsAndQueryKeyNormsRoundTrips)
{
    const std::string path = std::string(qkv::testDataDir()) + "/pretrained/qwen3/model.safetensors";
    Expected<CheckpointLayerWeights> layer = loadCheckpointLayer(path, "0");
    ASSERT_TRUE(layer) << layer.error();
    Session s;
    s.config = builtInExample();
    s.config.mode = AttentionMode::DecoderCausal;
    applyCheckpointLayerSettings(layer->settings, s.config);
    s.weights = std::make_shared<const AttentionWeights>(layer->weights);
    ASSERT_TRUE(s.weights->hasQueryKeyNorm());
    const auto before = compute(s.config, s.inputs());
    ASSERT_TRUE(before.ok()) << before.error();
    const auto opened = parseSession(sessionToJson(s), "qwen3.qkv.json");
    ASSERT_TRUE(opened.ok()) << opened.error();
    ASSERT_TRUE(opened->weights);
    EXPECT_TRUE(opened->weights->queryProjection == s.weights->queryProjection);
    ASSERT_TRUE(opened->weights->hasQueryKeyNorm());
    EXPECT_TRUE(*opened->weights->queryNorm == *s.weights->queryNorm);
    EXPECT_TRUE(*opened->weights->keyNorm == *s.weights->keyNorm);
    EXPECT_EQ(opened->weights->queryKeyNormEpsilon, s.weights->queryKeyNormEpsilon);
    const auto after = compute(opened->config, opened->inputs());
    ASSERT_TRUE(after.ok()) << after.error();
    EXPECT_EQ((*before)->attention.output, (*after)->attention.output);
    // The norms act: without them the scores differ.
    Session plain = s;
    auto unnormed = std::make_shared<AttentionWeights>(*s.weights);
    unnormed->queryNorm.reset();
    unnormed->keyNorm.reset();
    plain.weights = unnormed;
    const auto without = compute(plain.config, plain.inputs());
    ASSERT_TRUE(without.ok()) << without.error();
    EXPECT_NE((*without)->attention.heads[0].scores, (*before)->attention.heads[0].scores);
    // A weights file holds the four projections only: it says so rather than drop the norms.
    TestFolder folder("qk_norms");
    const std::filesystem::path file = folder.path() / "weights.safetensors";
    const Status saved = saveAttentionWeights(file.string(), *s.weights);
    ASSERT_FALSE(saved);
    EXPECT_NE(saved.error().find("q_norm, k_norm"), std::string::npos) << saved.error();
    EXPECT_FALSE(std::filesystem::exists(file)) << "refused before anything is written";
}

TEST(Session, HeadTitlesSayWhereEachHeadComesFrom)
{
    Session s = everyFieldSession();
    EXPECT_EQ(headOriginText(s, 0), "uniform");   // preset
    EXPECT_EQ(headOriginText(s, 1), "edited");
    EXPECT_EQ(headOriginText(s, 2), "from file");
    EXPECT_EQ(headOriginText(s, 4), "low rank");  // a preset wins over the stored origin
    s.weights.reset();
    s.config.presets.clear();
    EXPECT_EQ(headOriginText(s, 1), "random");
    // A trained model's own heads, unless the user's weights or a preset stand over them.
    s.model = std::make_shared<const TrainedModel>();
    EXPECT_EQ(headOriginText(s, 1), "trained");
    s.config.presets = {{1, HeadPresetKind::Uniform, 1.0, 1}};
    EXPECT_EQ(headOriginText(s, 1), "uniform");
}

TEST(Session, APromptLongerThanTheViewsDrawIsKept)
{
    // 5,000 tokens: past the 4,096 of held maps, within the 32,768 of a streamed layer. The file
    // keeps it; the app and each export say what they can do with it.
    Session s;
    s.config.mode = AttentionMode::DecoderCausal;
    for (int i = 0; i < 5000; ++i) s.config.targetText += "w ";
    const std::string path = (std::filesystem::temp_directory_path() / "qkv_long_prompt.qkv.json").string();
    ASSERT_TRUE(writeSession(path, s).ok());
    const Expected<Session> opened = readSession(path);
    ASSERT_TRUE(opened.ok()) << opened.error();
    EXPECT_EQ(opened->config.targetText, s.config.targetText);
    std::filesystem::remove(path);
}

TEST(Session, NewerVersionIsRefusedWithTheReason)
{
    Session s;
    s.config = builtInExample();
    std::string json = sessionToJson(s);
    // Without a trained model the file says version 1, the oldest that reads it whole.
    const std::string current = "\"version\": 1";
    ASSERT_NE(json.find(current), std::string::npos);
    json.replace(json.find(current), current.size(), "\"version\": " + std::to_string(sessionFormatVersion + 1));
    const auto parsed = parseSession(json, "future.qkv.json");
    ASSERT_FALSE(parsed.ok());
    EXPECT_NE(parsed.error().find("future.qkv.json"), std::string::npos) << parsed.error();
    EXPECT_NE(parsed.error().find("newer QKV Studio"), std::string::npos) << parsed.error();
}

}  // namespace
}  // namespace qkv
