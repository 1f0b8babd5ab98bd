// Loss and every parameter's gradient against PyTorch autograd in float64
// (tests/data/model/make_model_fixtures.py: an independent model written from the formulas).

#include <gtest/gtest.h>

#include "model_test_support.hpp"

namespace qkv {
namespace {

using testing::batchFromJson;
using testing::parametersFromJson;
using testing::specFromJson;

TEST(ModelGradients, MatchPyTorchAutogradInEveryCase)
{
    const nlohmann::json fixture = testing::readFixture("model_gradients.json");
    ASSERT_TRUE(fixture.contains("cases")) << "missing fixture tests/data/model/model_gradients.json";
    ASSERT_EQ(fixture.at("cases").size(), 6u);
    for (const nlohmann::json& c : fixture.at("cases")) {
        SCOPED_TRACE(c.at("name").get<std::string>());
        const ModelSpec spec = specFromJson(c.at("spec"));
        ASSERT_EQ(spec.problem(), "");
        const ModelParameters<double> parameters = parametersFromJson<double>(spec, c.at("parameters"));
        const ModelParameters<double> expected = parametersFromJson<double>(spec, c.at("gradients"));
        const std::vector<SequencePair> batch = batchFromJson(c.at("batch"));
        ModelParameters<double> gradient;
        const BatchLoss loss = lossAndGradient(parameters, batch, gradient);
        ASSERT_EQ(loss.problem, "");
        EXPECT_NEAR(loss.loss, c.at("loss").get<double>(), 1e-12 * c.at("loss").get<double>());
        EXPECT_EQ(loss.sequences, static_cast<Index>(batch.size()));
        ASSERT_EQ(gradient.values.size(), parameters.values.size());
        for (const TensorSlot& slot : parameters.tensors)
            EXPECT_TENSOR_NEAR(slot.name, gradient.tensor(slot), expected.tensor(slot), 1e-8);
        // The forward alone gives the same loss.
        EXPECT_EQ(evaluateLoss(parameters, batch).loss, loss.loss);
    }
}

TEST(ModelGradients, FloatFollowsDoubleClosely)
{
    const nlohmann::json fixture = testing::readFixture("model_gradients.json");
    ASSERT_TRUE(fixture.contains("cases"));
    for (const nlohmann::json& c : fixture.at("cases")) {
        SCOPED_TRACE(c.at("name").get<std::string>());
        const ModelSpec spec = specFromJson(c.at("spec"));
        const ModelParameters<double> parameters = parametersFromJson<double>(spec, c.at("parameters"));
        const ModelParameters<double> expected = parametersFromJson<double>(spec, c.at("gradients"));
        ModelParameters<float> gradient;
        const BatchLoss loss = lossAndGradient(parameters.cast<float>(), batchFromJson(c.at("batch")), gradient);
        EXPECT_NEAR(loss.loss, c.at("loss").get<double>(), 1e-5);
        for (const TensorSlot& slot : parameters.tensors)
            EXPECT_TENSOR_NEAR(slot.name, gradient.tensor(slot), expected.tensor(slot), 1e-4);
    }
}

}  // namespace
}  // namespace qkv
