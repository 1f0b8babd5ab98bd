#pragma once
// Which files make a checkpoint and which tensors each holds (headers only): a single
// .safetensors file, or a sharded checkpoint's model.safetensors.index.json whose weight_map
// names the shard (a file beside the index) of every tensor. Internal to core/modelfiles and
// core/checkpoint.

#include <map>
#include <string>

#include "core/modelfiles/checkpoint_tensor.hpp"
#include "core/common/expected.hpp"

namespace qkv::checkpoint_detail {

// Every tensor's header entry and file. Refuses unreadable files, a corrupt index (not JSON,
// no weight_map, a shard outside the index's folder) and a shard that lacks a tensor the index
// places in it.
Expected<CheckpointTensors> readCheckpointTensors(const std::string& path);

// "<folder of path>/config.json" when something is there, else empty.
std::string configPathBeside(const std::string& path);

}  // namespace qkv::checkpoint_detail
