// The encoder-decoder path of runPretrainedModel on a small model built in memory (random
// weights; the BART and Marian references against PyTorch live with those families' loaders):
// model order, what cross-attention reads, and re-runs from a changed layer in either stack
// giving the bits of a full run.

#include <random>

#include <gtest/gtest.h>

#include "core/pretrained/model_run.hpp"

namespace qkv {
namespace {

constexpr Index d = 16, h = 4, d_ff = 32, V = 30, P = 12;

MatrixF random(Index rows, Index cols, std::mt19937& generator)
{
    std::normal_distribution<float> normal(0.0f, 0.3f);
    MatrixF m(rows, cols);
    for (Index i = 0; i < m.size(); ++i) m.data()[i] = normal(generator);
    return m;
}

AttentionSublayerWeights sublayer(const std::string& name, AttentionMode kind, Index modelIndex, std::mt19937& g)
{
    AttentionSublayerWeights s;
    s.layer.name = name;
    s.layer.kind = kind;
    s.layer.headCount = s.layer.keyValueHeadCount = h;
    s.layer.d_model = d;
    s.modelIndex = modelIndex;
    s.attention.queryProjection = random(d, d, g);
    s.attention.keyProjection = random(d, d, g);
    s.attention.valueProjection = random(d, d, g);
    s.attention.outputProjection = random(d, d, g);
    s.norm = {RowVectorF::Ones(d) + random(1, d, g).row(0) * 0.1f, random(1, d, g).row(0)};
    return s;
}

// Two encoder blocks (model layers 0, 1), two decoder blocks (self 2, cross 3; self 4, cross 5).
PretrainedModel encoderDecoder()
{
    std::mt19937 g(18);
    PretrainedModel model;
    FamilyRecipe& r = model.recipe;
    r.family = Family::Bart;
    r.d_model = d;
    r.encoderLayerCount = r.decoderLayerCount = 2;
    r.headCount = r.keyValueHeadCount = h;
    r.d_ff = d_ff;
    r.vocabularySize = V;
    r.positionOffset = 2;
    r.positionCount = P - 2;
    r.epsilon = 1e-5;
    r.embeddingNorm = true;
    r.readout = ReadoutKind::CausalLm;
    const EmbeddingWeights tables{
        random(V, d, g), random(P, d, g), MatrixF(), {RowVectorF::Ones(d), RowVectorF::Zero(d)}};
    for (ModelStack stack : {ModelStack::Encoder, ModelStack::Decoder}) {
        StackWeights& weights = stack == ModelStack::Encoder ? model.encoder : model.decoder;
        weights.embeddings = tables;
        for (Index b = 0; b < 2; ++b) {
            BlockWeights block;
            block.stack = stack;
            block.block = b;
            const std::string path = std::string(stack == ModelStack::Encoder ? "model.encoder" : "model.decoder") +
                                     ".layers." + std::to_string(b);
            const Index first = stack == ModelStack::Encoder ? b : 2 + 2 * b;
            block.selfAttention = sublayer(
                path + ".self_attn",
                stack == ModelStack::Encoder ? AttentionMode::EncoderSelf : AttentionMode::DecoderCausal, first, g);
            model.layersInModelOrder.push_back(block.selfAttention.layer);
            if (stack == ModelStack::Decoder) {
                block.crossAttention = sublayer(path + ".encoder_attn", AttentionMode::Cross, first + 1, g);
                model.layersInModelOrder.push_back(block.crossAttention->layer);
            }
            block.feedForward = {random(d, d_ff, g), random(1, d_ff, g).row(0), MatrixF(), random(d_ff, d, g),
                                 random(1, d, g).row(0)};
            block.feedForwardNorm = {RowVectorF::Ones(d), RowVectorF::Zero(d)};
            weights.blocks.push_back(std::move(block));
        }
    }
    return model;
}

const ModelTokens kTokens{{0, 7, 12, 29, 2}, {2, 0, 9, 4}};

TEST(EncoderDecoderRun, LayersRunInModelOrderAndCrossAttentionReadsTheEncoderOutput)
{
    const PretrainedModel model = encoderDecoder();
    Expected<ModelRun> run = runPretrainedModel(model, kTokens);
    ASSERT_TRUE(run.ok()) << run.error();
    ASSERT_EQ(run->layers.size(), 6u);
    EXPECT_EQ(run->hiddenStates.size(), 3u);
    EXPECT_EQ(run->decoderHiddenStates.size(), 3u);
    const AttentionMode kinds[] = {AttentionMode::EncoderSelf,   AttentionMode::EncoderSelf,
                                   AttentionMode::DecoderCausal, AttentionMode::Cross,
                                   AttentionMode::DecoderCausal, AttentionMode::Cross};
    for (Index l = 0; l < 6; ++l) {
        EXPECT_EQ(run->layer(l).modelIndex, l);
        EXPECT_EQ(run->layer(l).layer.kind, kinds[l]);
        EXPECT_EQ(run->layer(l).attention.mask.causal, kinds[l] == AttentionMode::DecoderCausal);
    }
    EXPECT_TRUE(run->layer(3).keyValueInput == run->hiddenStates.back());
    EXPECT_TRUE(run->layer(5).keyValueInput == run->hiddenStates.back());
    EXPECT_EQ(run->layer(3).attention.queryCount(), 4);
    EXPECT_EQ(run->layer(3).attention.keyCount(), 5);
    EXPECT_EQ(run->logits.rows(), 4);
    EXPECT_EQ(run->logits.cols(), V);
    EXPECT_FALSE(runPretrainedModel(model, ModelTokens{{1, 2}, {}}).ok());  // the decoder needs ids
}

TEST(EncoderDecoderRun, ReRunsFromAChangeInEitherStackGiveTheBitsOfAFullRun)
{
    const PretrainedModel model = encoderDecoder();
    Expected<ModelRun> base = runPretrainedModel(model, kTokens);
    ASSERT_TRUE(base.ok());
    auto previous = std::make_shared<const ModelRun>(std::move(*base));
    for (const ModelHead head : {ModelHead{1, 0}, ModelHead{3, 1}, ModelHead{4, 2}, ModelHead{5, 3}}) {
        RunOptions options;
        options.ablatedHeads = {head};
        Expected<ModelRun> full = runPretrainedModel(model, kTokens, options);
        options.previous = previous;
        Expected<ModelRun> rerun = runPretrainedModel(model, kTokens, options);
        ASSERT_TRUE(full.ok() && rerun.ok());
        EXPECT_EQ(rerun->firstRecomputedLayer, head.layer);
        // Shared: every layer before the changed one's block (a cross-attention's block starts
        // with its self-attention, which is recomputed with it).
        const Index blockStart = head.layer >= 2 ? head.layer - (head.layer - 2) % 2 : head.layer;
        for (Index l = 0; l < 6; ++l) {
            EXPECT_EQ(rerun->layers[l].get() == previous->layers[l].get(), l < blockStart) << head.layer << " " << l;
            EXPECT_TRUE(rerun->layer(l).attention.output == full->layer(l).attention.output) << l;
        }
        EXPECT_TRUE(rerun->hiddenStates == full->hiddenStates);
        EXPECT_TRUE(rerun->decoderHiddenStates == full->decoderHiddenStates);
        EXPECT_TRUE(rerun->logits == full->logits);
        EXPECT_FALSE(rerun->logits == previous->logits);
    }
}

}  // namespace
}  // namespace qkv
