#pragma once
// One stored tensor of a checkpoint as its file's header describes it (no values): the file that
// holds it, its dtype and shape. A checkpoint's tensors are these by name.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace qkv {

struct CheckpointTensor {
    std::string file;   // the .safetensors file that holds it (shard path)
    std::string dtype;  // "F32", "BF16", "I64", ... as in the header
    std::vector<std::size_t> shape;
};

// Every tensor of every file of a checkpoint, by name.
using CheckpointTensors = std::map<std::string, CheckpointTensor>;

}  // namespace qkv
