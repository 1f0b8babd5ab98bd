// A GGUF model is the same model as its Hugging Face checkpoint: the GGUF files of
// tests/data/gguf/models (make_model_fixtures.py: llama.cpp's names, its interleaved Q and K rows
// for `llama`, Gemma's 1 + w norms, its metadata keys) open as whole models whose every layer's
// attention and whose predictions equal the safetensors checkpoint's, to float tolerance.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/checkpoint/checkpoint.hpp"
#include "core/modelfiles/tensor_reading.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "tests/support/test_folder.hpp"
#include "tests/support/test_paths.hpp"

namespace qkv {
namespace {

struct Pair {
    const char* gguf;       // tests/data/gguf/models/<gguf>/model.gguf
    const char* reference;  // a folder under tests/data: the same model as safetensors
};

std::string dataPath(const std::string& relative) { return std::string(testDataDir()) + "/" + relative; }

PretrainedModel open(const std::string& path)
{
    Expected<PretrainedModel> model = openPretrainedModel(path);
    EXPECT_TRUE(model) << path << ": " << (model ? "" : model.error());
    return model ? std::move(*model) : PretrainedModel();
}

ModelRun run(const PretrainedModel& model, const std::vector<std::int32_t>& ids)
{
    Expected<ModelRun> result = runPretrainedModel(model, ModelTokens{ids, {}});
    EXPECT_TRUE(result) << (result ? "" : result.error());
    return result ? std::move(*result) : ModelRun();
}

float largestDifference(const MatrixF& a, const MatrixF& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
    return a.size() == 0 ? 0.0f : (a - b).cwiseAbs().maxCoeff();
}

Index argmax(const MatrixF& logits, Index row)
{
    Index best = 0;
    logits.row(row).maxCoeff(&best);
    return best;
}

class GgufModel : public ::testing::TestWithParam<Pair> {};

TEST_P(GgufModel, EveryLayersAttentionAndThePredictionsEqualTheSafetensorsModels)
{
    const Pair pair = GetParam();
    const PretrainedModel gguf = open(dataPath(std::string("gguf/models/") + pair.gguf + "/model.gguf"));
    const PretrainedModel reference = open(dataPath(pair.reference));
    ASSERT_EQ(gguf.layerCount(), reference.layerCount());
    ASSERT_GT(gguf.layerCount(), 0);
    EXPECT_EQ(gguf.recipe.family, reference.recipe.family);
    const std::vector<std::int32_t> ids{1, 7, 23, 5, 30, 12, 30, 2, 9, 14, 3, 6};
    const ModelRun fromGguf = run(gguf, ids);
    const ModelRun fromSafetensors = run(reference, ids);
    ASSERT_EQ(fromGguf.layers.size(), fromSafetensors.layers.size());
    for (Index l = 0; l < gguf.layerCount(); ++l) {
        const AttentionResult& a = fromGguf.layer(l).attention;
        const AttentionResult& b = fromSafetensors.layer(l).attention;
        ASSERT_EQ(a.heads.size(), b.heads.size()) << pair.gguf << " layer " << l;
        for (std::size_t i = 0; i < a.heads.size(); ++i)
            EXPECT_LT(largestDifference(a.heads[i].attention, b.heads[i].attention), 1e-5f)
                << pair.gguf << " layer " << l << " head " << i;
    }
    ASSERT_GT(fromGguf.logits.rows(), 0);
    const float scale = std::max(1.0f, fromSafetensors.logits.cwiseAbs().maxCoeff());
    EXPECT_LT(largestDifference(fromGguf.logits, fromSafetensors.logits), 1e-5f * scale) << pair.gguf;
    for (Index r = 0; r < fromGguf.logits.rows(); ++r)
        EXPECT_EQ(argmax(fromGguf.logits, r), argmax(fromSafetensors.logits, r)) << pair.gguf << " position " << r;
}

INSTANTIATE_TEST_SUITE_P(Gguf, GgufModel,
                         ::testing::Values(Pair{"llama", "pretrained/llama"}, Pair{"llama3", "pretrained/llama3"},
                                           Pair{"mistral", "pretrained/mistral"},
                                           Pair{"qwen2", "pretrained/qwen2"}, Pair{"qwen3", "pretrained/qwen3"},
                                           Pair{"gemma2", "pretrained/gemma2"}, Pair{"gemma3", "pretrained/gemma3"},
                                           Pair{"phi3", "pretrained/phi3"}, Pair{"llama_f16", "gguf/models/llama_f16"},
                                           Pair{"llama_q8_0", "gguf/models/llama_q8_0"}),
                         [](const auto& info) { return std::string(info.param.gguf); });

// The rows llama.cpp interleaved come back as the model's: Q and K of every layer equal the
// safetensors checkpoint's bit for bit (F32 tensors).
TEST(GgufModelTensors, LlamaQueryAndKeyRowsAreTheModelsHeads)
{
    Expected<Checkpoint> gguf = openCheckpoint(dataPath("gguf/models/llama/model.gguf"));
    ASSERT_TRUE(gguf) << gguf.error();
    Expected<Checkpoint> reference = openCheckpoint(dataPath("pretrained/llama"));
    ASSERT_TRUE(reference) << reference.error();
    for (const char* name : {"model.layers.0.self_attn.q_proj.weight", "model.layers.1.self_attn.k_proj.weight",
                             "model.layers.1.mlp.down_proj.weight", "model.embed_tokens.weight"}) {
        Expected<checkpoint_detail::LoadedTensors> a = checkpoint_detail::readTensors(gguf->tensors, {name});
        Expected<checkpoint_detail::LoadedTensors> b = checkpoint_detail::readTensors(reference->tensors, {name});
        ASSERT_TRUE(a) << a.error();
        ASSERT_TRUE(b) << b.error();
        EXPECT_TRUE(a->at(name) == b->at(name)) << name;
    }
    EXPECT_EQ(gguf->layers.size(), reference->layers.size());
}

// Llama 3's rope_scaling comes back from llama.cpp's per-frequency factors (rope_freqs).
TEST(GgufModelTensors, Llama3RopeScalingIsRecoveredFromItsFactors)
{
    Expected<Checkpoint> gguf = openCheckpoint(dataPath("gguf/models/llama3/model.gguf"));
    ASSERT_TRUE(gguf) << gguf.error();
    Expected<Checkpoint> reference = openCheckpoint(dataPath("pretrained/llama3"));
    ASSERT_TRUE(reference) << reference.error();
    EXPECT_EQ(gguf->config.ropeScalingNotApplied, "");
    EXPECT_EQ(gguf->config.ropeScaling, reference->config.ropeScaling);
}

// Metadata a model cannot run without, or of the wrong kind, is refused by its key.
TEST(GgufModelTensors, MissingOrWrongSizeKeysAreRefusedByName)
{
    // a llama file without its sizes, then with a size of the wrong kind
    TestFolder folder("gguf_keys");
    const std::string path = (folder.path() / "model.gguf").string();
    const auto write = [&](const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; };
    const auto text = [](const std::string& s) {
        std::string out(8, '\0');
        const std::uint64_t n = s.size();
        std::memcpy(out.data(), &n, 8);
        return out + s;
    };
    const auto u32 = [](std::uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
    const auto u64 = [](std::uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); };
    const std::string header = std::string("GGUF") + u32(3) + u64(0);
    write(header + u64(2) + text("general.architecture") + u32(8) + text("llama") + text("llama.block_count") + u32(4) + u32(2));
    Expected<Checkpoint> noWidth = openCheckpoint(path);
    ASSERT_FALSE(noWidth);
    EXPECT_NE(noWidth.error().find("metadata 'llama.embedding_length' is missing"), std::string::npos) << noWidth.error();
    write(header + u64(2) + text("general.architecture") + u32(8) + text("llama") + text("llama.block_count") + u32(8) +
          text("two"));
    Expected<Checkpoint> wrongKind = openCheckpoint(path);
    ASSERT_FALSE(wrongKind);
    EXPECT_NE(wrongKind.error().find("metadata 'llama.block_count' must be a positive integer"), std::string::npos)
        << wrongKind.error();
}

TEST(GgufModelTensors, AnArchitectureNotReadIsRefusedByName)
{
    // quant_types.gguf says general.architecture "none"
    Expected<Checkpoint> checkpoint = openCheckpoint(dataPath("gguf/quant_types.gguf"));
    ASSERT_FALSE(checkpoint);
    EXPECT_NE(checkpoint.error().find("architecture 'none' is not one this program reads (llama, qwen2"), std::string::npos)
        << checkpoint.error();
}

}  // namespace
}  // namespace qkv
