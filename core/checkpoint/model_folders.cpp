#include "core/checkpoint/model_folders.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>

#include "core/checkpoint/checkpoint.hpp"
#include "core/modelfiles/checkpoint_json.hpp"
#include "core/common/path_exists.hpp"
#include "core/common/quoted_names.hpp"
#include "core/io/regular_file.hpp"
#include "core/text/subword_tokenizer.hpp"

namespace qkv {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kRepositoryPrefix = "models--";
constexpr std::size_t kMaxFilesCounted = 10'000;  // per snapshot, for its size

bool isFolder(const fs::path& path) { return pathKind(path.string(), /*followLinks=*/true) == PathKind::Folder; }

// The folder's entries (names only), sorted; none when it cannot be listed.
std::vector<std::string> entriesOf(const fs::path& folder)
{
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
        names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

bool isPickleName(const std::string& name)
{
    for (const char* suffix : {".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle"})
        if (name.ends_with(suffix)) return true;
    return false;
}

Error pickleRefused(const std::string& what, const std::string& folder)
{
    return Error{what + " is a PyTorch pickle. QKV Studio never loads pickles (unpickling runs code from the file). "
                        "Convert it once to safetensors in Python with transformers: load it with the class that "
                        "config.json names under \"architectures\" (from_pretrained(\"" +
                 folder + "\")) and call save_pretrained(new_folder, safe_serialization=True); copy the tokenizer "
                          "files beside it if they are not there, and open that folder."};
}

// A commit or branch name as refs/main holds it: one path component, nothing that leaves snapshots/.
bool safeSnapshotName(const std::string& name)
{
    return !name.empty() && name.size() <= 128 && name != "." && name != ".." &&
           std::all_of(name.begin(), name.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
                      c == '_' || c == '.';
           });
}

// What refs/main says (a commit hash), or empty when it is missing or unreadable.
std::string mainReference(const fs::path& repository)
{
    const fs::path file = repository / "refs" / "main";
    if (pathKind(file.string(), /*followLinks=*/true) != PathKind::Regular) return {};
    std::error_code ec;
    if (const auto size = fs::file_size(file, ec); ec || size > 256) return {};  // a commit hash is 40 bytes
    std::ifstream in(file);
    std::string text;
    std::getline(in, text, '\0');
    const auto last = text.find_last_not_of(" \t\r\n");
    return last == std::string::npos ? std::string() : text.substr(0, last + 1);
}

std::vector<std::string> repositoriesIn(const fs::path& cache)
{
    std::vector<std::string> repositories;
    for (std::string& name : entriesOf(cache))
        if (name.starts_with(kRepositoryPrefix) && isFolder(cache / name)) repositories.push_back(std::move(name));
    return repositories;
}

// A model folder (or snapshot) to the checkpoint file in it.
Expected<std::string> fileInModelFolder(const fs::path& folder)
{
    for (const char* name : {"model.safetensors.index.json", "model.safetensors"}) {
        const fs::path file = folder / name;
        if (pathExists(file)) return file.string();
        // A cache snapshot's link whose blob is gone (a pruned cache, an unfinished download).
        if (pathKind(file.string(), /*followLinks=*/false) == PathKind::SymbolicLink) {
            std::error_code ec;
            const fs::path target = fs::read_symlink(file, ec);
            return Error{file.string() + ": a symbolic link to '" + target.string() +
                         "', which is missing (the cache was pruned, or the download did not finish)"};
        }
    }
    const std::vector<std::string> entries = entriesOf(folder);
    const auto pickle = std::find_if(entries.begin(), entries.end(), isPickleName);
    if (pickle != entries.end()) return pickleRefused(folder.string() + ": its weights, " + *pickle + ",", folder.string());
    if (const std::vector<std::string> models = repositoriesIn(folder); !models.empty())
        return Error{folder.string() + ": is a Hugging Face cache of " + std::to_string(models.size()) +
                     (models.size() == 1 ? " model" : " models") + "; open one of its model folders (" +
                     quotedNames(models, 5) + ")"};
    return Error{folder.string() + ": a model folder needs model.safetensors or model.safetensors.index.json (with "
                                   "config.json and the tokenizer files beside it)"};
}

std::uint64_t snapshotBytes(const fs::path& snapshot)
{
    std::uint64_t bytes = 0;
    std::size_t files = 0;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(snapshot, ec), end; !ec && it != end && files < kMaxFilesCounted;
         it.increment(ec), ++files) {
        std::error_code sizeError;
        if (pathKind(it->path().string(), /*followLinks=*/true) != PathKind::Regular) continue;
        const auto size = fs::file_size(it->path(), sizeError);  // through the link to its blob
        if (!sizeError) bytes += size;
    }
    return bytes;
}

std::string modelType(const fs::path& snapshot)
{
    const fs::path config = snapshot / "config.json";
    if (!pathExists(config)) return {};
    Expected<nlohmann::json> json = checkpoint_detail::readJsonObjectFile(config.string(), 4u << 20);
    if (!json) return {};
    const auto type = json->find("model_type");
    return type != json->end() && type->is_string() ? type->get<std::string>() : std::string();
}

}  // namespace

std::string cachedModelName(const std::string& repositoryFolder)
{
    fs::path path(repositoryFolder);
    if (path.filename().empty()) path = path.parent_path();  // a trailing slash
    const std::string name = path.filename().string();
    if (!name.starts_with(kRepositoryPrefix)) return {};
    std::string rest = name.substr(kRepositoryPrefix.size());
    // huggingface_hub writes "models--" + repo_id with each "/" as "--".
    for (std::size_t at = rest.find("--"); at != std::string::npos; at = rest.find("--", at + 1)) rest.replace(at, 2, "/");
    return rest;
}

std::string cachedSnapshotModelName(const std::string& snapshotFolder)
{
    fs::path path = fs::path(snapshotFolder).lexically_normal();
    if (path.filename().empty()) path = path.parent_path();  // a trailing slash
    const fs::path snapshots = path.parent_path();
    if (snapshots.filename() != "snapshots") return {};
    return cachedModelName(snapshots.parent_path().string());
}

Expected<std::string> cachedModelSnapshot(const std::string& repositoryFolder)
{
    const fs::path repository(repositoryFolder);
    const fs::path snapshots = repository / "snapshots";
    const std::string shown = repositoryFolder;
    const std::string reference = mainReference(repository);
    if (!reference.empty()) {
        if (!safeSnapshotName(reference))
            return Error{shown + ": refs/main holds '" + reference.substr(0, 64) + "', which is not a snapshot's name"};
        if (isFolder(snapshots / reference)) return (snapshots / reference).string();
        return Error{shown + ": refs/main names snapshot '" + reference +
                     "', which is not in snapshots/ (the download did not finish, or the cache was pruned)"};
    }
    std::vector<std::string> found;
    for (std::string& name : entriesOf(snapshots))
        if (isFolder(snapshots / name)) found.push_back(std::move(name));
    if (found.size() == 1) return (snapshots / found.front()).string();
    if (found.empty())
        return Error{shown + ": a Hugging Face cache folder with no snapshot in snapshots/ (the download did not finish?)"};
    return Error{shown + ": has " + std::to_string(found.size()) + " snapshots (" + quotedNames(found, 5) +
                 ") and no refs/main to choose one: open one of snapshots/<name>/"};
}

Expected<std::string> checkpointFileOf(const std::string& path)
{
    if (!isFolder(path)) {
        const std::string name = fs::path(path).filename().string();
        if (isPickleName(name)) return pickleRefused(path, fs::path(path).parent_path().string());
        return path;  // a .safetensors file or a shard index; its reader says what else is wrong
    }
    if (!cachedModelName(path).empty() && isFolder(fs::path(path) / "snapshots")) {
        Expected<std::string> snapshot = cachedModelSnapshot(path);
        if (!snapshot) return Error{snapshot.error()};
        return fileInModelFolder(*snapshot);
    }
    return fileInModelFolder(path);
}

std::string huggingFaceCacheFolder(const std::function<const char*(const char*)>& environment)
{
    const auto variable = [&](const char* name) -> std::string {
        const char* value = environment(name);
        return value ? std::string(value) : std::string();
    };
    if (std::string hub = variable("HF_HUB_CACHE"); !hub.empty()) return hub;
    if (std::string home = variable("HF_HOME"); !home.empty()) return (fs::path(home) / "hub").string();
    if (std::string cache = variable("XDG_CACHE_HOME"); !cache.empty())
        return (fs::path(cache) / "huggingface" / "hub").string();
    if (std::string home = variable("HOME"); !home.empty())
        return (fs::path(home) / ".cache" / "huggingface" / "hub").string();
    return {};
}

std::vector<CachedModel> listCachedModels(const std::string& cacheFolder, std::size_t limit)
{
    std::vector<CachedModel> models;
    for (const std::string& repository : repositoriesIn(cacheFolder)) {
        if (models.size() >= limit) break;
        CachedModel model;
        const fs::path folder = fs::path(cacheFolder) / repository;
        model.name = cachedModelName(folder.string());
        model.folder = folder.string();
        Expected<std::string> snapshot = cachedModelSnapshot(folder.string());
        if (!snapshot) {
            model.whyNot = snapshot.error();
            models.push_back(std::move(model));
            continue;
        }
        model.folder = *snapshot;
        model.bytes = snapshotBytes(*snapshot);
        model.family = modelType(*snapshot);
        Expected<Checkpoint> checkpoint = openCheckpoint(*snapshot);  // headers only
        if (checkpoint) {
            model.readable = true;
            model.attentionLayers = static_cast<Index>(checkpoint->layers.size());
            model.withoutTokenizer = !hasSubwordTokenizerFiles(*snapshot);
        } else {
            model.whyNot = checkpoint.error();
        }
        models.push_back(std::move(model));
    }
    return models;
}

}  // namespace qkv
