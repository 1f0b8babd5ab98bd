// What a model will take before it is loaded (model_memory.hpp, estimateModelLoadMemory), from its
// headers alone: held against the tensors counted by name here and against the loaded model.

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "core/checkpoint/checkpoint.hpp"
#include "core/pretrained/model_memory.hpp"
#include "support/pretrained_fixtures.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

struct Counted {
    std::size_t total = 0;         // every tensor's values
    std::size_t blocks = 0;        // the values under model.layers.N.
    std::size_t largestBlock = 0;
};

// Counted by the Hugging Face names of a LLaMA-style model, independently of the family table.
Counted countByName(const Checkpoint& checkpoint)
{
    Counted c;
    std::map<std::string, std::size_t> perBlock;
    for (const auto& [name, tensor] : checkpoint.tensors) {
        std::size_t n = 1;
        for (const std::size_t extent : tensor.shape) n *= extent;
        c.total += n;
        const std::string prefix = "model.layers.";
        if (!name.starts_with(prefix)) continue;
        perBlock[name.substr(0, name.find('.', prefix.size()))] += n;
        c.blocks += n;
    }
    for (const auto& [block, n] : perBlock) c.largestBlock = std::max(c.largestBlock, n);
    return c;
}

void expectCountedAsLoaded(const std::string& path)
{
    SCOPED_TRACE(path);
    Expected<Checkpoint> checkpoint = openCheckpoint(path);
    ASSERT_TRUE(checkpoint) << checkpoint.error();
    const Counted counted = countByName(*checkpoint);
    ASSERT_GT(counted.blocks, 0u);
    ASSERT_LT(counted.largestBlock, counted.blocks);  // two blocks or more: the difference is seen

    const ModelLoadMemory unknown = estimateModelLoadMemory(*checkpoint, 0);
    EXPECT_EQ(unknown.residency, WeightResidency::Whole);
    EXPECT_TRUE(unknown.fits());
    // One block at a time holds every tensor but the blocks not running.
    EXPECT_EQ(unknown.wholeBytes - unknown.oneBlockBytes, sizeof(float) * (counted.blocks - counted.largestBlock));
    // The whole model: the loaded model's weights (counted matrix by matrix), plus a program and a run.
    Expected<PretrainedModel> model = openPretrainedModel(path, {}, WeightResidency::Whole);
    ASSERT_TRUE(model) << model.error();
    EXPECT_EQ(modelWeightBytes(*model), sizeof(float) * counted.total);
    EXPECT_GT(unknown.wholeBytes, modelWeightBytes(*model));

    // Automatic: one block at a time once the float32 weights exceed half of what is available.
    const std::size_t weights = sizeof(float) * counted.total;
    EXPECT_EQ(estimateModelLoadMemory(*checkpoint, 2 * weights).residency, WeightResidency::Whole);
    const ModelLoadMemory tight = estimateModelLoadMemory(*checkpoint, 2 * weights - 1);
    EXPECT_EQ(tight.residency, WeightResidency::OneBlockAtATime);
    EXPECT_EQ(tight.bytes(), tight.oneBlockBytes);
    EXPECT_EQ(tight.availableBytes, 2 * weights - 1);
    // Whole, and room for it: it fits.
    const ModelLoadMemory roomy = estimateModelLoadMemory(*checkpoint, std::max(unknown.wholeBytes, 2 * weights));
    EXPECT_EQ(roomy.residency, WeightResidency::Whole);
    EXPECT_TRUE(roomy.fits());
    // Less than the one-block figure: refused (these small models' program term alone exceeds it).
    const ModelLoadMemory tiny = estimateModelLoadMemory(*checkpoint, weights);
    EXPECT_EQ(tiny.residency, WeightResidency::OneBlockAtATime);
    ASSERT_GT(tiny.oneBlockBytes, weights);
    EXPECT_FALSE(tiny.fits());
}

TEST(ModelLoadMemory, SafetensorsFolderCountedFromItsHeaders) { expectCountedAsLoaded(pretrainedFixture("llama")); }

TEST(ModelLoadMemory, GgufFileCountedFromItsHeaders)
{
    expectCountedAsLoaded(std::string(testDataDir()) + "/gguf/models/llama_q8_0/model.gguf");
}

TEST(ModelLoadMemory, AvailableMemoryIsReadOnLinux)
{
#if defined(__linux__)
    EXPECT_GT(availableMemoryBytes(), 0u);
#endif
    EXPECT_EQ(automaticResidency(100, 0), WeightResidency::Whole);
    EXPECT_EQ(automaticResidency(100, 200), WeightResidency::Whole);
    EXPECT_EQ(automaticResidency(101, 200), WeightResidency::OneBlockAtATime);
}

}  // namespace
}  // namespace qkv
