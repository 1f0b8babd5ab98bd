// What the views read of a model: the trace's attention is exactly the app's attention layer on
// the trace's inputs; greedy decoding; bad batches answered with a message.

#include <cmath>

#include <gtest/gtest.h>

#include "core/attention/multi_head_attention.hpp"
#include "core/trainable/adamw.hpp"
#include "model_test_support.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

ModelSpec traceSpec(NormPlacement placement)
{
    ModelSpec spec;
    spec.vocabularySize = 12;
    spec.maxPositions = 16;
    spec.d_model = 16;
    spec.headCount = 4;
    spec.d_ff = 32;
    spec.placement = placement;
    return spec;
}

// The trained layer is the app's layer: W^Q, W^K, W^V, W^O fed to multiHeadAttentionForward with
// the trace's X_q and X_kv give the trace's attention.
void expectTraceIsTheAppsLayer(const ModelParameters<float>& parameters, const SequencePair& example)
{
    const ModelTrace trace = traceExample(parameters, example);
    const std::vector<AttentionLayerInfo> infos = attentionLayers(parameters.spec);
    ASSERT_EQ(trace.layers.size(), infos.size());
    EXPECT_EQ(trace.logits.rows(), static_cast<Index>(example.targetInput.size()));
    EXPECT_EQ(trace.logits.cols(), parameters.spec.vocabularySize);
    for (std::size_t layer = 0; layer < infos.size(); ++layer) {
        const AttentionLayerTrace& t = trace.layers[layer];
        SCOPED_TRACE(t.info.name);
        EXPECT_EQ(t.info.name, infos[layer].name);
        const bool cross = t.info.kind == AttentionMode::Cross;
        const bool encoder = t.info.kind == AttentionMode::EncoderSelf;
        EXPECT_EQ(t.queryInput.rows(), static_cast<Index>(encoder ? example.source.size() : example.targetInput.size()));
        EXPECT_EQ(t.keyValueInput.rows(),
                  static_cast<Index>(cross || encoder ? example.source.size() : example.targetInput.size()));
        const std::optional<AttentionWeights> weights = attentionLayerWeights(parameters, static_cast<Index>(layer));
        ASSERT_TRUE(weights.has_value());
        AttentionMask mask;
        mask.causal = t.info.kind == AttentionMode::DecoderCausal;
        const AttentionResult app =
            multiHeadAttentionForward(t.queryInput, t.keyValueInput, *weights, parameters.spec.headCount, mask);
        ASSERT_EQ(t.attention.size(), app.heads.size());
        for (std::size_t head = 0; head < app.heads.size(); ++head) {
            EXPECT_MATRIX_NEAR(t.attention[head], app.heads[head].attention, 1e-6);
            EXPECT_MATRIX_NEAR(t.attention[head].rowwise().sum(), VectorD::Ones(t.attention[head].rows()), 1e-6);
        }
    }
}

TEST(ModelTrace, AttentionIsTheAppsLayerInPreAndPostNormModels)
{
    for (NormPlacement placement : {NormPlacement::Pre, NormPlacement::Post}) {
        const ModelSpec spec = traceSpec(placement);
        ModelParameters<float> parameters = ModelParameters<float>::initialised(spec, 21);
        // A few steps, so that the norms' gamma and beta are no longer 1 and 0.
        AdamW<float> optimizer(spec, AdamWSettings{});
        ModelParameters<float> gradient;
        for (std::uint64_t step = 0; step < 3; ++step) {
            lossAndGradient(parameters, testing::randomBatch(spec, 8, step), gradient);
            optimizer.step(parameters, gradient);
        }
        expectTraceIsTheAppsLayer(parameters, {{3, 4, 5, 6, 7}, {1, 7, 6, 5}, {7, 6, 5, 2}});
    }
}

TEST(ModelTrace, DecoderOnlyModelsTraceTheirSelfAttention)
{
    ModelSpec spec = traceSpec(NormPlacement::Pre);
    spec.encoderLayers = 0;
    spec.decoderLayers = 2;
    spec.d_ff = 0;
    spec.norm = NormKind::None;
    expectTraceIsTheAppsLayer(ModelParameters<float>::initialised(spec, 2), {{}, {3, 4, 5, 3, 4, 5}, {4, 5, 3, 4, 5, -1}});
}

TEST(ModelTrace, FullModelsTraceAttentionWithoutThinFactors)
{
    ModelSpec spec = traceSpec(NormPlacement::Pre);
    spec.scoreForm = ScoreForm::Full;
    const ModelParameters<float> parameters = ModelParameters<float>::initialised(spec, 4);
    const SequencePair example{{3, 4, 5}, {1, 5, 4}, {5, 4, 2}};
    const ModelTrace trace = traceExample(parameters, example);
    ASSERT_EQ(trace.layers.size(), 3u);
    const AttentionLayerTrace& cross = trace.layers[2];
    // scores_i = X_q W_i X_kv^T / sqrt(d_k), in double from the trace's inputs.
    for (Index head = 0; head < spec.headCount; ++head) {
        MatrixD scores = cross.queryInput.cast<double>() * headBilinearForm(parameters, 2, head) *
                         cross.keyValueInput.cast<double>().transpose() / 2.0;
        for (Index q = 0; q < scores.rows(); ++q) {
            scores.row(q) = (scores.row(q).array() - scores.row(q).maxCoeff()).exp().matrix();
            scores.row(q) /= scores.row(q).sum();
        }
        EXPECT_MATRIX_NEAR(cross.attention[static_cast<std::size_t>(head)], scores, 1e-5);
    }
    // Causal: the decoder's self-attention sees no later key.
    EXPECT_EQ(trace.layers[1].attention[0](0, 1), 0.0f);
    EXPECT_EQ(trace.layers[1].attention[0](1, 2), 0.0f);
}

TEST(ModelTrace, GreedyDecodeWritesEachStepsArgmax)
{
    const ModelSpec spec = traceSpec(NormPlacement::Pre);
    const ModelParameters<float> parameters = ModelParameters<float>::initialised(spec, 8);
    const std::vector<std::int32_t> source{4, 5, 6, 7};
    const std::vector<std::int32_t> answer = greedyDecode(parameters, source, 1, 2, 6);
    ASSERT_FALSE(answer.empty());
    EXPECT_LE(answer.size(), 6u);
    // Each id is the argmax of the last row after feeding <bos> and the ids before it.
    SequencePair prefix{source, {1}, {-1}};
    for (std::size_t i = 0; i < answer.size(); ++i) {
        const ModelTrace trace = traceExample(parameters, prefix);
        Index best = 0;
        trace.logits.row(trace.logits.rows() - 1).maxCoeff(&best);
        EXPECT_EQ(answer[i], best) << "step " << i;
        if (answer[i] == 2) {
            EXPECT_EQ(i + 1, answer.size()) << "<eos> ends the answer";
        }
        prefix.targetInput.push_back(answer[i]);
        prefix.targetOutput.push_back(-1);
    }
    EXPECT_LE(greedyDecode(parameters, source, 1, 2, 100).size(), static_cast<std::size_t>(spec.maxPositions));
    EXPECT_TRUE(greedyDecode(parameters, {4, 99}, 1, 2, 5).empty()) << "an id outside the vocabulary";
}

TEST(ModelBatch, BadBatchesAreAnsweredWithAMessageNotAStep)
{
    const ModelSpec spec = traceSpec(NormPlacement::Pre);
    const ModelParameters<float> parameters = ModelParameters<float>::initialised(spec, 1);
    ModelParameters<float> gradient = ModelParameters<float>::zeros(spec);
    gradient.values[0] = 7.0f;
    const auto expectProblem = [&](const SequencePair& pair, const std::string& words) {
        const BatchLoss loss = lossAndGradient(parameters, {{{1}, {1}, {2}}, pair}, gradient);
        EXPECT_NE(loss.problem.find(words), std::string::npos) << loss.problem;
        EXPECT_NE(loss.problem.find("sequence 1"), std::string::npos) << loss.problem;
        EXPECT_TRUE(std::isnan(loss.loss));
        EXPECT_EQ(gradient.values[0], 7.0f) << "the gradient is left alone";
        EXPECT_EQ(evaluateLoss(parameters, {pair}).problem.empty(), false);
    };
    expectProblem({{}, {1, 2}, {2, 3}}, "source has 0 tokens");
    expectProblem({{3}, {}, {}}, "decoder input has 0 tokens");
    expectProblem({{3}, {1, 2}, {2}}, "1 target outputs for 2 decoder inputs");
    expectProblem({{3, 12}, {1}, {2}}, "source id 12 at position 1");
    expectProblem({{3}, {-1}, {2}}, "decoder input id -1");
    expectProblem({{3}, {1}, {-2}}, "target output id -2");
    expectProblem({std::vector<std::int32_t>(17, 3), {1}, {2}}, "the model reads 1 to 16");
    EXPECT_EQ(batchProblem(spec, {{{3}, {1}, {-1}}}), "");
    // A batch with no labels has nothing to learn: loss 0, gradient 0.
    const BatchLoss unlabelled = lossAndGradient(parameters, {{{3}, {1}, {-1}}}, gradient);
    EXPECT_EQ(unlabelled.loss, 0.0);
    EXPECT_EQ(unlabelled.scoredTokens, 0);
    EXPECT_EQ(Eigen::Map<const Eigen::VectorXf>(gradient.values.data(), static_cast<Index>(gradient.count())).cwiseAbs().maxCoeff(), 0.0f);
    // Parameters of another model are refused too.
    ModelParameters<float> wrong = parameters;
    wrong.values.pop_back();
    EXPECT_NE(evaluateLoss(wrong, {{{3}, {1}, {2}}}).problem.find("parameters hold"), std::string::npos);
    EXPECT_TRUE(traceExample(wrong, {{3}, {1}, {2}}).layers.empty());
    // A spec whose sizes do not fit together has no layout, and says why.
    ModelSpec broken = spec;
    broken.headCount = 5;
    EXPECT_TRUE(tensorLayout(broken).empty());
    const ModelParameters<float> none = ModelParameters<float>::initialised(broken, 1);
    EXPECT_EQ(none.count(), 0u);
    EXPECT_NE(evaluateLoss(none, {{{3}, {1}, {2}}}).problem.find("does not divide d_model"), std::string::npos);
}

TEST(ModelTraining, LearnsToCopyAShortSequence)
{
    // End to end: AdamW on the copy task drives the loss down and the accuracy up.
    ModelSpec spec;
    spec.vocabularySize = 8;  // <pad> <bos> <eos> and five symbols
    spec.maxPositions = 8;
    spec.d_model = 16;
    spec.headCount = 2;
    spec.d_ff = 32;
    ModelParameters<float> parameters = ModelParameters<float>::initialised(spec, 3);
    AdamWSettings settings;
    settings.learningRate = 1e-2;
    AdamW<float> optimizer(spec, settings);
    SplitMix64 random(11);
    const auto batch = [&] {
        std::vector<SequencePair> pairs(16);
        for (SequencePair& pair : pairs) {
            const std::size_t n = 2 + random.next() % 4;
            for (std::size_t i = 0; i < n; ++i) pair.source.push_back(static_cast<std::int32_t>(3 + random.next() % 5));
            pair.targetInput = {1};
            pair.targetInput.insert(pair.targetInput.end(), pair.source.begin(), pair.source.end());
            pair.targetOutput = pair.source;
            pair.targetOutput.push_back(2);
        }
        return pairs;
    };
    ModelParameters<float> gradient;
    const std::vector<SequencePair> heldOut = batch();
    const BatchLoss before = evaluateLoss(parameters, heldOut);
    for (int step = 0; step < 150; ++step) {
        lossAndGradient(parameters, batch(), gradient);
        optimizer.step(parameters, gradient);
    }
    const BatchLoss after = evaluateLoss(parameters, heldOut);
    EXPECT_LT(after.loss, 0.25 * before.loss);
    EXPECT_GT(static_cast<double>(after.correctTokens) / static_cast<double>(after.scoredTokens), 0.9);
}

}  // namespace
}  // namespace qkv
