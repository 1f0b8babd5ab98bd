// The models Ollama and LM Studio keep, found by their names in folders laid out as each program
// lays them out (core/gguf/local_models.hpp).

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "core/gguf/local_models.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "tests/support/test_folder.hpp"
#include "tests/support/test_paths.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& text)
{
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

std::string manifest(const std::string& digest)
{
    return R"({"schemaVersion":2,"config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"sha256:)" +
           std::string(64, 'c') + R"("},"layers":[{"mediaType":"application/vnd.ollama.image.license","digest":"sha256:)" +
           std::string(64, 'd') + R"("},{"mediaType":"application/vnd.ollama.image.model","digest":")" + digest + R"(","size":4}]})";
}

TEST(LocalGgufModels, OllamaManifestsNameTheirBlobs)
{
    TestFolder folder("ollama");
    const fs::path models = folder.path();
    const std::string a(64, 'a'), b(64, 'b');
    write(models / "blobs" / ("sha256-" + a), "GGUF");
    write(models / "blobs" / ("sha256-" + b), "GGUF....");
    write(models / "manifests/registry.ollama.ai/library/llama3.2/3b", manifest("sha256:" + a));
    write(models / "manifests/registry.ollama.ai/someone/tiny/latest", manifest("sha256:" + b));
    write(models / "manifests/hf.co/org/model-GGUF/Q4_K_M", manifest("sha256:" + a));
    // left out: a blob that is missing, a digest that would leave the blobs folder, not JSON
    write(models / "manifests/registry.ollama.ai/library/gone/latest", manifest("sha256:" + std::string(64, 'e')));
    write(models / "manifests/registry.ollama.ai/library/escape/latest", manifest("sha256:../../../../etc/passwd"));
    write(models / "manifests/registry.ollama.ai/library/broken/latest", "{not json");
    const std::vector<LocalGgufModel> found = listOllamaModels(models.string());
    ASSERT_EQ(found.size(), 3u);
    EXPECT_EQ(found[0].name, "hf.co/org/model-GGUF:Q4_K_M");
    EXPECT_EQ(found[1].name, "llama3.2:3b");
    EXPECT_EQ(found[1].path, (models / "blobs" / ("sha256-" + a)).string());
    EXPECT_EQ(found[1].bytes, 4u);
    EXPECT_EQ(found[1].source, "Ollama");
    EXPECT_EQ(found[2].name, "someone/tiny:latest");
    EXPECT_EQ(found[2].bytes, 8u);
    EXPECT_TRUE(listOllamaModels((models / "nothing").string()).empty());
}

// A blob has no extension: it is known by its first bytes, and opens as a whole model.
TEST(LocalGgufModels, AnOllamaBlobOpensAsAModel)
{
    TestFolder folder("ollama_blob");
    const fs::path models = folder.path();
    const std::string digest(64, 'f');
    fs::create_directories(models / "blobs");
    fs::copy_file(std::string(testDataDir()) + "/gguf/models/qwen3/model.gguf", models / "blobs" / ("sha256-" + digest));
    write(models / "manifests/registry.ollama.ai/library/qwen3/tiny", manifest("sha256:" + digest));
    const std::vector<LocalGgufModel> found = listOllamaModels(models.string());
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].name, "qwen3:tiny");
    Expected<PretrainedModel> model = openPretrainedModel(found[0].path);
    ASSERT_TRUE(model) << model.error();
    EXPECT_EQ(model->layerCount(), 2);
}

TEST(LocalGgufModels, LmStudioFilesByPublisherAndRepository)
{
    TestFolder folder("lmstudio");
    const fs::path models = folder.path();
    write(models / "lmstudio-community/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf", "GGUF");
    write(models / "lmstudio-community/Qwen3-8B-GGUF/README.md", "text");
    write(models / "google/gemma-3-4b-GGUF/mmproj-model-f16.gguf", "GGUF");
    write(models / "google/gemma-3-4b-GGUF/gemma-3-4b-Q8_0.gguf", "GGUF");
    const std::vector<LocalGgufModel> found = listLmStudioModels(models.string());
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].name, "google/gemma-3-4b-GGUF/gemma-3-4b-Q8_0.gguf");
    EXPECT_EQ(found[1].name, "lmstudio-community/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf");
    EXPECT_EQ(found[1].source, "LM Studio");
}

TEST(LocalGgufModels, FoldersFollowTheEnvironment)
{
    const auto environment = [](const char* values) {
        return [values](const char* name) -> const char* {
            const std::string key(name);
            if (key == "HOME") return "/home/someone";
            if (key == "OLLAMA_MODELS" && values) return values;
            return nullptr;
        };
    };
    EXPECT_EQ(ollamaModelsFolder(environment(nullptr)), "/home/someone/.ollama/models");
    EXPECT_EQ(ollamaModelsFolder(environment("/data/ollama")), "/data/ollama");
    EXPECT_EQ(lmStudioModelsFolder(environment(nullptr)), "/home/someone/.lmstudio/models");
    EXPECT_EQ(ollamaModelsFolder([](const char*) -> const char* { return nullptr; }), "");
}

}  // namespace
}  // namespace qkv
