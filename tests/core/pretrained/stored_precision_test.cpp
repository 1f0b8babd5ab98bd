// Weights kept in the precision the file stores (WeightResidency::OneBlockAtATime: bf16, f16 or
// quantized blocks stay in the file, a block converted to float32 when a run reaches it) give the
// bits of a run whose every weight was converted at load: bf16 safetensors (tied and untied
// readout), a Q4_K / Q6_K GGUF, and the GGUF fixtures whose Q and K rows llama.cpp interleaved.
// Opening reads no block's values, so a value that is not finite is reported when its block is
// reached, naming the tensor; and a block is decoded into the previous block's memory.

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/pretrained/large_checkpoints.hpp"
#include "bench/pretrained/synthetic_checkpoints.hpp"
#include "core/io/safetensors.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "support/test_folder.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

// Llama's names in bf16 at small widths: 2 blocks, d_model 64, 4 heads over 2, d_ff 96, V 120.
constexpr bench::SyntheticShape tiedBf16{"llama-bf16", bench::SyntheticFamily::Llama, 2, 64, 4, 96, 120, 64, 10, 2, 16};

PretrainedModel open(const std::string& path, WeightResidency residency)
{
    Expected<PretrainedModel> model = openPretrainedModel(path, {}, residency);
    EXPECT_TRUE(model) << path << ": " << (model ? "" : model.error());
    return model ? std::move(*model) : PretrainedModel();
}

std::vector<std::int32_t> someIds(Index vocabulary)
{
    std::vector<std::int32_t> ids;
    for (std::int32_t i = 0; i < 10; ++i) ids.push_back(static_cast<std::int32_t>((7 * i + 3) % vocabulary));
    return ids;
}

void expectSameRun(const PretrainedModel& whole, const PretrainedModel& stored, const std::string& path);

// Opened whole and kept as stored, with and without converting ahead: the same bits.
void expectSameBits(const std::string& path)
{
    const PretrainedModel whole = open(path, WeightResidency::Whole);
    PretrainedModel stored = open(path, WeightResidency::OneBlockAtATime);
    ASSERT_EQ(stored.residency, WeightResidency::OneBlockAtATime);
    for (const bool ahead : {false, true}) {
        SCOPED_TRACE(ahead ? "block b + 1 converted while b computes" : "one block at a time");
        stored.convertAhead = ahead;
        expectSameRun(whole, stored, path);
    }
}

// Every layer's attention of every head, every hidden state and the logits: the same bits.
void expectSameRun(const PretrainedModel& whole, const PretrainedModel& stored, const std::string& path)
{
    ASSERT_GT(whole.layerCount(), 1) << path;
    const ModelTokens tokens{someIds(whole.recipe.vocabularySize), {}};
    Expected<ModelRun> a = runPretrainedModel(whole, tokens);
    Expected<ModelRun> b = runPretrainedModel(stored, tokens);
    ASSERT_TRUE(a && b) << path << ": " << (a ? "" : a.error()) << (b ? "" : b.error());
    ASSERT_EQ(a->layers.size(), b->layers.size());
    for (std::size_t l = 0; l < a->layers.size(); ++l) {
        const AttentionResult& x = a->layers[l]->attention;
        const AttentionResult& y = b->layers[l]->attention;
        ASSERT_EQ(x.heads.size(), y.heads.size());
        for (std::size_t i = 0; i < x.heads.size(); ++i)
            EXPECT_TRUE(x.heads[i].attention == y.heads[i].attention) << path << " layer " << l << " head " << i;
        EXPECT_TRUE(x.output == y.output) << path << " layer " << l;
    }
    ASSERT_EQ(a->hiddenStates.size(), b->hiddenStates.size());
    for (std::size_t i = 0; i < a->hiddenStates.size(); ++i)
        EXPECT_TRUE(a->hiddenStates[i] == b->hiddenStates[i]) << path << " hidden state " << i;
    ASSERT_GT(a->logits.size(), 0);
    EXPECT_TRUE(a->logits == b->logits) << path;
}

TEST(StoredPrecision, Bf16SafetensorsRunsWithTheBitsOfTheWholeModel)
{
    TestFolder folder("stored_bf16");
    Expected<std::string> tied = bench::syntheticCheckpoint(tiedBf16, folder.path().string());
    ASSERT_TRUE(tied) << tied.error();
    expectSameBits(*tied);
    Expected<std::string> untied = bench::largeSafetensorsCheckpoint(bench::llamaTiny, folder.path().string());
    ASSERT_TRUE(untied) << untied.error();
    expectSameBits(*untied);
}

TEST(StoredPrecision, QuantizedGgufRunsWithTheBitsOfTheWholeModel)
{
    TestFolder folder("stored_gguf");
    Expected<std::string> q4km = bench::largeGgufCheckpoint(bench::llamaTiny, folder.path().string());
    ASSERT_TRUE(q4km) << q4km.error();
    expectSameBits(*q4km);
    // llama.cpp's interleaved Q and K rows, in F32 and in Q8_0.
    for (const char* fixture : {"llama", "llama_q8_0"})
        expectSameBits(std::string(testDataDir()) + "/gguf/models/" + fixture + "/model.gguf");
}

TEST(StoredPrecision, ANonFiniteValueIsReportedWhenItsBlockIsReached)
{
    TestFolder folder("stored_nan");
    Expected<std::string> written = bench::syntheticCheckpoint(tiedBf16, folder.path().string());
    ASSERT_TRUE(written) << written.error();
    const std::string file = *written + "/model.safetensors";
    Expected<SafetensorsFile> tensors = readSafetensors(file);
    ASSERT_TRUE(tensors) << tensors.error();
    const std::string broken = "model.layers.1.mlp.down_proj.weight";
    bool found = false;
    for (Tensor& t : tensors->tensors)
        if (t.name == broken) {
            const std::uint16_t nan = 0x7fc0;  // a bf16 NaN, at value 5
            std::memcpy(t.data.data() + 10, &nan, 2);
            found = true;
        }
    ASSERT_TRUE(found);
    ASSERT_TRUE(writeSafetensors(file, *tensors));

    Expected<PretrainedModel> whole = openPretrainedModel(*written, {}, WeightResidency::Whole);
    ASSERT_FALSE(whole);
    EXPECT_NE(whole.error().find(broken), std::string::npos) << whole.error();
    // Kept as stored: opens, shows its first layer, and says what is wrong when block 1 is reached.
    const PretrainedModel stored = open(*written, WeightResidency::OneBlockAtATime);
    const ModelTokens tokens{someIds(tiedBf16.vocabulary), {}};
    RunOptions first;
    first.lastLayer = 0;
    Expected<ModelRun> shown = runPretrainedModel(stored, tokens, first);
    EXPECT_TRUE(shown) << (shown ? "" : shown.error());
    Expected<ModelRun> all = runPretrainedModel(stored, tokens);
    ASSERT_FALSE(all);
    EXPECT_NE(all.error().find(broken), std::string::npos) << all.error();
    EXPECT_NE(all.error().find("not finite"), std::string::npos) << all.error();
}

TEST(StoredPrecision, ABlockIsDecodedIntoThePreviousBlocksMemory)
{
    TestFolder folder("stored_reuse");
    Expected<std::string> written = bench::syntheticCheckpoint(tiedBf16, folder.path().string());
    ASSERT_TRUE(written) << written.error();
    const PretrainedModel stored = open(*written, WeightResidency::OneBlockAtATime);
    const StackWeights& stack = stored.singleStack();
    ASSERT_EQ(stack.blocks.size(), 2u);
    // The memory of every matrix of a block (matrices of one size may trade places).
    const auto memoryOf = [](const BlockWeights& block) {
        const AttentionWeights& a = block.selfAttention.attention;
        const FeedForwardWeights& f = block.feedForward;
        return std::multiset<const float*>{a.queryProjection.data(), a.keyProjection.data(), a.valueProjection.data(),
                                           a.outputProjection.data(), f.in.data(), f.gate.data(), f.out.data()};
    };
    std::optional<BlockWeights> storage;
    Expected<const BlockWeights*> first = runBlockWeights(stored, stack, 0, storage);
    ASSERT_TRUE(first) << first.error();
    const std::multiset<const float*> memory = memoryOf(**first);
    const MatrixF firstDown = (*first)->feedForward.out;
    Expected<const BlockWeights*> second = runBlockWeights(stored, stack, 1, storage);
    ASSERT_TRUE(second) << second.error();
    EXPECT_EQ((*second)->block, 1);
    EXPECT_EQ(memoryOf(**second), memory);
    EXPECT_FALSE((*second)->feedForward.out == firstDown);  // block 1's values, not block 0's
}

}  // namespace
}  // namespace qkv
