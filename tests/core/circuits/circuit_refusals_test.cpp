// Models whose heads have no circuits say why (noCircuitsReason), and every entry point refuses
// them with that reason: BERT's masked LM (its readout is not the direct path), an
// encoder-decoder (cross-attention), and a bare model without a readout.
#include <gtest/gtest.h>

#include <string>

#include "core/circuits/head_circuits.hpp"
#include "support/pretrained_fixtures.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

void expectRefused(const PretrainedModel& model, const std::string& words)
{
    const std::string reason = noCircuitsReason(model);
    EXPECT_NE(reason.find(words), std::string::npos) << reason;
    const Expected<CircuitBasis> basis = circuitBasis(model);
    ASSERT_FALSE(basis.ok());
    EXPECT_EQ(basis.error(), reason);
    const auto top = tokenCircuits(model, {0, 0}, CircuitSide::QK, {1}, 3);
    ASSERT_FALSE(top.ok());
    EXPECT_EQ(top.error(), reason);
    const CircuitBasis empty;
    EXPECT_FALSE(modelCircuits(model, empty, {1}, 3).ok());
    EXPECT_FALSE(copyingScoreGrid(model, empty).ok());
}

TEST(CircuitRefusals, BertsMaskedLanguageModel)
{
    expectRefused(openPretrainedFixture("bert"), "masked language model");
}

TEST(CircuitRefusals, AnEncoderDecoderAndItsCrossAttention)
{
    const PretrainedModel bart = openPretrainedFixture("bart");
    expectRefused(bart, "encoder-decoder");
    bool hasCross = false;
    for (const CheckpointLayer& layer : bart.layersInModelOrder)
        hasCross = hasCross || layer.kind == AttentionMode::Cross;
    EXPECT_TRUE(hasCross);
}

TEST(CircuitRefusals, AModelWithoutAReadout)
{
    Expected<PretrainedModel> bare = openPretrainedModel(std::string(testDataDir()) + "/circuits/bert_bare");
    ASSERT_TRUE(bare.ok()) << bare.error();
    ASSERT_FALSE(bare->hasReadout());
    expectRefused(*bare, "no readout");
}

TEST(CircuitRefusals, CausalLanguageModelsHaveCircuits)
{
    for (const char* family : {"gpt2", "llama", "qwen3"})
        EXPECT_EQ(noCircuitsReason(openPretrainedFixture(family)), "") << family;
}

}  // namespace
}  // namespace qkv
