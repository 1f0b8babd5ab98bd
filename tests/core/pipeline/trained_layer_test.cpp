// A trained model's attention layer through the pipeline: the attention compute() gives on the
// typed sentences is the model's own (traceExample), and whatever does not fit between the
// configuration and the model is an issue under its field.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "core/pipeline/compute.hpp"
#include "core/pipeline/input_validation.hpp"
#include "core/pipeline/generation.hpp"
#include "core/pipeline/model_overview.hpp"
#include "core/pretrained/trained_model_recipe.hpp"
#include "core/pipeline/pretrained_run.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "core/pipeline/trained_layer.hpp"
#include "core/session/trained_session.hpp"
#include "support/issue_assertions.hpp"
#include "support/matrix_assertions.hpp"
#include "support/trained_model_fixture.hpp"

namespace qkv {
namespace {

using testing::smallTrainedModel;

const std::string kSource = "the black cat sat";
const std::string kTarget = "der schwarze katze saß";

UserInputs inputsFor(std::shared_ptr<const TrainedModel> model, Index layer)
{
    UserInputs inputs;
    inputs.trainedModel = std::move(model);
    inputs.trainedLayer = layer;
    return inputs;
}

// The example the model reads for those sentences: the decoder's input begins with <bos>.
SequencePair exampleFor(const TrainedModel& model)
{
    SequencePair pair;
    pair.source = *model.vocabulary.encode(kSource);
    pair.targetInput = {Vocabulary::bos};
    const std::vector<std::int32_t> target = *model.vocabulary.encode(kTarget);
    pair.targetInput.insert(pair.targetInput.end(), target.begin(), target.end());
    pair.targetOutput = target;
    pair.targetOutput.push_back(Vocabulary::eos);
    return pair;
}

using testing::mentions;

TEST(TrainedLayer, EveryLayerComputesTheModelsOwnAttention)
{
    const std::shared_ptr<const TrainedModel> model = smallTrainedModel();
    const ModelTrace trace = traceExample(model->parameters, exampleFor(*model));
    const std::vector<AttentionLayerInfo> layers = attentionLayers(model->parameters.spec);
    ASSERT_EQ(layers.size(), 5u);  // encoder self; decoder self, cross; self, cross
    for (std::size_t l = 0; l < layers.size(); ++l) {
        SCOPED_TRACE(layers[l].name);
        const Index layer = static_cast<Index>(l);
        const Config config = trainedLayerConfig(*model, layer, kSource, kTarget);
        const auto result = compute(config, inputsFor(model, layer));
        ASSERT_TRUE(result.ok()) << result.error();
        const Result& r = **result;
        const AttentionLayerTrace& expected = trace.layers[l];
        EXPECT_MATRIX_NEAR(r.queryInput, expected.queryInput, 0.0);
        EXPECT_MATRIX_NEAR(r.keyValueInput, expected.keyValueInput, 0.0);
        ASSERT_EQ(r.attention.heads.size(), expected.attention.size());
        for (std::size_t head = 0; head < expected.attention.size(); ++head)
            EXPECT_MATRIX_NEAR(r.attention.heads[head].attention, expected.attention[head], 2e-6);
        EXPECT_EQ(r.attention.mask.causal, layers[l].kind == AttentionMode::DecoderCausal);
    }
}

TEST(TrainedLayer, LabelsAreTheModelsTokensWithSpansIntoTheSentences)
{
    const std::shared_ptr<const TrainedModel> model = smallTrainedModel();
    const auto result = compute(trainedLayerConfig(*model, 2, kSource, kTarget), inputsFor(model, 2));
    ASSERT_TRUE(result.ok()) << result.error();
    const Result& r = **result;
    EXPECT_EQ(r.queryLabels, (std::vector<std::string>{"<bos>", "der", "schwarze", "katze", "saß"}));
    EXPECT_EQ(r.keyLabels, (std::vector<std::string>{"the", "black", "cat", "sat"}));
    ASSERT_EQ(r.queryTokens.size(), 5u);
    EXPECT_EQ(r.queryTokens[0].byteBegin, r.queryTokens[0].byteEnd);  // <bos> is not typed
    EXPECT_EQ(kTarget.substr(r.queryTokens[2].byteBegin, r.queryTokens[2].byteEnd - r.queryTokens[2].byteBegin),
              "schwarze");
    EXPECT_EQ(kSource.substr(r.keyTokens[3].byteBegin, r.keyTokens[3].byteEnd - r.keyTokens[3].byteBegin), "sat");
}

TEST(TrainedLayer, UnknownWordIsAnIssueUnderItsSentence)
{
    const std::shared_ptr<const TrainedModel> model = smallTrainedModel();
    Config config = trainedLayerConfig(*model, 2, "the zebra sat", "der schwarze hund");
    const std::vector<ValidationIssue> issues = validateInputs(config, inputsFor(model, 2));
    EXPECT_TRUE(mentions(issues, ConfigField::Source, "'zebra' is not in this model's vocabulary")) << describe(issues);
    EXPECT_TRUE(mentions(issues, ConfigField::Target, "'hund' is not in this model's vocabulary")) << describe(issues);
    const auto result = compute(config, inputsFor(model, 2));
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().find("zebra"), std::string::npos) << result.error();
}

TEST(TrainedLayer, ConfigurationThatDisagreesWithTheLayerIsNamedByField)
{
    const std::shared_ptr<const TrainedModel> model = smallTrainedModel();
    Config config = trainedLayerConfig(*model, 2, kSource, kTarget);
    config.mode = AttentionMode::EncoderSelf;
    config.d_model = 16;
    config.positional = PositionalEncoding::Sinusoidal;
    config.withBias = true;
    std::vector<ValidationIssue> issues = validateInputs(config, inputsFor(model, 2));
    EXPECT_TRUE(mentions(issues, ConfigField::Mode, "set the mode to cross")) << describe(issues);
    EXPECT_TRUE(mentions(issues, ConfigField::DModel, "d_model = 8")) << describe(issues);
    EXPECT_TRUE(mentions(issues, ConfigField::Positional, "set positions to none")) << describe(issues);
    EXPECT_TRUE(mentions(issues, ConfigField::Weights, "no biases")) << describe(issues);

    config = trainedLayerConfig(*model, 2, kSource, kTarget);
    config.headCount = 4;
    issues = validateInputs(config, inputsFor(model, 2));
    EXPECT_TRUE(mentions(issues, ConfigField::Heads, "h = 2")) << describe(issues);

    config = trainedLayerConfig(*model, 2, kSource, kTarget);
    config.keyValueHeadCount = 1;
    issues = validateInputs(config, inputsFor(model, 2));
    EXPECT_TRUE(mentions(issues, ConfigField::KeyValueHeads, "g = h")) << describe(issues);

    issues = validateInputs(trainedLayerConfig(*model, 2, kSource, kTarget), inputsFor(model, 9));
    EXPECT_TRUE(mentions(issues, ConfigField::Weights, "layer 9 does not exist")) << describe(issues);
}

TEST(TrainedLayer, SentencesLongerThanThePositionsAreRefused)
{
    const std::shared_ptr<const TrainedModel> model = smallTrainedModel();  // 10 positions
    const std::string nine = "der der der der der der der der der";      // + <bos>: 10 tokens
    EXPECT_TRUE(validateInputs(trainedLayerConfig(*model, 2, kSource, nine), inputsFor(model, 2)).empty());
    const std::vector<ValidationIssue> issues =
        validateInputs(trainedLayerConfig(*model, 2, kSource, nine + " der"), inputsFor(model, 2));
    EXPECT_TRUE(mentions(issues, ConfigField::Target, "11 tokens; it learned positions up to 10")) << describe(issues);
}

TEST(TrainedLayer, AnEncoderDecoderModelAlwaysReadsTheSource)
{
    const std::shared_ptr<const TrainedModel> model = smallTrainedModel();
    // Even its decoder's masked self-attention, whose mode alone would not need a source: the
    // model runs its encoder as in training.
    for (const Index layer : {1, 3}) {
        std::vector<ValidationIssue> issues =
            validateInputs(trainedLayerConfig(*model, layer, "", kTarget), inputsFor(model, layer));
        EXPECT_TRUE(mentions(issues, ConfigField::Source, "is empty")) << describe(issues);
        issues = validateInputs(trainedLayerConfig(*model, layer, "the zebra", kTarget), inputsFor(model, layer));
        EXPECT_TRUE(mentions(issues, ConfigField::Source, "'zebra'")) << describe(issues);
    }
    // The encoder's own layer does not read the target.
    const std::vector<ValidationIssue> issues =
        validateInputs(trainedLayerConfig(*model, 0, kSource, "der zebra"), inputsFor(model, 0));
    EXPECT_TRUE(issues.empty()) << describe(issues);
}

// A full W_i model's layer is shown like any other: head i as W_i^Q = W_i, W_i^K = I (d_k =
// d_model), its values d_v = d_model / h wide, its scores scaled as its model scales them. The
// attention is the model's own, the scores are x_q W_i x_kv^T, the output Concat(A_i V_i) W^O.
TEST(TrainedLayer, FullModelLayerIsShownWithItsOwnWi)
{
    const std::shared_ptr<const TrainedModel> model = smallTrainedModel(ScoreForm::Full);
    const ModelSpec& spec = model->parameters.spec;
    const ModelTrace trace = traceExample(model->parameters, exampleFor(*model));
    const std::vector<AttentionLayerInfo> layers = attentionLayers(spec);
    for (std::size_t l = 0; l < layers.size(); ++l) {
        SCOPED_TRACE(layers[l].name);
        const Index layer = static_cast<Index>(l);
        const Config config = trainedLayerConfig(*model, layer, kSource, kTarget);
        EXPECT_EQ(config.d_k(), spec.d_model);
        const std::vector<ValidationIssue> issues = validateInputs(config, inputsFor(model, layer));
        EXPECT_TRUE(issues.empty()) << describe(issues);
        const auto result = compute(config, inputsFor(model, layer));
        ASSERT_TRUE(result.ok()) << result.error();
        const Result& r = **result;
        const AttentionResult& a = r.attention;
        EXPECT_EQ(a.d_k(), spec.d_model);
        EXPECT_EQ(a.d_v(), spec.d_k());
        EXPECT_DOUBLE_EQ(a.rawScoreFactor(), std::sqrt(static_cast<double>(spec.d_k())));
        const AttentionLayerTrace& expected = trace.layers[l];
        ASSERT_EQ(a.heads.size(), expected.attention.size());
        const MatrixD xq = r.queryInput.cast<double>(), xkv = r.keyValueInput.cast<double>();
        const MatrixD values = xkv * model->parameters.tensor(layers[l].name + ".W_V").cast<double>();  // n_k x d_model
        MatrixD concat(xq.rows(), spec.d_model);
        for (std::size_t head = 0; head < expected.attention.size(); ++head) {
            const auto i = static_cast<Index>(head);
            EXPECT_MATRIX_NEAR(a.heads[head].attention, expected.attention[head], 2e-6);
            const MatrixD w_i = headBilinearForm(model->parameters, layer, i);  // the learned W_i
            EXPECT_MATRIX_NEAR(MatrixD(a.heads[head].scores.cast<double>() * a.rawScoreFactor()), MatrixD(xq * w_i * xkv.transpose()),
                               1e-4);
            concat.middleCols(i * spec.d_k(), spec.d_k()) =
                a.heads[head].attention.cast<double>() * values.middleCols(i * spec.d_k(), spec.d_k());
        }
        EXPECT_MATRIX_NEAR(a.output, MatrixD(concat * model->parameters.tensor(layers[l].name + ".W_O").cast<double>()),
                           1e-4);
    }
}

TEST(TrainedLayer, EditedWeightsReplaceTheLayersOwn)
{
    const std::shared_ptr<const TrainedModel> model = smallTrainedModel();
    UserInputs inputs = inputsFor(model, 2);
    AttentionWeights edited = *attentionLayerWeights(model->parameters, 2);
    edited.queryProjection *= 3.0f;
    inputs.weights = std::make_shared<const AttentionWeights>(edited);
    const auto result = compute(trainedLayerConfig(*model, 2, kSource, kTarget), inputs);
    ASSERT_TRUE(result.ok()) << result.error();
    EXPECT_MATRIX_NEAR((*result)->weights->queryProjection, edited.queryProjection, 0.0);
}

// A trained model's layer belongs to a model that runs whole, as a checkpoint's does: every
// layer's Result holds the same converted model and its own index, and the whole model's run on
// the typed sentences gives the layer the maps compute() gives it.
TEST(TrainedLayer, EveryLayersResultHoldsTheWholeModel)
{
    for (const ScoreForm form : {ScoreForm::Factored, ScoreForm::Full}) {
        SCOPED_TRACE(form == ScoreForm::Full ? "full" : "factored");
        const std::shared_ptr<const TrainedModel> model = smallTrainedModel(form);
        std::shared_ptr<const PretrainedModel> whole;
        for (Index layer = 0; layer < 5; ++layer) {
            const auto result = compute(trainedLayerConfig(*model, layer, kSource, kTarget), inputsFor(model, layer));
            ASSERT_TRUE(result.ok()) << result.error();
            const Result& r = **result;
            ASSERT_NE(r.wholeModel, nullptr);
            if (!whole) whole = r.wholeModel;
            EXPECT_EQ(r.wholeModel, whole) << "converted once per trained model";
            EXPECT_EQ(r.wholeModelLayer, layer);
            const Expected<ModelSentences> sentences = modelSentences(*whole, kSource, kTarget);
            ASSERT_TRUE(sentences.ok()) << sentences.error();
            const Expected<ModelRun> run = runPretrainedModel(*whole, sentences->tokens);
            ASSERT_TRUE(run.ok()) << run.error();
            const LayerRun& shown = run->layer(layer);
            EXPECT_EQ(layerQueryTokens(*whole, *sentences, shown).chips().size(), r.queryLabels.size());
            ASSERT_EQ(shown.attention.heads.size(), r.attention.heads.size());
            for (std::size_t head = 0; head < r.attention.heads.size(); ++head)
                EXPECT_MATRIX_NEAR(shown.attention.heads[head].attention, r.attention.heads[head].attention, 1e-5);
        }
    }
}

// The Model and Predict tabs' overview of a trained model: predictions at each decoder position
// over the model's words, and switching a cross-attention head off changes them.
TEST(TrainedLayer, TheWholeModelsOverviewPredictsAndHeadsOffChangeIt)
{
    const std::shared_ptr<const TrainedModel> model = smallTrainedModel();
    const auto result = compute(trainedLayerConfig(*model, 2, kSource, kTarget), inputsFor(model, 2));
    ASSERT_TRUE(result.ok()) << result.error();
    ModelOverviewRequest request;
    request.source = kSource;
    request.target = kTarget;
    const Expected<ModelOverview> on = computeModelOverview((*result)->wholeModel, request);
    ASSERT_TRUE(on.ok()) << on.error();
    ASSERT_EQ(on->predictions.size(), 5u);  // <bos> and the four target words
    request.ablatedHeads = {{2, 0}, {2, 1}, {4, 0}, {4, 1}};
    const Expected<ModelOverview> off = computeModelOverview((*result)->wholeModel, request);
    ASSERT_TRUE(off.ok()) << off.error();
    ASSERT_EQ(off->predictions.size(), 5u);
    EXPECT_NE(off->predictions[1].top[0].probability, on->predictions[1].top[0].probability);
}

// A decoder-only trained model (the induction task's shape) continues a prompt as its own
// forward pass would, greedily: the Generate panel runs it as any causal language model.
TEST(TrainedLayer, ADecoderOnlyModelGeneratesItsOwnGreedyContinuation)
{
    auto model = std::make_shared<TrainedModel>(*smallTrainedModel());
    ModelSpec spec = model->parameters.spec;
    spec.encoderLayers = 0;
    spec.placement = NormPlacement::Pre;
    model->parameters = ModelParameters<float>::initialised(spec, 9);
    const std::shared_ptr<const PretrainedModel> whole = wholeTrainedModel(model);
    ASSERT_NE(whole, nullptr);
    const Expected<ModelSentences> sentences = modelSentences(*whole, "", "der katze");
    ASSERT_TRUE(sentences.ok()) << sentences.error();
    std::vector<std::int32_t> expected = sentences->tokens.ids;
    ASSERT_EQ(expected.front(), Vocabulary::bos);
    GenerationOptions options;
    options.newTokens = 4;
    const Expected<Generation> generated = generateTokens(*whole, expected, options);
    ASSERT_TRUE(generated.ok()) << generated.error();
    for (int step = 0; step < 4; ++step) {
        SequencePair example;
        example.targetInput = expected;
        example.targetOutput.assign(expected.size(), -1);
        const MatrixF logits = traceExample(model->parameters, example).logits;
        Index best = 0;
        logits.row(logits.rows() - 1).maxCoeff(&best);
        expected.push_back(static_cast<std::int32_t>(best));
    }
    EXPECT_EQ(generated->ids, expected);
}

TEST(TrainedLayer, FindsALayerByNameOrIndex)
{
    const std::shared_ptr<const TrainedModel> model = smallTrainedModel();
    EXPECT_EQ(*findTrainedLayer(*model, "decoder.1.cross_attention"), 4);
    EXPECT_EQ(*findTrainedLayer(*model, "0"), 0);
    const Expected<Index> missing = findTrainedLayer(*model, "5");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().find("no layer '5'"), std::string::npos) << missing.error();
    EXPECT_NE(missing.error().find("'encoder.0.self_attention'"), std::string::npos) << missing.error();
}

}  // namespace
}  // namespace qkv
