#include "core/gguf/local_models.hpp"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/io/file_bytes.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

std::string variable(const Environment& environment, const char* name)
{
    const char* value = environment(name);
    return value ? std::string(value) : std::string();
}

bool isFolder(const fs::path& path)
{
    std::error_code error;
    return fs::is_directory(path, error);
}

std::vector<fs::path> entries(const fs::path& folder)
{
    std::vector<fs::path> found;
    std::error_code error;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) found.push_back(it->path());
    std::sort(found.begin(), found.end());
    return found;
}

bool isSha256(const std::string& hex)
{
    return hex.size() == 64 && std::all_of(hex.begin(), hex.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

// The blob of the manifest's model layer, or empty.
std::string modelBlob(const fs::path& manifest, const fs::path& blobs)
{
    Expected<std::string> text = readFileBytes(manifest.string(), std::size_t{1} << 20, "an Ollama manifest");
    if (!text) return {};
    const nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
    if (!json.is_object() || !json.contains("layers") || !json["layers"].is_array()) return {};
    for (const nlohmann::json& layer : json["layers"]) {
        if (!layer.is_object() || layer.value("mediaType", "") != "application/vnd.ollama.image.model") continue;
        const std::string digest = layer.value("digest", "");
        if (!digest.starts_with("sha256:") || !isSha256(digest.substr(7))) return {};
        const fs::path blob = blobs / ("sha256-" + digest.substr(7));
        std::error_code error;
        return fs::is_regular_file(blob, error) ? blob.string() : std::string();
    }
    return {};
}

// "llama3.2:3b", "namespace/model:tag", or "registry/namespace/model:tag".
std::string ollamaName(const std::string& registry, const std::string& space, const std::string& model, const std::string& tag)
{
    std::string name = model + ":" + tag;
    if (registry == "registry.ollama.ai" && space == "library") return name;
    name = space + "/" + name;
    return registry == "registry.ollama.ai" ? name : registry + "/" + name;
}

std::uint64_t sizeOf(const std::string& path)
{
    std::error_code error;
    const auto bytes = fs::file_size(path, error);
    return error ? 0 : static_cast<std::uint64_t>(bytes);
}

}  // namespace

std::string ollamaModelsFolder(const Environment& environment)
{
    if (std::string models = variable(environment, "OLLAMA_MODELS"); !models.empty()) return models;
    const std::string home = variable(environment, "HOME");
    return home.empty() ? std::string() : (fs::path(home) / ".ollama" / "models").string();
}

std::string lmStudioModelsFolder(const Environment& environment)
{
    const std::string home = variable(environment, "HOME");
    if (home.empty()) return {};
    const fs::path current = fs::path(home) / ".lmstudio" / "models";
    const fs::path older = fs::path(home) / ".cache" / "lm-studio" / "models";
    return (isFolder(current) || !isFolder(older) ? current : older).string();
}

std::vector<LocalGgufModel> listOllamaModels(const std::string& modelsFolder, std::size_t limit)
{
    std::vector<LocalGgufModel> models;
    const fs::path base(modelsFolder), blobs = base / "blobs";
    for (const fs::path& registry : entries(base / "manifests"))
        for (const fs::path& space : entries(registry))
            for (const fs::path& model : entries(space))
                for (const fs::path& tag : entries(model)) {
                    if (models.size() >= limit) return models;
                    const std::string blob = modelBlob(tag, blobs);
                    if (blob.empty()) continue;
                    models.push_back({ollamaName(registry.filename().string(), space.filename().string(),
                                                 model.filename().string(), tag.filename().string()),
                                      "Ollama", blob, sizeOf(blob)});
                }
    std::sort(models.begin(), models.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return models;
}

std::vector<LocalGgufModel> listLmStudioModels(const std::string& modelsFolder, std::size_t limit)
{
    std::vector<LocalGgufModel> models;
    const fs::path base(modelsFolder);
    for (const fs::path& publisher : entries(base))
        for (const fs::path& repository : entries(publisher))
            for (const fs::path& file : entries(repository)) {
                if (models.size() >= limit) return models;
                const std::string name = file.filename().string();
                std::error_code error;
                if (!name.ends_with(".gguf") || name.starts_with("mmproj") || !fs::is_regular_file(file, error)) continue;
                models.push_back({fs::relative(file, base, error).generic_string(), "LM Studio", file.string(),
                                  sizeOf(file.string())});
            }
    std::sort(models.begin(), models.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return models;
}

}  // namespace qkv
