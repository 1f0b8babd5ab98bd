#include "core/modelfiles/checkpoint_files.hpp"

#include <set>

#include "core/modelfiles/checkpoint_json.hpp"
#include "core/io/regular_file.hpp"
#include "core/io/safetensors.hpp"

namespace qkv::checkpoint_detail {

namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxIndexBytes = 64u << 20;
constexpr std::size_t kMaxShards = 10'000;

std::string folderOf(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// Adds the header's tensors (all of them, or those `wanted` names) to `tensors`.
Status addShard(const std::string& file, std::map<std::string, CheckpointTensor>& tensors)
{
    Expected<SafetensorsHeader> header = readSafetensorsHeader(file);
    if (!header) return Error{header.error()};
    for (SafetensorsEntry& entry : header->entries)
        tensors[entry.name] = CheckpointTensor{file, std::move(entry.dtype), std::move(entry.shape), {}, 0, 0.0f,
                                                 entry.fileOffset, entry.byteCount};
    return {};
}

// A shard's name as the index gives it: a relative path that stays in the index's folder.
bool safeShardName(const std::string& name)
{
    if (name.empty() || name.front() == '/') return false;
    std::size_t start = 0;
    while (start <= name.size()) {
        const auto slash = name.find('/', start);
        const std::string part = name.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        if (part == ".." || part.empty()) return false;
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    return true;
}

Expected<std::map<std::string, CheckpointTensor>> readIndex(const std::string& path)
{
    Expected<Json> index = readJsonObjectFile(path, kMaxIndexBytes);
    if (!index) return Error{index.error()};
    const auto map = index->find("weight_map");
    if (map == index->end() || !map->is_object())
        return Error{path + ": is not a sharded checkpoint index (it has no \"weight_map\" object of tensor "
                            "name: shard file)"};
    std::map<std::string, std::string> shardOf;
    std::set<std::string> shards;
    for (const auto& [name, shard] : map->items()) {
        if (!shard.is_string() || !safeShardName(shard.get<std::string>()))
            return Error{path + ": weight_map entry '" + name + "' is " + shard.dump() +
                         ", not the name of a shard file beside the index"};
        shardOf[name] = shard.get<std::string>();
        shards.insert(shard.get<std::string>());
        if (shards.size() > kMaxShards) return Error{path + ": names more than 10000 shard files"};
    }
    if (shardOf.empty()) return Error{path + ": its weight_map is empty"};

    const std::string folder = folderOf(path);
    std::map<std::string, CheckpointTensor> all;
    for (const std::string& shard : shards)
        if (Status added = addShard(folder + shard, all); !added) return Error{added.error()};
    std::map<std::string, CheckpointTensor> tensors;
    for (const auto& [name, shard] : shardOf) {
        const auto it = all.find(name);
        if (it == all.end() || it->second.file != folder + shard)
            return Error{path + ": the weight_map places tensor '" + name + "' in '" + shard +
                         "', but that file does not hold it"};
        tensors.insert(*it);
    }
    return tensors;
}

}  // namespace

Expected<std::map<std::string, CheckpointTensor>> readCheckpointTensors(const std::string& path)
{
    if (path.ends_with(".json")) return readIndex(path);
    std::map<std::string, CheckpointTensor> tensors;
    if (Status added = addShard(path, tensors); !added) return Error{added.error()};
    return tensors;
}

std::string configPathBeside(const std::string& path)
{
    const std::string config = folderOf(path) + "config.json";
    return pathKind(config, /*followLinks=*/true) == PathKind::Missing ? std::string() : config;
}

}  // namespace qkv::checkpoint_detail
