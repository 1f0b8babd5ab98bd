// Each family's layer, loaded from a synthetic checkpoint (tests/data/checkpoint, written by
// make_checkpoints.py), run through our attention, against an independent NumPy computation
// in that family's own layout.

#include <string>

#include <gtest/gtest.h>

#include "core/attention/multi_head_attention.hpp"
#include "core/checkpoint/checkpoint.hpp"
#include "core/io/npy.hpp"
#include "support/matrix_assertions.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

std::string data(const std::string& name) { return std::string(qkv::testDataDir()) + "/checkpoint/" + name; }

MatrixF npy(const std::string& path)
{
    Expected<MatrixD> matrix = readNpyMatrixD(path);
    EXPECT_TRUE(matrix.ok()) << (matrix ? "" : matrix.error());
    return matrix ? MatrixF(matrix->cast<float>()) : MatrixF();
}

// Our float attention against NumPy's float64 on the small synthetic layers.
constexpr float kReferenceTolerance = 1e-5f;

// One of our matrices against NumPy's; a failure names the layer and what was compared.
void expectNearReference(const MatrixF& ours, const MatrixF& numpy, const std::string& layer, const std::string& what)
{
    EXPECT_MATRIX_NEAR(ours, numpy, kReferenceTolerance) << layer << ": " << what << " differs from the NumPy reference";
}

// Loads `layer` of `folder`'s checkpoint, computes it on the stored X as the settings say,
// and compares attention (every head) and output with the NumPy reference.
CheckpointLayerWeights expectMatchesReference(const std::string& folder, const std::string& file,
                                              const std::string& layer, Index headCount = 0)
{
    CheckpointOptions options;
    options.headCount = headCount;
    Expected<CheckpointLayerWeights> loaded = loadCheckpointLayer(data(folder + "/" + file), layer, options);
    EXPECT_TRUE(loaded.ok()) << (loaded ? "" : loaded.error());
    if (!loaded) return {};
    const CheckpointLayerSettings& s = loaded->settings;
    const std::string prefix = data(folder + "/" + loaded->layer.name);
    const MatrixF xq = npy(prefix + "_xq.npy");
    const MatrixF xkv = npy(prefix + "_xkv.npy");
    const MatrixF attention = npy(prefix + "_attention.npy");  // h n_q x n_k
    const MatrixF output = npy(prefix + "_output.npy");
    // A reference that did not load (reported above) or has another shape ends the comparison
    // here: the forward pass and middleRows need consistent sizes.
    if (xq.size() == 0 || xkv.size() == 0 || output.size() == 0 ||
        attention.rows() != s.headCount * xq.rows() || attention.cols() != xkv.rows()) {
        ADD_FAILURE() << folder << " " << loaded->layer.name << ": the NumPy reference is missing or has other shapes";
        return std::move(*loaded);
    }

    AttentionOptions options2;
    options2.mask.causal = s.mode == AttentionMode::DecoderCausal;
    options2.rotary = s.positional == PositionalEncoding::Rotary ? RotaryLayout::RotateHalf : RotaryLayout::None;
    options2.conventions.ropeBase = s.conventions.ropeBase;
    options2.scaleScores = s.scaleScores;
    const HeadGrouping grouping{s.headCount, s.keyValueHeadCount, s.d_k};
    const AttentionResult result = multiHeadAttentionForward(xq, xkv, loaded->weights, grouping, options2);
    const std::string name = folder + " " + loaded->layer.name;  // bert and bert_f16 share layer names
    expectNearReference(result.output, output, name, "the output");
    for (Index head = 0; head < s.headCount; ++head)
        expectNearReference(result.heads[static_cast<std::size_t>(head)].attention,
                            attention.middleRows(head * xq.rows(), xq.rows()), name,
                            "the attention of head " + std::to_string(head + 1) + " of " + std::to_string(s.headCount));
    return std::move(*loaded);
}

TEST(CheckpointReference, BertWithConfigAndPositionIds)
{
    const auto loaded = expectMatchesReference("bert", "model.safetensors", "bert.encoder.layer.1.attention");
    EXPECT_EQ(loaded.settings.mode, AttentionMode::EncoderSelf);
    EXPECT_EQ(loaded.settings.headCount, 4);
    EXPECT_EQ(loaded.settings.d_model, 16);
    EXPECT_TRUE(loaded.settings.withBias);
    EXPECT_EQ(loaded.layer.index, 1);
}

TEST(CheckpointReference, BertF16) { expectMatchesReference("bert_f16", "model.safetensors", "1"); }

TEST(CheckpointReference, DistilBertWithoutConfigTakesTheCallersHeads)
{
    const auto loaded = expectMatchesReference("distilbert", "model.safetensors", "0", 2);
    EXPECT_EQ(loaded.layer.name, "distilbert.transformer.layer.0.attention");
    EXPECT_EQ(loaded.settings.headCount, 2);
}

TEST(CheckpointReference, Gpt2Conv1DIsCausal)
{
    const auto loaded = expectMatchesReference("gpt2", "model.safetensors", "h.1.attn");
    EXPECT_EQ(loaded.settings.mode, AttentionMode::DecoderCausal);
}

TEST(CheckpointReference, BartEncoderSelfDecoderCausalAndCross)
{
    EXPECT_EQ(expectMatchesReference("bart", "model.safetensors", "model.encoder.layers.1.self_attn").settings.mode,
              AttentionMode::EncoderSelf);
    EXPECT_EQ(expectMatchesReference("bart", "model.safetensors", "model.decoder.layers.0.self_attn").settings.mode,
              AttentionMode::DecoderCausal);
    EXPECT_EQ(expectMatchesReference("bart", "model.safetensors", "model.decoder.layers.1.encoder_attn").settings.mode,
              AttentionMode::Cross);
}

TEST(CheckpointReference, T5UnscaledWithoutBiasesAndSaysWhatIsLeftOut)
{
    const auto loaded = expectMatchesReference("t5", "model.safetensors", "encoder.block.0.layer.0.SelfAttention");
    EXPECT_FALSE(loaded.settings.scaleScores);
    EXPECT_FALSE(loaded.settings.withBias);
    bool saysBias = false;
    for (const std::string& note : loaded.notes) saysBias |= note.find("relative position bias") != std::string::npos;
    EXPECT_TRUE(saysBias);
    EXPECT_EQ(expectMatchesReference("t5", "model.safetensors", "decoder.block.1.layer.0.SelfAttention").settings.mode,
              AttentionMode::DecoderCausal);
    EXPECT_EQ(expectMatchesReference("t5", "model.safetensors", "decoder.block.0.layer.1.EncDecAttention").settings.mode,
              AttentionMode::Cross);
}

TEST(CheckpointReference, LlamaGroupedQueryRotary)
{
    const auto loaded = expectMatchesReference("llama", "model.safetensors", "model.layers.1.self_attn");
    EXPECT_EQ(loaded.settings.headCount, 4);
    EXPECT_EQ(loaded.settings.keyValueHeadCount, 2);
    EXPECT_EQ(loaded.settings.positional, PositionalEncoding::Rotary);
    EXPECT_DOUBLE_EQ(loaded.settings.conventions.ropeBase, 500.0);
    EXPECT_EQ(loaded.weights.keyProjection.cols(), 8);
}

TEST(CheckpointReference, LlamaBFloat16) { expectMatchesReference("llama_bf16", "model.safetensors", "1"); }

// Heads wider than d_model / h: Qwen3's head_dim (here 8 at d_model 16, h 4) makes q_proj
// h d_k x d_model = 32 x 16 and o_proj 16 x 32; the rotation turns 8-wide heads.
TEST(CheckpointReference, Qwen3HeadsWiderThanDModelOverH)
{
    const auto loaded = expectMatchesReference("qwen3_wide", "model.safetensors", "model.layers.0.self_attn");
    EXPECT_EQ(loaded.settings.d_k, 8);
    EXPECT_EQ(loaded.settings.keyValueHeadCount, 2);
    EXPECT_EQ(loaded.weights.queryProjection.rows(), 16);
    EXPECT_EQ(loaded.weights.queryProjection.cols(), 32);
    EXPECT_EQ(loaded.weights.outputProjection.rows(), 32);
    EXPECT_EQ(loaded.settings.fixedBy.at(LayerSetting::HeadDim), "the layer's shape");
    // A session takes the layer's d_k as its own; d_model / h would be 4.
    Config config;
    applyCheckpointLayerSettings(loaded.settings, config);
    EXPECT_EQ(config.headDim, 8);
    EXPECT_EQ(config.d_k(), 8);
}

// T5 with h d_kv = 2 d_model (d_kv 8 at d_model 16, h 4): unscaled, as every T5 layer.
TEST(CheckpointReference, T5InnerWidthOtherThanDModel)
{
    const auto loaded = expectMatchesReference("t5_wide", "model.safetensors", "encoder.block.0.layer.0.SelfAttention");
    EXPECT_EQ(loaded.settings.d_k, 8);
    EXPECT_FALSE(loaded.settings.scaleScores);
}

// Heads of d_model / h leave the session's d_k following d_model / h.
TEST(CheckpointReference, PaperWidthHeadsLeaveHeadDimUnset)
{
    const auto loaded = expectMatchesReference("llama", "model.safetensors", "model.layers.1.self_attn");
    Config config;
    config.headDim = 3;
    applyCheckpointLayerSettings(loaded.settings, config);
    EXPECT_EQ(config.headDim, 0);
    EXPECT_EQ(config.d_k(), 4);
}

TEST(CheckpointReference, ShardedIndex)
{
    expectMatchesReference("sharded", "model.safetensors.index.json", "encoder.layer.1.attention");
}

TEST(CheckpointListing, ListsEveryLayerInOrderWithKindAndSizes)
{
    Expected<Checkpoint> bart = openCheckpoint(data("bart/model.safetensors"));
    ASSERT_TRUE(bart.ok()) << bart.error();
    ASSERT_EQ(bart->layers.size(), 6u);
    EXPECT_EQ(checkpointLayerLine(bart->layers[0]), "0\tmodel.decoder.layers.0.encoder_attn\tcross\t4\t4\t16");
    EXPECT_EQ(checkpointLayerLine(bart->layers[1]), "1\tmodel.decoder.layers.0.self_attn\tcausal\t4\t4\t16");
    EXPECT_EQ(checkpointLayerLine(bart->layers[5]), "5\tmodel.encoder.layers.1.self_attn\tself\t4\t4\t16");

    Expected<Checkpoint> llama = openCheckpoint(data("llama/model.safetensors"));
    ASSERT_TRUE(llama.ok()) << llama.error();
    ASSERT_EQ(llama->layers.size(), 2u);
    EXPECT_EQ(checkpointLayerLine(llama->layers[1]), "1\tmodel.layers.1.self_attn\tcausal\t4\t2\t16");
    EXPECT_TRUE(llama->headCountFromConfig);

    Expected<Checkpoint> distil = openCheckpoint(data("distilbert/model.safetensors"));
    ASSERT_TRUE(distil.ok()) << distil.error();
    EXPECT_FALSE(distil->headCountFromConfig);
    EXPECT_EQ(distil->layers[0].headCount, 1);  // d_model 8: 64 does not divide it
}

TEST(CheckpointListing, ApplyingSettingsChangesOnlyTheirFields)
{
    Expected<CheckpointLayerWeights> loaded = loadCheckpointLayer(data("llama/model.safetensors"), "0");
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    Config config;
    config.sourceText = "kept";
    config.seed = 7;
    applyCheckpointLayerSettings(loaded->settings, config);
    EXPECT_EQ(config.d_model, 16);
    EXPECT_EQ(config.headCount, 4);
    EXPECT_EQ(config.keyValueHeadCount, 2);
    EXPECT_EQ(config.g(), 2);
    EXPECT_EQ(config.mode, AttentionMode::DecoderCausal);
    EXPECT_EQ(config.sourceText, "kept");
    EXPECT_EQ(config.seed, 7u);
}

}  // namespace
}  // namespace qkv
