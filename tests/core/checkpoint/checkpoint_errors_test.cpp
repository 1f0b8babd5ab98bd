// Checkpoints that cannot give a layer: every refusal names the file and says what is wrong.

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "core/checkpoint/checkpoint.hpp"
#include "core/io/safetensors.hpp"
#include "support/test_paths.hpp"
#include "support/test_folder.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

class CheckpointErrors : public ::testing::Test {
protected:
    std::string path(const std::string& name) const { return (folder_ / name).string(); }

    // A BERT layer "L" (d_model 8) with each projection's weight and bias; `change` edits it.
    std::string writeBert(const std::function<void(SafetensorsFile&)>& change = {})
    {
        SafetensorsFile file;
        for (const char* stem : {"self.query", "self.key", "self.value", "output.dense"}) {
            file.tensors.push_back(Tensor::fromMatrix(std::string("L.") + stem + ".weight", MatrixF::Random(8, 8)));
            const RowVectorF b = RowVectorF::Random(8);
            file.tensors.push_back(Tensor::fromVector(std::string("L.") + stem + ".bias", std::span<const float>(b.data(), 8)));
        }
        if (change) change(file);
        const std::string out = path("model.safetensors");
        EXPECT_TRUE(writeSafetensors(out, file).ok());
        return out;
    }
    void writeText(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }

    Tensor* find(SafetensorsFile& file, const std::string& name)
    {
        for (Tensor& t : file.tensors)
            if (t.name == name) return &t;
        return nullptr;
    }

    TestFolder scratch_{"checkpoint"};
    fs::path folder_ = scratch_.path();
};

std::string loadError(const std::string& file, std::string_view layer, Index heads = 2)
{
    Expected<CheckpointLayerWeights> loaded = loadCheckpointLayer(file, layer, CheckpointOptions{heads});
    EXPECT_FALSE(loaded.ok());
    return loaded ? std::string() : loaded.error();
}

TEST_F(CheckpointErrors, AWellFormedLayerLoads)
{
    Expected<CheckpointLayerWeights> loaded = loadCheckpointLayer(writeBert(), "L", CheckpointOptions{2});
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    EXPECT_EQ(loaded->settings.headCount, 2);
}

TEST_F(CheckpointErrors, UnknownLayoutListsTheNamesFound)
{
    SafetensorsFile file;
    file.tensors.push_back(Tensor::fromMatrix("encoder.mystery.weight", MatrixF::Zero(2, 2)));
    ASSERT_TRUE(writeSafetensors(path("x.safetensors"), file).ok());
    Expected<Checkpoint> opened = openCheckpoint(path("x.safetensors"));
    ASSERT_FALSE(opened.ok());
    EXPECT_NE(opened.error().find(path("x.safetensors")), std::string::npos) << opened.error();
    EXPECT_NE(opened.error().find("'encoder.mystery.weight'"), std::string::npos) << opened.error();
}

TEST_F(CheckpointErrors, MissingTensorIsNamed)
{
    const std::string file = writeBert([](SafetensorsFile& f) {
        std::erase_if(f.tensors, [](const Tensor& t) { return t.name == "L.self.key.weight"; });
    });
    const std::string error = loadError(file, "L");
    EXPECT_NE(error.find("lacks 'L.self.key.weight'"), std::string::npos) << error;
}

TEST_F(CheckpointErrors, InconsistentShapeSaysWhatAndWhatWasExpected)
{
    const std::string file = writeBert([this](SafetensorsFile& f) {
        *find(f, "L.self.value.weight") = Tensor::fromMatrix("L.self.value.weight", MatrixF::Zero(8, 4));
    });
    const std::string error = loadError(file, "L");
    EXPECT_NE(error.find("'L.self.value.weight' is 8x4, expected 8x8"), std::string::npos) << error;
}

TEST_F(CheckpointErrors, HeadsThatDoNotDivideDModel)
{
    const std::string error = loadError(writeBert(), "L", 3);
    EXPECT_NE(error.find("h = 3 heads do not divide the 8 rows of"), std::string::npos) << error;
}

TEST_F(CheckpointErrors, KeyValueHeadsThatDoNotDivideH)
{
    // LLaMA-style, d_model 8, h 4 (d_k 2), k_proj with 6 rows: g = 3.
    SafetensorsFile file;
    file.tensors.push_back(Tensor::fromMatrix("model.layers.0.self_attn.q_proj.weight", MatrixF::Zero(8, 8)));
    file.tensors.push_back(Tensor::fromMatrix("model.layers.0.self_attn.k_proj.weight", MatrixF::Zero(6, 8)));
    file.tensors.push_back(Tensor::fromMatrix("model.layers.0.self_attn.v_proj.weight", MatrixF::Zero(6, 8)));
    file.tensors.push_back(Tensor::fromMatrix("model.layers.0.self_attn.o_proj.weight", MatrixF::Zero(8, 8)));
    ASSERT_TRUE(writeSafetensors(path("model.safetensors"), file).ok());
    const std::string error = loadError(path("model.safetensors"), "0", 4);
    EXPECT_NE(error.find("g = 3 key/value heads do not divide h = 4"), std::string::npos) << error;
}

TEST_F(CheckpointErrors, NonFiniteValueNamesTheTensor)
{
    const std::string file = writeBert([this](SafetensorsFile& f) {
        MatrixF w = MatrixF::Zero(8, 8);
        w(2, 3) = std::numeric_limits<float>::quiet_NaN();
        *find(f, "L.output.dense.weight") = Tensor::fromMatrix("L.output.dense.weight", w);
    });
    const std::string error = loadError(file, "L");
    EXPECT_NE(error.find("'L.output.dense.weight' holds a value that is not finite"), std::string::npos) << error;
}

TEST_F(CheckpointErrors, UnsupportedDtypeIsRefusedOnlyWhenUsed)
{
    const std::string file = writeBert([this](SafetensorsFile& f) {
        Tensor ids;  // an I64 tensor nobody uses, and one the layer needs
        ids.name = "embeddings.position_ids";
        ids.dtype = TensorDtype::F64;
        ids.shape = {1, 4};
        ids.data.resize(32);
        f.tensors.push_back(ids);
        (void)this;
    });
    // writeSafetensors knows only float dtypes: patch "F64" into "I64" in the header.
    std::string bytes;
    {
        std::ifstream in(file, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const auto at = bytes.find("\"F64\"");
    ASSERT_NE(at, std::string::npos);
    bytes.replace(at, 5, "\"I64\"");
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    Expected<CheckpointLayerWeights> loaded = loadCheckpointLayer(file, "L", CheckpointOptions{2});
    EXPECT_TRUE(loaded.ok()) << loaded.error();

    Expected<SafetensorsFile> all = readSafetensors(file);
    ASSERT_FALSE(all.ok());
    EXPECT_NE(all.error().find("'embeddings.position_ids' has dtype 'I64', which is not supported"), std::string::npos)
        << all.error();
}

TEST_F(CheckpointErrors, LayerNotFoundListsTheLayers)
{
    const std::string file = writeBert();
    for (const char* wanted : {"nope", "7", "-1"}) {
        const std::string error = loadError(file, wanted);
        EXPECT_NE(error.find(std::string("no layer '") + wanted + "'"), std::string::npos) << error;
        EXPECT_NE(error.find("'L'"), std::string::npos) << error;
    }
}

TEST_F(CheckpointErrors, FoldersAndFifosAreRefusedWithoutBlocking)
{
    Expected<Checkpoint> folder = openCheckpoint(folder_.string());
    ASSERT_FALSE(folder.ok());
    EXPECT_NE(folder.error().find("folder"), std::string::npos) << folder.error();
    ASSERT_EQ(::mkfifo(path("fifo.safetensors").c_str(), 0600), 0);
    Expected<Checkpoint> fifo = openCheckpoint(path("fifo.safetensors"));
    ASSERT_FALSE(fifo.ok());
    EXPECT_NE(fifo.error().find("FIFO"), std::string::npos) << fifo.error();
    ASSERT_EQ(::mkfifo(path("model.safetensors.index.json").c_str(), 0600), 0);
    Expected<Checkpoint> fifoIndex = openCheckpoint(path("model.safetensors.index.json"));
    ASSERT_FALSE(fifoIndex.ok());
    EXPECT_NE(fifoIndex.error().find("FIFO"), std::string::npos) << fifoIndex.error();
}

TEST_F(CheckpointErrors, CorruptIndexes)
{
    writeBert();
    const std::string index = path("model.safetensors.index.json");
    const std::pair<std::string, std::string> cases[] = {
        {"{\"weight_map\": {", "not valid JSON"},
        {"{\"metadata\": {}}", "no \"weight_map\""},
        {"{\"weight_map\": {\"L.self.query.weight\": \"../model.safetensors\"}}", "not the name of a shard"},
        {"{\"weight_map\": {\"L.self.query.weight\": \"missing.safetensors\"}}", "does not exist"},
        {"{\"weight_map\": {\"L.absent.weight\": \"model.safetensors\"}}", "does not hold it"},
        {std::string(100, '[') + std::string(100, ']'), "nests more than"},
    };
    for (const auto& [text, expected] : cases) {
        writeText("model.safetensors.index.json", text);
        Expected<Checkpoint> opened = openCheckpoint(index);
        ASSERT_FALSE(opened.ok()) << text;
        EXPECT_NE(opened.error().find(expected), std::string::npos) << opened.error();
    }
}

TEST_F(CheckpointErrors, CorruptConfigIsReported)
{
    const std::string file = writeBert();
    writeText("config.json", "{\"num_attention_heads\": \"twelve\"}");
    Expected<Checkpoint> opened = openCheckpoint(file);
    ASSERT_FALSE(opened.ok());
    EXPECT_NE(opened.error().find("'num_attention_heads' is \"twelve\", not a positive integer"), std::string::npos)
        << opened.error();
}

// config.json's d_kv (or head_dim) and the query weight's rows / h must agree.
TEST_F(CheckpointErrors, HeadDimThatDisagreesWithTheQueryWeight)
{
    const std::string file = std::string(qkv::testDataDir()) + "/checkpoint/t5_wide/model.safetensors";
    fs::copy_file(file, path("model.safetensors"));
    std::ofstream(path("config.json")) << R"({"model_type": "t5", "d_model": 16, "num_heads": 4, "d_kv": 4})";
    const std::string error = loadError(path("model.safetensors"), "0");
    EXPECT_NE(error.find("gives d_k = 32 / h = 8"), std::string::npos) << error;
    EXPECT_NE(error.find("d_kv = 4"), std::string::npos) << error;
}

// W^O must be d_model x h d_k when W^Q is h d_k x d_model.
TEST_F(CheckpointErrors, OutputWeightThatDoesNotMatchWideHeads)
{
    SafetensorsFile file;
    file.tensors.push_back(Tensor::fromMatrix("model.layers.0.self_attn.q_proj.weight", MatrixF::Zero(16, 8)));
    file.tensors.push_back(Tensor::fromMatrix("model.layers.0.self_attn.k_proj.weight", MatrixF::Zero(16, 8)));
    file.tensors.push_back(Tensor::fromMatrix("model.layers.0.self_attn.v_proj.weight", MatrixF::Zero(16, 8)));
    file.tensors.push_back(Tensor::fromMatrix("model.layers.0.self_attn.o_proj.weight", MatrixF::Zero(8, 8)));
    ASSERT_TRUE(writeSafetensors(path("model.safetensors"), file).ok());
    const std::string error = loadError(path("model.safetensors"), "0", 4);
    EXPECT_NE(error.find("o_proj.weight' is 8x8, expected 8x16"), std::string::npos) << error;
}

}  // namespace
}  // namespace qkv
