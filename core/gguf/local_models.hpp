#pragma once
// The GGUF models other programs keep on this computer, by the names people know them by:
//   Ollama     <models>/manifests/<registry>/<namespace>/<model>/<tag>: a JSON manifest whose layer
//              of mediaType application/vnd.ollama.image.model names its GGUF blob by digest
//              ("sha256:<64 hex>", the file <models>/blobs/sha256-<64 hex>). <models> is
//              $OLLAMA_MODELS, else ~/.ollama/models. Named "llama3.2:3b" for the default registry's
//              library, "<namespace>/<model>:<tag>" for another namespace, with the registry in
//              front for another registry.
//   LM Studio  <models>/<publisher>/<repository>/<file>.gguf, <models> being ~/.lmstudio/models
//              (else the older ~/.cache/lm-studio/models). Named by that relative path. Vision
//              projectors (mmproj-*.gguf) are not language models and are left out.
// Listing reads manifests (at most 1 MiB each) and folder entries, never a model file; a manifest
// that cannot be read, names no model layer, a digest that is not sha256 hex, or a blob that is
// missing is left out.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace qkv {

struct LocalGgufModel {
    std::string name;    // "llama3.2:3b", "lmstudio-community/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf"
    std::string source;  // "Ollama" or "LM Studio"
    std::string path;    // the GGUF file (Ollama: its blob)
    std::uint64_t bytes = 0;
};

using Environment = std::function<const char*(const char*)>;

// Where each program keeps its models (the folder need not exist); empty when HOME is unknown.
std::string ollamaModelsFolder(const Environment& environment);
std::string lmStudioModelsFolder(const Environment& environment);

// The models of each, sorted by name; at most `limit`.
std::vector<LocalGgufModel> listOllamaModels(const std::string& modelsFolder, std::size_t limit = 500);
std::vector<LocalGgufModel> listLmStudioModels(const std::string& modelsFolder, std::size_t limit = 500);

}  // namespace qkv
