// Property: for random models and batches, every analytic gradient coordinate we probe equals
// the central difference (L(p + e) - L(p - e)) / 2e of the loss, in double.

#include <gtest/gtest.h>

#include "model_test_support.hpp"

namespace qkv {
namespace {

// A model of the given shape with every tensor random (norms and biases too), so that no
// gradient is trivially zero.
ModelParameters<double> randomModel(const ModelSpec& spec, std::uint64_t seed)
{
    ModelParameters<double> parameters = ModelParameters<double>::initialised(spec, seed);
    SplitMix64 random(seed ^ 0xABCDEFull);
    for (const TensorSlot& slot : parameters.tensors) {
        const bool gamma = slot.name.ends_with(".gamma");
        auto tensor = parameters.tensor(slot);
        if (gamma || slot.name.ends_with(".beta") || slot.name.find(".b_") != std::string::npos || slot.name == "readout.b")
            for (Index i = 0; i < tensor.size(); ++i) tensor.data()[i] = (gamma ? 1.0 : 0.0) + 0.2 * random.normal();
    }
    return parameters;
}

void expectGradientMatchesDifferences(const ModelSpec& spec, std::uint64_t seed)
{
    SCOPED_TRACE("seed " + std::to_string(seed));
    ASSERT_EQ(spec.problem(), "");
    ModelParameters<double> parameters = randomModel(spec, seed);
    const std::vector<SequencePair> batch = testing::randomBatch(spec, 3, seed + 1);
    ModelParameters<double> gradient;
    ASSERT_EQ(lossAndGradient(parameters, batch, gradient).problem, "");
    // Every tensor, a few coordinates each.
    SplitMix64 random(seed + 2);
    const double step = 1e-5;
    for (const TensorSlot& slot : parameters.tensors) {
        for (int probe = 0; probe < 3; ++probe) {
            const std::size_t index = slot.offset + random.next() % slot.size();
            const double saved = parameters.values[index];
            parameters.values[index] = saved + step;
            const double above = evaluateLoss(parameters, batch).loss;
            parameters.values[index] = saved - step;
            const double below = evaluateLoss(parameters, batch).loss;
            parameters.values[index] = saved;
            const double numeric = (above - below) / (2.0 * step);
            // Central differences err by O(step^2) times the third derivative plus rounding
            // eps L / step; 1e-6 absolute leaves room for both and catches any wrong term.
            EXPECT_NEAR(gradient.values[index], numeric, 1e-6 + 1e-5 * std::abs(numeric))
                << slot.name << " entry " << index - slot.offset;
        }
    }
}

TEST(ModelFiniteDifferences, EncoderDecoderVariants)
{
    ModelSpec spec;
    spec.vocabularySize = 7;
    spec.maxPositions = 8;
    spec.d_model = 8;
    spec.headCount = 2;
    spec.d_ff = 10;
    std::uint64_t seed = 100;
    for (ScoreForm form : {ScoreForm::Factored, ScoreForm::Full})
        for (NormPlacement placement : {NormPlacement::Pre, NormPlacement::Post}) {
            spec.scoreForm = form;
            spec.placement = placement;
            spec.activation = placement == NormPlacement::Pre ? Activation::Gelu : Activation::Relu;
            spec.positions = form == ScoreForm::Full ? PositionKind::Learned : PositionKind::Sinusoidal;
            expectGradientMatchesDifferences(spec, seed++);
        }
}

TEST(ModelFiniteDifferences, DeeperStacksAndDecoderOnly)
{
    ModelSpec spec;
    spec.vocabularySize = 6;
    spec.maxPositions = 8;
    spec.d_model = 6;
    spec.headCount = 3;
    spec.encoderLayers = 2;
    spec.decoderLayers = 2;
    spec.d_ff = 4;
    expectGradientMatchesDifferences(spec, 7);
    spec.encoderLayers = 0;
    spec.norm = NormKind::None;
    spec.d_ff = 0;
    spec.scaleEmbedding = false;
    expectGradientMatchesDifferences(spec, 8);
}

}  // namespace
}  // namespace qkv
