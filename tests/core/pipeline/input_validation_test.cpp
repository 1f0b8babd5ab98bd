// Validation before computing (core/pipeline/input_validation.hpp): one check of whether loaded
// weights fit the configuration, said at the field that asks, in the same words by the app's
// document, the command line and compute().
#include <gtest/gtest.h>

#include "core/config/examples.hpp"
#include "core/pipeline/compute.hpp"
#include "core/pipeline/input_validation.hpp"

namespace qkv {
namespace {

UserInputs withWeights(Index d_model, Index keyValueWidth)
{
    UserInputs inputs;
    inputs.weights = std::make_shared<const AttentionWeights>(
        initialiseWeights(d_model, keyValueWidth, 1, WeightInit::Normal, false));
    return inputs;
}

TEST(WeightsFit, ADModelTheWeightsDoNotHaveIsSaidAtDModelBeforeComputing)
{
    const Config config = builtInExample();  // d_model 64
    const UserInputs inputs = withWeights(32, 32);
    const std::vector<ValidationIssue> issues = validateInputs(config, inputs);
    ASSERT_EQ(issues.size(), 1u) << describe(issues);
    EXPECT_EQ(issues[0].field, ConfigField::DModel);
    EXPECT_NE(issues[0].message.find("d_model = 32 but d_model is set to 64"), std::string::npos) << issues[0].message;
    // compute() refuses with the same words.
    const auto result = compute(config, inputs);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().find(issues[0].message), std::string::npos) << result.error();
}

TEST(WeightsFit, AGTheWeightsDoNotHaveIsSaidAtKeyValueHeads)
{
    Config config = builtInExample();               // h 4, d_k 16
    const UserInputs inputs = withWeights(64, 32);  // g = 2
    std::vector<ValidationIssue> issues = validateInputs(config, inputs);
    ASSERT_EQ(issues.size(), 1u) << describe(issues);
    EXPECT_EQ(issues[0].field, ConfigField::KeyValueHeads);
    EXPECT_NE(issues[0].message.find("g = 2"), std::string::npos) << issues[0].message;
    config.keyValueHeadCount = 2;
    EXPECT_TRUE(validateInputs(config, inputs).empty());
}

TEST(WeightsFit, GeneratedWeightsAndAnInvalidHAreNotTheWeightsConcern)
{
    Config config = builtInExample();
    EXPECT_TRUE(weightsFitIssues(nullptr, config).empty());
    config.headCount = 3;  // validateConfig says so at h
    const UserInputs inputs = withWeights(64, 64);
    EXPECT_TRUE(weightsFitIssues(inputs.weights.get(), config).empty());
}

}  // namespace
}  // namespace qkv
