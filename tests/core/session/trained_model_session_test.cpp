// A session that holds a trained model: written and read back bit for bit, and every corrupt or
// hostile model section refused with a message naming the field, never a crash.
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "core/common/random.hpp"
#include "core/session/session.hpp"
#include "core/session/trained_session.hpp"
#include "support/trained_model_fixture.hpp"

namespace qkv {
namespace {

using Json = nlohmann::json;
using testing::smallTrainedModel;

Session trainedSession(ScoreForm form = ScoreForm::Factored)
{
    std::shared_ptr<const TrainedModel> model = smallTrainedModel(form);
    const Index layer = 2;  // decoder.0.cross_attention
    Session s;
    s.config = trainedLayerConfig(*model, layer, "the black cat", "der schwarze katze");
    s.model = std::move(model);
    s.modelLayer = layer;
    s.view.head = 1;
    return s;
}

template <class T>
bool sameBits(const T& a, const T& b)
{
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

void expectSameModel(const TrainedModel& a, const TrainedModel& b)
{
    EXPECT_TRUE(a.parameters.spec == b.parameters.spec);
    ASSERT_EQ(a.parameters.tensors.size(), b.parameters.tensors.size());
    for (std::size_t i = 0; i < a.parameters.tensors.size(); ++i) {
        const TensorSlot &x = a.parameters.tensors[i], &y = b.parameters.tensors[i];
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.rows, y.rows);
        EXPECT_EQ(x.cols, y.cols);
        EXPECT_EQ(x.offset, y.offset);
        EXPECT_EQ(x.decays, y.decays);
    }
    ASSERT_EQ(a.parameters.values.size(), b.parameters.values.size());
    EXPECT_EQ(std::memcmp(a.parameters.values.data(), b.parameters.values.data(), a.parameters.values.size() * sizeof(float)), 0);
    EXPECT_EQ(a.vocabulary.tokens(), b.vocabulary.tokens());

    const TrainingSettings &s = a.settings, &t = b.settings;
    EXPECT_EQ(s.task.kind, t.task.kind);
    EXPECT_EQ(s.task.language, t.task.language);
    EXPECT_EQ(s.task.pairsFile, t.task.pairsFile);
    EXPECT_EQ(s.task.seed, t.task.seed);
    EXPECT_EQ(s.task.heldOutCount, t.task.heldOutCount);
    EXPECT_EQ(s.variant, t.variant);
    EXPECT_EQ(s.d_model, t.d_model);
    EXPECT_EQ(s.headCount, t.headCount);
    EXPECT_EQ(s.layers, t.layers);
    EXPECT_EQ(s.steps, t.steps);
    EXPECT_EQ(s.batch, t.batch);
    EXPECT_TRUE(sameBits(s.optimizer.learningRate, t.optimizer.learningRate));
    EXPECT_TRUE(sameBits(s.optimizer.beta1, t.optimizer.beta1));
    EXPECT_TRUE(sameBits(s.optimizer.beta2, t.optimizer.beta2));
    EXPECT_TRUE(sameBits(s.optimizer.epsilon, t.optimizer.epsilon));
    EXPECT_TRUE(sameBits(s.optimizer.weightDecay, t.optimizer.weightDecay));
    EXPECT_TRUE(sameBits(s.optimizer.clipNorm, t.optimizer.clipNorm));
    EXPECT_EQ(s.optimizer.warmupSteps, t.optimizer.warmupSteps);
    EXPECT_EQ(s.seed, t.seed);

    ASSERT_EQ(a.curve.size(), b.curve.size());
    for (std::size_t i = 0; i < a.curve.size(); ++i) {
        const CurvePoint &p = a.curve[i], &q = b.curve[i];
        EXPECT_EQ(p.step, q.step);
        for (double CurvePoint::*m : {&CurvePoint::seconds, &CurvePoint::loss, &CurvePoint::accuracy,
                                      &CurvePoint::heldOutLoss, &CurvePoint::heldOutAccuracy,
                                      &CurvePoint::heldOutSequenceAccuracy})
            EXPECT_TRUE(sameBits(p.*m, q.*m)) << "curve point " << i << ": " << p.*m << " became " << q.*m;
    }
    EXPECT_EQ(a.steps, b.steps);
    EXPECT_TRUE(sameBits(a.heldOutAccuracy, b.heldOutAccuracy));
}

TEST(TrainedModelSession, RoundTripIsBitForBit)
{
    for (const ScoreForm form : {ScoreForm::Factored, ScoreForm::Full}) {
        const Session original = trainedSession(form);
        const std::string json = sessionToJson(original);
        EXPECT_NE(json.find("\"version\": 2"), std::string::npos);
        const auto parsed = parseSession(json, "trained.qkv.json");
        ASSERT_TRUE(parsed.ok()) << parsed.error();
        EXPECT_TRUE(parsed->config == original.config);
        EXPECT_TRUE(parsed->view == original.view);
        EXPECT_EQ(parsed->modelLayer, original.modelLayer);
        ASSERT_TRUE(parsed->model);
        expectSameModel(*original.model, *parsed->model);
        // Written again, the same text: nothing drifts over repeated saves.
        EXPECT_EQ(sessionToJson(*parsed), json);
    }
}

TEST(TrainedModelSession, WrittenAndReadAsAFile)
{
    const auto path = std::filesystem::temp_directory_path() / ("qkv-trained-" + std::to_string(::getpid()) + ".qkv.json");
    const Session original = trainedSession();
    ASSERT_TRUE(writeSession(path.string(), original).ok());
    const auto read = readSession(path.string());
    std::filesystem::remove(path);
    ASSERT_TRUE(read.ok()) << read.error();
    expectSameModel(*original.model, *read->model);
}

TEST(TrainedModelSession, WithoutAModelTheFileStaysVersionOne)
{
    Session s = trainedSession();
    s.model.reset();
    const std::string json = sessionToJson(s);
    EXPECT_NE(json.find("\"version\": 1"), std::string::npos);
    EXPECT_EQ(json.find("\"model\""), std::string::npos);
}

TEST(TrainedModelSession, FirstShownLayerIsTheCrossAttentionOrTheLastLayer)
{
    const ModelSpec spec = smallTrainedModel()->parameters.spec;
    EXPECT_EQ(attentionLayers(spec).at(static_cast<std::size_t>(firstShownLayer(spec))).name, "decoder.0.cross_attention");
    ModelSpec decoderOnly = spec;
    decoderOnly.encoderLayers = 0;
    EXPECT_EQ(attentionLayers(decoderOnly).at(static_cast<std::size_t>(firstShownLayer(decoderOnly))).name,
              "decoder.1.self_attention");
}

// ---- corrupt model sections --------------------------------------------------------------

Json trainedJson() { return Json::parse(sessionToJson(trainedSession())); }

void expectRefused(const Json& doc, const std::string& fragment)
{
    const auto parsed = parseSession(doc.dump(), "bad.qkv.json");
    ASSERT_FALSE(parsed.ok()) << "accepted a session that should be refused for: " << fragment;
    EXPECT_NE(parsed.error().find("bad.qkv.json"), std::string::npos) << parsed.error();
    EXPECT_NE(parsed.error().find(fragment), std::string::npos) << "wanted «" << fragment << "» in: " << parsed.error();
}

TEST(TrainedModelSession, WrongShapeOrMissingOrExtraTensorIsNamed)
{
    Json doc = trainedJson();
    doc["model"]["tensors"]["readout.W"]["shape"] = {8, 10};
    expectRefused(doc, "model.tensors.readout.W: is 8 x 10, expected 8 x 11");

    doc = trainedJson();
    doc["model"]["tensors"].erase("decoder.1.cross_attention.W_K");
    expectRefused(doc, "model.tensors.decoder.1.cross_attention.W_K: missing");

    doc = trainedJson();
    doc["model"]["tensors"]["decoder.7.mlp.W_in"] = doc["model"]["tensors"]["readout.W"];
    expectRefused(doc, "'decoder.7.mlp.W_in' is not a tensor of this model");

    doc = trainedJson();
    std::string& data = doc["model"]["tensors"]["embedding.token"]["data"].get_ref<std::string&>();
    data.resize(data.size() - 8);
    expectRefused(doc, "model.tensors.embedding.token: holds");
}

TEST(TrainedModelSession, NaNInATensorIsRefused)
{
    Session s = trainedSession();
    auto model = std::make_shared<TrainedModel>(*s.model);
    model->parameters.tensor("decoder.0.cross_attention.W_Q")(3, 1) = std::numeric_limits<float>::quiet_NaN();
    s.model = model;
    expectRefused(Json::parse(sessionToJson(s)), "model.tensors.decoder.0.cross_attention.W_Q: holds NaN or infinite");
}

TEST(TrainedModelSession, VocabularyMustMatchTheSpec)
{
    Json doc = trainedJson();
    doc["model"]["vocabulary"].erase(doc["model"]["vocabulary"].size() - 1);
    expectRefused(doc, "model.vocabulary: has 10 tokens but the model's vocabulary_size is 11");

    doc = trainedJson();
    doc["model"]["vocabulary"][4] = "the";  // a duplicate
    expectRefused(doc, "model.vocabulary: ");

    doc = trainedJson();
    doc["model"]["vocabulary"][0] = "<unk>";
    expectRefused(doc, "model.vocabulary: ");

    doc = trainedJson();
    doc["model"]["vocabulary"][5] = 17;
    expectRefused(doc, "model.vocabulary: each token must be a string");
}

TEST(TrainedModelSession, UnknownSpellingsAreNamed)
{
    for (const auto& [section, key, bad] :
         {std::tuple{"spec", "score_form", "diagonal"}, std::tuple{"spec", "norm", "batchnorm"},
          std::tuple{"spec", "norm_placement", "middle"}, std::tuple{"spec", "activation", "tanh"},
          std::tuple{"spec", "positions", "rotary"}, std::tuple{"training", "task", "summarise"},
          std::tuple{"training", "language", "es"}, std::tuple{"training", "variant", "diagonal"}}) {
        Json doc = trainedJson();
        doc["model"][section][key] = bad;
        expectRefused(doc, std::string("model.") + section + "." + key + ": '" + bad + "' is not one of");
    }
}

TEST(TrainedModelSession, InconsistentOrOutOfRangeFieldsAreNamed)
{
    Json doc = trainedJson();
    doc["model"]["spec"]["heads"] = 3;
    expectRefused(doc, "model.spec: h = 3 does not divide d_model = 8");

    doc = trainedJson();
    doc["model"]["spec"].erase("d_ff");
    expectRefused(doc, "model.spec.d_ff: missing");

    doc = trainedJson();
    doc["model"]["training"]["variant"] = "full";
    expectRefused(doc, "model.training.variant: 'full' but the spec's score_form is 'factored'");

    doc = trainedJson();
    doc["model"]["training"]["learning_rate"] = -1;
    expectRefused(doc, "model.training.learning_rate: must be a number above 0");

    doc = trainedJson();
    doc["model"]["layer"] = "decoder.5.cross_attention";
    expectRefused(doc, "model.layer: 'decoder.5.cross_attention' is not an attention layer of this model");

    doc = trainedJson();
    doc["model"]["curve"]["loss"].erase(0);
    expectRefused(doc, "model.curve.loss: has 2 values for 3 steps");

    doc = trainedJson();
    doc["model"]["curve"]["accuracy"][1] = "lots";
    expectRefused(doc, "model.curve.accuracy: each must be a number");

    doc = trainedJson();
    doc["model"] = "a model";
    expectRefused(doc, "model: must be an object");

    doc = trainedJson();
    doc["version"] = 3;
    expectRefused(doc, "newer QKV Studio");
}

// A huge spec in a small file is refused before anything is allocated for it.
TEST(TrainedModelSession, HugeSpecInASmallFileIsRefusedWithoutAllocating)
{
    Json doc = trainedJson();
    doc["model"]["spec"]["vocabulary_size"] = 65536;
    doc["model"]["spec"]["d_model"] = 1024;
    doc["model"]["spec"]["heads"] = 2;
    doc["model"]["training"]["d_model"] = 1024;
    expectRefused(doc, "model.vocabulary: has 11 tokens");
    doc["model"]["vocabulary"] = Json::array({"<pad>", "<bos>", "<eos>"});
    for (int i = 3; i < 65536; ++i) doc["model"]["vocabulary"].push_back("w" + std::to_string(i));
    expectRefused(doc, "model.tensors.");
}

// Seeded mutations of a trained session: each gives a session or a message, never a crash.
TEST(TrainedModelSession, MutatedSessionsNeverCrash)
{
    const std::string good = sessionToJson(trainedSession());
    const std::size_t modelAt = good.find("\"model\"");
    ASSERT_NE(modelAt, std::string::npos);
    SplitMix64 random(2026);
    int accepted = 0;
    for (int round = 0; round < 300; ++round) {
        std::string text = good;
        const int edits = 1 + static_cast<int>(random.next() % 3);
        for (int e = 0; e < edits; ++e) {
            // Mostly inside the model section, where the new reader is.
            const std::size_t at = modelAt + random.next() % (text.size() - modelAt);
            switch (random.next() % 4) {
            case 0: text[at] = static_cast<char>(random.next() & 0xff); break;
            case 1: text.erase(at, 1 + random.next() % 16); break;
            case 2: {
                const char pieces[] = "[{\"0-9e,:n";
                text.insert(at, std::string(1 + random.next() % 8, pieces[random.next() % 10]));
                break;
            }
            case 3: text.resize(at); break;
            }
            if (text.size() <= modelAt + 1) text = good.substr(0, modelAt + 2);
        }
        const auto parsed = parseSession(text, "mutated");
        if (parsed.ok()) ++accepted;
        else EXPECT_FALSE(parsed.error().empty());
    }
    RecordProperty("accepted", accepted);
}

}  // namespace
}  // namespace qkv
