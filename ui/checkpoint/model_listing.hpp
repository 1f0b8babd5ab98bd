#pragma once
// What File > Open Model… lists, gathered off the GUI thread: the models of the Hugging Face cache
// (core/checkpoint/model_folders.hpp) and the GGUF models Ollama and LM Studio keep
// (core/gguf/local_models.hpp), each with what it will take in memory as the app loads it
// (core/pretrained/model_memory.hpp, estimateModelLoadMemory), read from headers alone. A model
// that would not fit even one block at a time cannot be chosen, and says both figures.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/common/matrix.hpp"
#include "core/pretrained/model_memory.hpp"

namespace qkv::ui {

// Where to look; an empty folder is not looked in.
struct ModelSources {
    std::string huggingFaceCache;
    std::string ollamaModels;
    std::string lmStudioModels;
    // What the machine has (availableMemoryBytes in the app; a test's own figure). 0: unknown.
    std::function<std::size_t()> availableMemory = [] { return qkv::availableMemoryBytes(); };
};

struct ListedModel {
    std::string name;    // "Qwen/Qwen3-0.6B", "llama3.2:3b", "publisher/repo/file.gguf"
    std::string source;  // "Hugging Face cache", "Ollama", "LM Studio"
    std::string path;    // what opens it: a snapshot folder or a GGUF file
    std::string family;  // model_type or general.architecture, or empty
    std::string storedAs;  // a GGUF's quantization ("Q4_K_M"), or empty
    Index attentionLayers = 0;
    std::uint64_t bytes = 0;  // on disk
    std::optional<qkv::ModelLoadMemory> memory;  // when its headers could be read
    bool readable = false;
    std::string whyNot;  // core's message, or the memory refusal
    bool withoutTokenizer = false;
    bool described = false;  // describeModel has read its headers (until then: name, path, size)
};

inline constexpr const char* kHuggingFaceSource = "Hugging Face cache";

// Every model of every source, each source's by name, sources in the order above: the cache's
// with what listCachedModels reads, Ollama's and LM Studio's by name, path and size (folder
// entries and manifests only). Then describeModel reads each one's headers (a GGUF header holds
// its vocabulary: ~0.25 s for a 128K-token model here), so the names show at once.
std::vector<ListedModel> listModelNames(const ModelSources& sources);
// The model with its headers read: family, layers, how it is stored, memory against `available`;
// a file core refuses, or a model that does not fit, is not readable and says why.
ListedModel describeModel(ListedModel model, std::size_t available);

// "needs 5.0 GiB even one block at a time; 3.1 GiB is available": the refusal's words, for a
// model that does not fit (estimate.fits() false).
std::string memoryRefusal(const qkv::ModelLoadMemory& estimate);

// "1.5 GiB" (binary units, one decimal), "96 MiB" below a GiB, "64 KiB" below a MiB.
std::string memoryFigure(std::size_t bytes);

}  // namespace qkv::ui
