// A PyTorch state dict with several nn.MultiheadAttention layers is a checkpoint like the
// Hugging Face ones: listed with its kinds, chosen by name or index, loaded by the one
// nn.MultiheadAttention converter (whose mapping tests/core/io checks against PyTorch).

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/checkpoint/checkpoint.hpp"
#include "core/io/safetensors.hpp"
#include "core/io/weights_file.hpp"
#include "core/weights/attention_weights.hpp"
#include "support/test_folder.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

// Module paths as nn.Transformer names them; listed sorted, so in this order.
const std::vector<std::string> kLayers = {"decoder.layers.0.multihead_attn", "decoder.layers.0.self_attn",
                                          "encoder.layers.0.self_attn", "encoder.layers.1.self_attn"};

class PyTorchLayers : public ::testing::Test {
protected:
    void SetUp() override
    {
        // Each layer saved on its own by our nn.MultiheadAttention writer, then merged into one
        // state dict, as torch.save(model.state_dict()) would hold them.
        SafetensorsFile merged;
        for (std::size_t i = 0; i < kLayers.size(); ++i) {
            AttentionWeights w = initialiseWeights(8, 40 + static_cast<std::uint64_t>(i), WeightInit::Normal, true);
            w.queryBias->setRandom();
            w.outputBias->setRandom();
            const std::string one = path("layer" + std::to_string(i) + ".safetensors");
            ASSERT_TRUE(savePyTorchMultiheadAttention(one, w, kLayers[i]).ok());
            Expected<SafetensorsFile> read = readSafetensors(one);
            ASSERT_TRUE(read.ok()) << read.error();
            for (Tensor& t : read->tensors) merged.tensors.push_back(std::move(t));
            weights_.push_back(std::move(w));
        }
        std::sort(merged.tensors.begin(), merged.tensors.end(),
                  [](const Tensor& a, const Tensor& b) { return a.name < b.name; });
        ASSERT_TRUE(writeSafetensors(path("model.safetensors"), merged).ok());
    }

    std::string path(const std::string& name) const { return (folder_ / name).string(); }

    TestFolder scratch_{"pytorch_layers"};
    fs::path folder_ = scratch_.path();
    std::vector<AttentionWeights> weights_;
};

TEST_F(PyTorchLayers, EveryLayerIsListedWithTheKindItsPathSays)
{
    Expected<Checkpoint> checkpoint = openCheckpoint(path("model.safetensors"), CheckpointOptions{2});
    ASSERT_TRUE(checkpoint.ok()) << checkpoint.error();
    EXPECT_FALSE(checkpoint->headCountFromConfig);  // nn.MultiheadAttention does not store h
    ASSERT_EQ(checkpoint->layers.size(), kLayers.size());
    std::vector<std::string> lines;
    for (const CheckpointLayer& layer : checkpoint->layers) {
        EXPECT_EQ(layer.family, Family::PyTorch);
        lines.push_back(checkpointLayerLine(layer));
    }
    EXPECT_EQ(lines, (std::vector<std::string>{"0\tdecoder.layers.0.multihead_attn\tcross\t2\t2\t8",
                                               "1\tdecoder.layers.0.self_attn\tcausal\t2\t2\t8",
                                               "2\tencoder.layers.0.self_attn\tself\t2\t2\t8",
                                               "3\tencoder.layers.1.self_attn\tself\t2\t2\t8"}));
    EXPECT_EQ(layerFamilyName(Family::PyTorch), "PyTorch nn.MultiheadAttention");
}

TEST_F(PyTorchLayers, EachLayerLoadsAsTheWeightsThatWereSaved)
{
    for (std::size_t i = 0; i < kLayers.size(); ++i) {
        // By name, by index, or by the prefix with its trailing dot.
        const std::string which = i == 3 ? kLayers[i] + "." : i % 2 == 0 ? kLayers[i] : std::to_string(i);
        Expected<CheckpointLayerWeights> loaded = loadCheckpointLayer(path("model.safetensors"), which, CheckpointOptions{4});
        ASSERT_TRUE(loaded.ok()) << loaded.error();
        EXPECT_EQ(loaded->layer.name, kLayers[i]);
        const AttentionWeights& w = loaded->weights;
        EXPECT_EQ(w.queryProjection, weights_[i].queryProjection) << kLayers[i];
        EXPECT_EQ(w.keyProjection, weights_[i].keyProjection) << kLayers[i];
        EXPECT_EQ(w.valueProjection, weights_[i].valueProjection) << kLayers[i];
        EXPECT_EQ(w.outputProjection, weights_[i].outputProjection) << kLayers[i];
        ASSERT_TRUE(w.hasBias());
        EXPECT_EQ(*w.queryBias, *weights_[i].queryBias);
        EXPECT_EQ(*w.outputBias, *weights_[i].outputBias);
        EXPECT_EQ(loaded->settings.d_model, 8);
        EXPECT_EQ(loaded->settings.headCount, 4);
        EXPECT_EQ(loaded->settings.keyValueHeadCount, 4);
        EXPECT_TRUE(loaded->settings.withBias);
        EXPECT_EQ(loaded->settings.mode, loaded->layer.kind);
        EXPECT_EQ(loaded->settings.positional, PositionalEncoding::Sinusoidal);
        std::string notes;
        for (const std::string& note : loaded->notes) notes += note + "\n";
        EXPECT_NE(notes.find("stores no mask"), std::string::npos) << notes;
        EXPECT_NE(notes.find("h = 4"), std::string::npos) << notes;
    }
}

TEST_F(PyTorchLayers, AHeadCountThatDoesNotDivideDModelIsRefused)
{
    Expected<CheckpointLayerWeights> loaded = loadCheckpointLayer(path("model.safetensors"), "2", CheckpointOptions{3});
    ASSERT_FALSE(loaded.ok());
    EXPECT_NE(loaded.error().find("h = 3 heads do not divide d_model = 8"), std::string::npos) << loaded.error();
    EXPECT_NE(loaded.error().find("encoder.layers.0.self_attn"), std::string::npos) << loaded.error();
}

TEST_F(PyTorchLayers, SeparateProjectionsAreListedAndRefusedWithTheReason)
{
    // kdim != embed_dim: nn.MultiheadAttention keeps q_proj_weight, k_proj_weight, v_proj_weight.
    SafetensorsFile file;
    file.tensors.push_back(Tensor::fromMatrix("attn.q_proj_weight", MatrixF::Random(8, 8)));
    file.tensors.push_back(Tensor::fromMatrix("attn.k_proj_weight", MatrixF::Random(8, 6)));
    file.tensors.push_back(Tensor::fromMatrix("attn.v_proj_weight", MatrixF::Random(8, 6)));
    file.tensors.push_back(Tensor::fromMatrix("attn.out_proj.weight", MatrixF::Random(8, 8)));
    ASSERT_TRUE(writeSafetensors(path("kdim.safetensors"), file).ok());
    Expected<Checkpoint> checkpoint = openCheckpoint(path("kdim.safetensors"), CheckpointOptions{2});
    ASSERT_TRUE(checkpoint.ok()) << checkpoint.error();
    ASSERT_EQ(checkpoint->layers.size(), 1u);
    EXPECT_EQ(checkpointLayerLine(checkpoint->layers[0]), "0\tattn\tself\t2\t2\t8");
    Expected<CheckpointLayerWeights> loaded = loadCheckpointLayer(*checkpoint, checkpoint->layers[0]);
    ASSERT_FALSE(loaded.ok());
    EXPECT_NE(loaded.error().find("separate query/key/value weights"), std::string::npos) << loaded.error();
}

}  // namespace
}  // namespace qkv
