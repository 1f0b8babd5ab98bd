// AdamW with clipping and warm-up against torch.optim.AdamW + clip_grad_norm_ (float32, 20 steps,
// tests/data/model/make_model_fixtures.py), and its rules one at a time.

#include <cmath>

#include <gtest/gtest.h>

#include "core/trainable/adamw.hpp"
#include "model_test_support.hpp"

namespace qkv {
namespace {

AdamWSettings settingsFromJson(const nlohmann::json& j)
{
    AdamWSettings settings;
    settings.learningRate = j.at("learning_rate").get<double>();
    settings.beta1 = j.at("beta1").get<double>();
    settings.beta2 = j.at("beta2").get<double>();
    settings.epsilon = j.at("epsilon").get<double>();
    settings.weightDecay = j.at("weight_decay").get<double>();
    settings.clipNorm = j.at("clip_norm").get<double>();
    settings.warmupSteps = j.at("warmup_steps").get<long>();
    return settings;
}

TEST(AdamW, TwentyStepsFollowPyTorch)
{
    const nlohmann::json fixture = testing::readFixture("model_adamw.json");
    ASSERT_TRUE(fixture.contains("losses")) << "missing fixture tests/data/model/model_adamw.json";
    const ModelSpec spec = testing::specFromJson(fixture.at("spec"));
    ModelParameters<float> parameters = testing::parametersFromJson<float>(spec, fixture.at("parameters"));
    AdamW<float> optimizer(spec, settingsFromJson(fixture.at("settings")));
    std::vector<std::vector<SequencePair>> batches;
    for (const nlohmann::json& batch : fixture.at("batches")) batches.push_back(testing::batchFromJson(batch));
    const std::vector<double> expected = fixture.at("losses").get<std::vector<double>>();
    ASSERT_EQ(expected.size(), 20u);
    ModelParameters<float> gradient;
    bool clipped = false;
    for (std::size_t step = 0; step < expected.size(); ++step) {
        const BatchLoss loss = lossAndGradient(parameters, batches[step % batches.size()], gradient);
        ASSERT_EQ(loss.problem, "");
        EXPECT_NEAR(loss.loss, expected[step], 1e-4) << "step " << step + 1;
        clipped = optimizer.step(parameters, gradient) > optimizer.settings().clipNorm || clipped;
    }
    EXPECT_TRUE(clipped) << "the fixture should exercise clipping";
    EXPECT_EQ(optimizer.steps(), 20);
    EXPECT_LT(expected.back(), expected.front()) << "the fixture should show learning";
}

// One parameter tensor of each kind, a gradient of our choosing.
struct Toy {
    ModelSpec spec;
    ModelParameters<double> parameters, gradient;
    Toy()
    {
        spec.vocabularySize = 4;
        spec.maxPositions = 2;
        spec.d_model = 2;
        spec.headCount = 1;
        spec.encoderLayers = 0;
        spec.d_ff = 0;
        parameters = ModelParameters<double>::initialised(spec, 3);
        gradient = ModelParameters<double>::zeros(spec);
    }
};

TEST(AdamW, DecaysOnlyTheTensorsThatAskForIt)
{
    Toy toy;
    AdamWSettings settings;
    settings.learningRate = 0.1;
    settings.weightDecay = 0.5;
    AdamW<double> optimizer(toy.spec, settings);
    const ModelParameters<double> before = toy.parameters;
    optimizer.step(toy.parameters, toy.gradient);  // zero gradient: only the decay moves anything
    for (const TensorSlot& slot : toy.parameters.tensors) {
        const double factor = slot.decays ? 1.0 - 0.1 * 0.5 : 1.0;
        EXPECT_TENSOR_NEAR(slot.name, toy.parameters.tensor(slot), (before.tensor(slot) * factor).eval(), 1e-15);
    }
    EXPECT_TRUE(toy.parameters.find("readout.W")->decays);
    EXPECT_FALSE(toy.parameters.find("embedding.token")->decays);
    EXPECT_FALSE(toy.parameters.find("readout.b")->decays);
}

TEST(AdamW, ClipsTheGlobalNormAndReturnsItBeforeClipping)
{
    Toy toy;
    AdamWSettings settings;
    settings.clipNorm = 1.0;
    AdamW<double> optimizer(toy.spec, settings);
    toy.gradient.values[0] = 3.0;
    toy.gradient.values[1] = 4.0;
    EXPECT_DOUBLE_EQ(optimizer.step(toy.parameters, toy.gradient), 5.0);
    EXPECT_NEAR(toy.gradient.values[0], 3.0 / (5.0 + 1e-6), 1e-15);
    EXPECT_NEAR(toy.gradient.values[1], 4.0 / (5.0 + 1e-6), 1e-15);
    // Below the limit nothing changes.
    toy.gradient.values[0] = 0.3;
    toy.gradient.values[1] = 0.4;
    EXPECT_DOUBLE_EQ(optimizer.step(toy.parameters, toy.gradient), 0.5);
    EXPECT_EQ(toy.gradient.values[0], 0.3);
}

TEST(AdamW, FirstStepMovesEachCoordinateByTheLearningRate)
{
    // With bias correction, step 1 gives m/sqrt(v) = sign(g): every coordinate with a gradient
    // moves by lr (up to epsilon), whatever the gradient's size.
    Toy toy;
    AdamWSettings settings;
    settings.learningRate = 0.01;
    settings.weightDecay = 0.0;
    settings.clipNorm = 0.0;
    AdamW<double> optimizer(toy.spec, settings);
    const ModelParameters<double> before = toy.parameters;
    toy.gradient.values[0] = 1e-3;
    toy.gradient.values[1] = -250.0;
    optimizer.step(toy.parameters, toy.gradient);
    EXPECT_NEAR(toy.parameters.values[0], before.values[0] - 0.01, 2e-7);
    EXPECT_NEAR(toy.parameters.values[1], before.values[1] + 0.01, 1e-9);
    EXPECT_EQ(toy.parameters.values[2], before.values[2]);
}

TEST(AdamW, RefusesParametersOfAnotherModel)
{
    Toy toy;
    AdamW<double> optimizer(toy.spec, AdamWSettings{});
    ModelParameters<double> other = ModelParameters<double>::zeros(toy.spec);
    other.values.pop_back();
    const std::vector<double> before = toy.parameters.values;
    EXPECT_TRUE(std::isnan(optimizer.step(toy.parameters, other)));
    EXPECT_EQ(toy.parameters.values, before);
    EXPECT_EQ(optimizer.steps(), 0);
}

TEST(AdamW, WarmsUpLinearly)
{
    Toy toy;
    AdamWSettings settings;
    settings.learningRate = 0.4;
    settings.warmupSteps = 4;
    const AdamW<double> optimizer(toy.spec, settings);
    EXPECT_DOUBLE_EQ(optimizer.learningRate(1), 0.1);
    EXPECT_DOUBLE_EQ(optimizer.learningRate(3), 0.3);
    EXPECT_DOUBLE_EQ(optimizer.learningRate(4), 0.4);
    EXPECT_DOUBLE_EQ(optimizer.learningRate(40), 0.4);
}

TEST(AdamW, RestoredStateContinuesBitForBit)
{
    Toy a, b;
    AdamW<double> first(a.spec, AdamWSettings{}), second(b.spec, AdamWSettings{});
    for (int step = 0; step < 3; ++step) {
        a.gradient.values.assign(a.gradient.values.size(), 0.1 * (step + 1));
        first.step(a.parameters, a.gradient);
    }
    b.parameters = a.parameters;
    EXPECT_FALSE(second.restore(3, {1.0}, first.secondMoment()));
    ASSERT_TRUE(second.restore(first.steps(), first.firstMoment(), first.secondMoment()));
    a.gradient.values.assign(a.gradient.values.size(), -0.2);
    b.gradient.values.assign(b.gradient.values.size(), -0.2);
    first.step(a.parameters, a.gradient);
    second.step(b.parameters, b.gradient);
    EXPECT_EQ(a.parameters.values, b.parameters.values);
}

}  // namespace
}  // namespace qkv
