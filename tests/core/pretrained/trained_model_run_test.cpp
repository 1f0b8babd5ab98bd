// A model trained in the app, run whole from its description (trained_model_recipe.hpp): the one
// forward pass (runPretrainedModel) gives the trainable forward's own logits (traceExample) and
// every layer's attention maps, for each shape a trained model takes: encoder-decoder or decoder
// only, pre- or post-norm or none, ReLU or GELU, sinusoidal or learned positions, the scaled
// embedding or not, an MLP or none, factored or full W_i heads.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "core/pretrained/model_run.hpp"
#include "core/pretrained/trained_model_recipe.hpp"
#include "core/training/trained_model.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

struct Shape {
    std::string name;
    bool encoder = true;
    NormKind norm = NormKind::LayerNorm;
    NormPlacement placement = NormPlacement::Pre;
    Activation activation = Activation::Relu;
    PositionKind positions = PositionKind::Sinusoidal;
    ScoreForm form = ScoreForm::Factored;
    bool scaleEmbedding = true;
    Index d_ff = 12;
};

// A model of `shape` whose every parameter (gammas, betas and biases too) is moved off its
// initial value, so that a norm or bias read wrongly changes the logits.
std::shared_ptr<TrainedModel> modelOf(const Shape& shape)
{
    auto model = std::make_shared<TrainedModel>();
    for (const char* word : {"a", "b", "c", "d", "e", "f"}) model->vocabulary.add(word);
    ModelSpec spec;
    spec.vocabularySize = model->vocabulary.size();
    spec.maxPositions = 9;
    spec.d_model = 8;
    spec.headCount = 2;
    spec.encoderLayers = shape.encoder ? 2 : 0;
    spec.decoderLayers = 2;
    spec.d_ff = shape.d_ff;
    spec.norm = shape.norm;
    spec.placement = shape.placement;
    spec.activation = shape.activation;
    spec.positions = shape.positions;
    spec.scoreForm = shape.form;
    spec.scaleEmbedding = shape.scaleEmbedding;
    model->parameters = ModelParameters<float>::initialised(spec, 11);
    std::mt19937 random(5);
    std::normal_distribution<float> noise(0.0f, 0.3f);
    for (float& value : model->parameters.values) value += noise(random);
    model->settings.variant = shape.form;
    return model;
}

// 1e-5 relative to the largest entry (a model without norms lets the stream grow to ~30).
double tolerance(const MatrixF& expected) { return 1e-5 * std::max(1.0, double(expected.cwiseAbs().maxCoeff())); }

std::vector<std::int32_t> ids(const TrainedModel& model, const std::string& words)
{
    return *model.vocabulary.encode(words);
}

class TrainedModelRun : public ::testing::TestWithParam<Shape> {};

TEST_P(TrainedModelRun, GivesTheTrainableForwardsLogitsAndMaps)
{
    const std::shared_ptr<TrainedModel> trained = modelOf(GetParam());
    const ModelSpec& spec = trained->parameters.spec;
    SequencePair example;
    ModelTokens tokens;
    if (spec.hasEncoder()) example.source = ids(*trained, "a b c d e");
    example.targetInput = {Vocabulary::bos};
    for (std::int32_t id : ids(*trained, "f e d c b a")) example.targetInput.push_back(id);
    example.targetOutput.assign(example.targetInput.size(), -1);
    if (spec.hasEncoder()) {
        tokens.ids = example.source;
        tokens.decoderIds = example.targetInput;
    } else {
        tokens.ids = example.targetInput;
    }
    const ModelTrace trace = traceExample(trained->parameters, example);
    ASSERT_FALSE(trace.layers.empty());

    const Expected<PretrainedModel> model = pretrainedModelOf(*trained);
    ASSERT_TRUE(model.ok()) << model.error();
    ASSERT_EQ(model->layerCount(), static_cast<Index>(trace.layers.size()));
    const Expected<ModelRun> run = runPretrainedModel(*model, tokens);
    ASSERT_TRUE(run.ok()) << run.error();
    EXPECT_MATRIX_NEAR(run->logits, trace.logits, tolerance(trace.logits));
    for (std::size_t l = 0; l < trace.layers.size(); ++l) {
        SCOPED_TRACE(trace.layers[l].info.name);
        const LayerRun& layer = run->layer(static_cast<Index>(l));
        EXPECT_EQ(layer.layer.name, trace.layers[l].info.name);
        EXPECT_EQ(layer.layer.kind, trace.layers[l].info.kind);
        EXPECT_MATRIX_NEAR(layer.queryInput, trace.layers[l].queryInput, tolerance(trace.layers[l].queryInput));
        ASSERT_EQ(layer.attention.heads.size(), trace.layers[l].attention.size());
        for (std::size_t head = 0; head < layer.attention.heads.size(); ++head)
            EXPECT_MATRIX_NEAR(layer.attention.heads[head].attention, trace.layers[l].attention[head], 1e-5);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, TrainedModelRun,
    ::testing::Values(
        Shape{.name = "EncoderDecoderPrePreluSinusoidal"},
        Shape{.name = "EncoderDecoderPostGeluLearned", .placement = NormPlacement::Post, .activation = Activation::Gelu,
              .positions = PositionKind::Learned, .scaleEmbedding = false},
        Shape{.name = "DecoderOnlyPreGeluLearned", .encoder = false, .activation = Activation::Gelu,
              .positions = PositionKind::Learned},
        Shape{.name = "DecoderOnlyPostReluSinusoidal", .encoder = false, .placement = NormPlacement::Post},
        Shape{.name = "NoNormsNoMlp", .norm = NormKind::None, .placement = NormPlacement::Post, .d_ff = 0},
        Shape{.name = "PreNormNoMlpDecoderOnly", .encoder = false, .d_ff = 0},
        Shape{.name = "FullEncoderDecoderPostGelu", .placement = NormPlacement::Post, .activation = Activation::Gelu,
              .form = ScoreForm::Full},
        Shape{.name = "FullDecoderOnlyPreLearned", .encoder = false, .positions = PositionKind::Learned,
              .form = ScoreForm::Full}),
    [](const auto& info) { return info.param.name; });

// The layers carry the trained model's names in model order, and the family says what it is.
TEST(TrainedModelRecipe, LayersAreTheTrainedModelsInModelOrder)
{
    const std::shared_ptr<TrainedModel> trained = modelOf(Shape{});
    const Expected<PretrainedModel> model = pretrainedModelOf(*trained);
    ASSERT_TRUE(model.ok()) << model.error();
    const std::vector<AttentionLayerInfo> infos = attentionLayers(trained->parameters.spec);
    ASSERT_EQ(model->layersInModelOrder.size(), infos.size());
    EXPECT_EQ(model->layersInModelOrder[3].name, "decoder.0.cross_attention");
    for (std::size_t i = 0; i < infos.size(); ++i) {
        EXPECT_EQ(model->layersInModelOrder[i].name, infos[i].name);
        EXPECT_EQ(model->modelIndexOf(infos[i].name), static_cast<Index>(i));
    }
    EXPECT_EQ(model->recipe.family, Family::Trained);
    EXPECT_EQ(familyName(model->recipe.family), "Trained in QKV Studio");
    EXPECT_FALSE(model->recipe.tiedReadout);
    EXPECT_EQ(recipeSummary(model->recipe), "pre-LayerNorm, relu, sinusoidal positions, LM head with its own weights");
    const Expected<PretrainedModel> bare = pretrainedModelOf(*modelOf(Shape{.norm = NormKind::None, .d_ff = 0}));
    ASSERT_TRUE(bare.ok()) << bare.error();
    EXPECT_EQ(recipeSummary(bare->recipe), "no norms, attention only (no MLP), sinusoidal positions, LM head with its own weights");
    EXPECT_EQ(model->recipe.decoderStartTokenId, Vocabulary::bos);
}

// The words as the model reads them: an encoder-decoder's source bare, its target with <eos>
// after it (teacher forcing drops it and puts <bos> first); a decoder-only model's <bos> first.
TEST(TrainedModelRecipe, TokenizersMarkTheSentencesAsTrainingDid)
{
    const std::shared_ptr<TrainedModel> encoderDecoder = modelOf(Shape{});
    const Expected<PretrainedModel> a = pretrainedModelOf(*encoderDecoder);
    ASSERT_TRUE(a.ok()) << a.error();
    ASSERT_TRUE(a->tokenizer && a->targetTokenizer);
    EXPECT_EQ(a->tokenizer->encode("a b c")->ids(), (std::vector<std::int32_t>{3, 4, 5}));
    EXPECT_EQ(a->targetTokenizer->encode("c a")->ids(), (std::vector<std::int32_t>{5, 3, Vocabulary::eos}));
    const Expected<SubwordTokenization> unknown = a->tokenizer->encode("a zebra");
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().find("zebra"), std::string::npos) << unknown.error();

    const std::shared_ptr<TrainedModel> decoderOnly = modelOf(Shape{.encoder = false});
    const Expected<PretrainedModel> b = pretrainedModelOf(*decoderOnly);
    ASSERT_TRUE(b.ok()) << b.error();
    EXPECT_FALSE(b->targetTokenizer);
    EXPECT_EQ(b->tokenizer->encode("c a")->ids(), (std::vector<std::int32_t>{Vocabulary::bos, 5, 3}));
    // Generated words appended to a prompt: each after a space.
    EXPECT_EQ(b->tokenizer->decodePieces({"c", "a"}), " c a");
}

// Converted once per model: the views' runs see one object while the document keeps the model.
TEST(TrainedModelRecipe, WholeTrainedModelIsConvertedOncePerModel)
{
    const std::shared_ptr<TrainedModel> one = modelOf(Shape{});
    const std::shared_ptr<TrainedModel> other = modelOf(Shape{.encoder = false});
    const std::shared_ptr<const PretrainedModel> first = wholeTrainedModel(one);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(wholeTrainedModel(one), first);
    const std::shared_ptr<const PretrainedModel> second = wholeTrainedModel(other);
    ASSERT_NE(second, nullptr);
    EXPECT_NE(second, first);
    EXPECT_EQ(second->recipe.encoderLayerCount, 0);
    EXPECT_EQ(wholeTrainedModel(nullptr), nullptr);
}

}  // namespace
}  // namespace qkv
