// The parameters' layout, counts and seeded initialisation; same seed, same bits through training.

#include <optional>
#include <cmath>
#include <cstdint>
#include <set>

#include <gtest/gtest.h>

#include "core/common/decompositions.hpp"
#include "core/trainable/adamw.hpp"
#include "model_test_support.hpp"

namespace qkv {
namespace {

ModelSpec smallSpec(ScoreForm form)
{
    ModelSpec spec;
    spec.vocabularySize = 10;
    spec.maxPositions = 16;
    spec.d_model = 8;
    spec.headCount = 2;
    spec.d_ff = 12;
    spec.scoreForm = form;
    return spec;
}

std::vector<std::string> names(const std::vector<TensorSlot>& slots)
{
    std::vector<std::string> out;
    for (const TensorSlot& slot : slots) out.push_back(slot.name);
    return out;
}

TEST(ModelParameters, FactoredLayoutNamesShapesAndOffsets)
{
    const std::vector<TensorSlot> slots = tensorLayout(smallSpec(ScoreForm::Factored));
    const std::vector<std::string> expected{
        "embedding.token",
        "encoder.0.self_attention.W_Q", "encoder.0.self_attention.W_K", "encoder.0.self_attention.W_V",
        "encoder.0.self_attention.W_O", "encoder.0.norm_attention.gamma", "encoder.0.norm_attention.beta",
        "encoder.0.mlp.W_in", "encoder.0.mlp.b_in", "encoder.0.mlp.W_out", "encoder.0.mlp.b_out",
        "encoder.0.norm_mlp.gamma", "encoder.0.norm_mlp.beta",
        "decoder.0.self_attention.W_Q", "decoder.0.self_attention.W_K", "decoder.0.self_attention.W_V",
        "decoder.0.self_attention.W_O", "decoder.0.norm_self.gamma", "decoder.0.norm_self.beta",
        "decoder.0.cross_attention.W_Q", "decoder.0.cross_attention.W_K", "decoder.0.cross_attention.W_V",
        "decoder.0.cross_attention.W_O", "decoder.0.norm_cross.gamma", "decoder.0.norm_cross.beta",
        "decoder.0.mlp.W_in", "decoder.0.mlp.b_in", "decoder.0.mlp.W_out", "decoder.0.mlp.b_out",
        "decoder.0.norm_mlp.gamma", "decoder.0.norm_mlp.beta",
        "encoder.norm_final.gamma", "encoder.norm_final.beta", "decoder.norm_final.gamma", "decoder.norm_final.beta",
        "readout.W", "readout.b"};
    EXPECT_EQ(names(slots), expected);
    std::size_t offset = 0;
    for (const TensorSlot& slot : slots) {
        EXPECT_EQ(slot.offset, offset) << slot.name;
        offset += slot.size();
    }
    const auto shape = [&](const std::string& name) {
        for (const TensorSlot& slot : slots)
            if (slot.name == name) return std::pair{slot.rows, slot.cols};
        return std::pair<Index, Index>{-1, -1};
    };
    EXPECT_EQ(shape("embedding.token"), (std::pair<Index, Index>{10, 8}));
    EXPECT_EQ(shape("decoder.0.cross_attention.W_K"), (std::pair<Index, Index>{8, 8}));
    EXPECT_EQ(shape("encoder.0.mlp.W_in"), (std::pair<Index, Index>{8, 12}));
    EXPECT_EQ(shape("encoder.0.mlp.b_in"), (std::pair<Index, Index>{1, 12}));
    EXPECT_EQ(shape("encoder.0.mlp.W_out"), (std::pair<Index, Index>{12, 8}));
    EXPECT_EQ(shape("readout.W"), (std::pair<Index, Index>{8, 10}));
    EXPECT_EQ(shape("readout.b"), (std::pair<Index, Index>{1, 10}));
    EXPECT_EQ(shape("decoder.norm_final.gamma"), (std::pair<Index, Index>{1, 8}));
}

TEST(ModelParameters, FullLayoutHasOneMatrixPerHeadAndPostNormNoFinalNorms)
{
    ModelSpec spec = smallSpec(ScoreForm::Full);
    spec.placement = NormPlacement::Post;
    spec.positions = PositionKind::Learned;
    spec.encoderLayers = 0;
    const std::vector<std::string> all = names(tensorLayout(spec));
    const std::vector<std::string> expected{
        "embedding.token", "embedding.position",
        "decoder.0.self_attention.W_1", "decoder.0.self_attention.W_2", "decoder.0.self_attention.W_V",
        "decoder.0.self_attention.W_O", "decoder.0.norm_self.gamma", "decoder.0.norm_self.beta",
        "decoder.0.mlp.W_in", "decoder.0.mlp.b_in", "decoder.0.mlp.W_out", "decoder.0.mlp.b_out",
        "decoder.0.norm_mlp.gamma", "decoder.0.norm_mlp.beta", "readout.W", "readout.b"};
    EXPECT_EQ(all, expected);
    const ModelParameters<float> p = ModelParameters<float>::zeros(spec);
    EXPECT_EQ(p.find("embedding.position")->rows, 16);
    EXPECT_EQ(p.find("decoder.0.self_attention.W_2")->cols, 8);
    EXPECT_TRUE(p.find("decoder.0.self_attention.W_2")->decays);
    EXPECT_FALSE(p.find("decoder.0.norm_self.gamma")->decays);
    EXPECT_EQ(p.find("decoder.0.self_attention.W_Q"), nullptr);
}

TEST(ModelParameters, AttentionLayersInModelOrder)
{
    const std::vector<AttentionLayerInfo> layers = attentionLayers(smallSpec(ScoreForm::Factored));
    ASSERT_EQ(layers.size(), 3u);
    EXPECT_EQ(layers[0].name, "encoder.0.self_attention");
    EXPECT_EQ(layers[0].kind, AttentionMode::EncoderSelf);
    EXPECT_EQ(layers[1].name, "decoder.0.self_attention");
    EXPECT_EQ(layers[1].kind, AttentionMode::DecoderCausal);
    EXPECT_EQ(layers[2].name, "decoder.0.cross_attention");
    EXPECT_EQ(layers[2].kind, AttentionMode::Cross);
    ModelSpec decoderOnly = smallSpec(ScoreForm::Factored);
    decoderOnly.encoderLayers = 0;
    decoderOnly.decoderLayers = 2;
    const std::vector<AttentionLayerInfo> two = attentionLayers(decoderOnly);
    ASSERT_EQ(two.size(), 2u);
    EXPECT_EQ(two[1].name, "decoder.1.self_attention");
    EXPECT_EQ(two[1].block, 1);
}

TEST(ModelParameters, ScoreParametersAreTwoThinFactorsOrOneSquarePerHead)
{
    ModelSpec spec = smallSpec(ScoreForm::Factored);
    spec.d_model = 64;
    spec.headCount = 4;  // d_k = 16
    const std::size_t layers = 3, d = 64, d_k = 16, h = 4;
    EXPECT_EQ(scoreParameterCount(spec), layers * h * 2 * d * d_k);
    EXPECT_EQ(attentionParameterCount(spec), layers * (h * 2 * d * d_k + 2 * d * d));
    spec.scoreForm = ScoreForm::Full;
    EXPECT_EQ(scoreParameterCount(spec), layers * h * d * d);
    EXPECT_EQ(attentionParameterCount(spec), layers * (h * d * d + 2 * d * d));
    // Counted against the layout itself.
    const ModelParameters<float> p = ModelParameters<float>::zeros(spec);
    std::size_t attention = 0;
    for (const TensorSlot& slot : p.tensors)
        if (slot.name.find("attention.W_") != std::string::npos) attention += slot.size();
    EXPECT_EQ(attention, attentionParameterCount(spec));
}

TEST(ModelParameters, SameSeedSameBitsOtherSeedOtherValues)
{
    for (ScoreForm form : {ScoreForm::Factored, ScoreForm::Full}) {
        const ModelSpec spec = smallSpec(form);
        const ModelParameters<float> a = ModelParameters<float>::initialised(spec, 42);
        const ModelParameters<float> b = ModelParameters<float>::initialised(spec, 42);
        const ModelParameters<float> c = ModelParameters<float>::initialised(spec, 43);
        EXPECT_EQ(a.values, b.values);
        ASSERT_EQ(a.values.size(), c.values.size());
        EXPECT_NE(a.values, c.values);
        EXPECT_EQ(a.tensor("readout.b").cwiseAbs().maxCoeff(), 0.0f);
        EXPECT_EQ(a.tensor("decoder.0.norm_self.gamma").minCoeff(), 1.0f);
        EXPECT_EQ(a.tensor("decoder.0.norm_self.beta").cwiseAbs().maxCoeff(), 0.0f);
    }
}

TEST(ModelParameters, InitialisationHasTheDocumentedSpread)
{
    ModelSpec spec = smallSpec(ScoreForm::Factored);
    spec.d_model = 64;
    spec.headCount = 4;
    spec.vocabularySize = 500;
    spec.d_ff = 256;
    spec.positions = PositionKind::Learned;
    const ModelParameters<double> p = ModelParameters<double>::initialised(spec, 5);
    const auto variance = [&](const std::string& name) {
        const auto t = p.tensor(name);
        return t.array().square().mean() - std::pow(t.mean(), 2);
    };
    EXPECT_NEAR(variance("embedding.token"), 1.0 / 64, 0.1 / 64);  // N(0, 1/d_model)
    EXPECT_NEAR(variance("embedding.position"), 0.02 * 0.02, 0.1 * 0.02 * 0.02);
    EXPECT_NEAR(variance("encoder.0.self_attention.W_Q"), 2.0 / 128, 0.1 * 2.0 / 128);  // Xavier: 2/(fan_in+fan_out)
    EXPECT_NEAR(variance("decoder.0.mlp.W_in"), 2.0 / (64 + 256), 0.1 * 2.0 / 320);
    // A full head's W_i has the variance of W_i^Q (W_i^K)^T: d_k / d_model^2.
    spec.scoreForm = ScoreForm::Full;
    const ModelParameters<double> full = ModelParameters<double>::initialised(spec, 5);
    const auto w1 = full.tensor("decoder.0.cross_attention.W_1");
    EXPECT_NEAR(w1.array().square().mean(), 16.0 / (64 * 64), 0.1 * 16.0 / (64 * 64));
}

TEST(ModelParameters, HeadBilinearFormIsTheProductOfTheThinFactors)
{
    const ModelSpec spec = smallSpec(ScoreForm::Factored);
    const ModelParameters<float> p = ModelParameters<float>::initialised(spec, 9);
    const MatrixD W = headBilinearForm(p, 2, 1);  // decoder cross-attention, head 1
    const MatrixD query = p.tensor("decoder.0.cross_attention.W_Q").cast<double>().middleCols(4, 4);
    const MatrixD key = p.tensor("decoder.0.cross_attention.W_K").cast<double>().middleCols(4, 4);
    EXPECT_TENSOR_NEAR("W_1", W, (query * key.transpose()).eval(), 1e-15);
    Eigen::JacobiSVD<MatrixD> svd(W);
    EXPECT_LT(svd.singularValues()(4), 1e-6 * svd.singularValues()(0)) << "rank at most d_k = 4";

    const ModelParameters<float> full = ModelParameters<float>::initialised(smallSpec(ScoreForm::Full), 9);
    EXPECT_TENSOR_NEAR("W_2", headBilinearForm(full, 0, 1), full.tensor("encoder.0.self_attention.W_2").cast<double>().eval(), 0.0);
    // Shown as W_i^Q = W_i, W_i^K = I: their product is the learned W_i.
    const std::optional<AttentionWeights> shown = attentionLayerWeights(full, 0);
    ASSERT_TRUE(shown.has_value());
    const HeadGrouping g = shown->grouping(smallSpec(ScoreForm::Full).headCount);
    EXPECT_EQ(g.d_k, smallSpec(ScoreForm::Full).d_model);
    EXPECT_EQ(g.valueDim(), smallSpec(ScoreForm::Full).d_k());
    EXPECT_TENSOR_NEAR("W_2", (shown->queryHead(1, g).cast<double>() * shown->keyHead(1, g).cast<double>().transpose()).eval(),
                       full.tensor("encoder.0.self_attention.W_2").cast<double>().eval(), 0.0);
    EXPECT_EQ(headBilinearForm(full, 7, 0).size(), 0);
}

TEST(ModelParameters, TrainingIsDeterministic)
{
    const ModelSpec spec = smallSpec(ScoreForm::Factored);
    const auto train = [&] {
        ModelParameters<float> p = ModelParameters<float>::initialised(spec, 1);
        ModelParameters<float> gradient;
        AdamW<float> optimizer(spec, AdamWSettings{});
        std::vector<double> losses;
        for (std::uint64_t step = 0; step < 5; ++step) {
            losses.push_back(lossAndGradient(p, testing::randomBatch(spec, 4, step), gradient).loss);
            optimizer.step(p, gradient);
        }
        return std::pair{p.values, losses};
    };
    const auto first = train();
    const auto second = train();
    EXPECT_EQ(first.first, second.first);
    EXPECT_EQ(first.second, second.second);
}

TEST(ModelParameters, SameBitsWhereverTheHeapPutsTheBuffers)
{
    // Copies of the parameters at every 16-byte offset within a 64-byte line, each with its own
    // workspace: Eigen's vectorised code must not make the loss or gradient depend on addresses.
    ModelSpec spec = smallSpec(ScoreForm::Factored);
    spec.d_model = 12;  // rows of 12 floats: most rows start off a 64-byte line
    spec.headCount = 3;
    const ModelParameters<float> original = ModelParameters<float>::initialised(spec, 77);
    const std::vector<SequencePair> batch = testing::randomBatch(spec, 5, 3);
    std::vector<std::vector<float>> padding;
    std::vector<ModelParameters<float>> copies;
    std::set<std::uintptr_t> offsets;
    for (int attempt = 0; attempt < 64 && offsets.size() < 4; ++attempt) {
        padding.emplace_back(static_cast<std::size_t>(attempt % 7 + 1));
        copies.push_back(original);
        offsets.insert(reinterpret_cast<std::uintptr_t>(copies.back().values.data()) % 64);
    }
    if (offsets.size() < 2)  // glibc's malloc gives 16-byte alignment; a sanitizer's allocator more
        GTEST_SKIP() << "this allocator aligned every copy alike: no two alignments to compare";
    // A loss, a gradient and an AdamW step (with decay and clipping) from each copy.
    const auto step = [&](ModelParameters<float>& parameters, ModelParameters<float>& gradient) {
        ForwardWorkspace<float> workspace;
        const double loss = lossAndGradient(parameters, batch, gradient, workspace).loss;
        AdamWSettings settings;
        settings.clipNorm = 0.1;
        AdamW<float>(spec, settings).step(parameters, gradient);
        return loss;
    };
    ModelParameters<float> first = copies.front(), firstGradient;
    const double firstLoss = step(first, firstGradient);
    for (ModelParameters<float>& copy : copies) {
        ModelParameters<float> gradient;
        EXPECT_EQ(step(copy, gradient), firstLoss);
        EXPECT_EQ(gradient.values, firstGradient.values);
        EXPECT_EQ(copy.values, first.values);
    }
}

}  // namespace
}  // namespace qkv
