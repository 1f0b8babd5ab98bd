#pragma once
// One stored tensor of a checkpoint as its file's header describes it (no values): the file that
// holds it, its dtype and shape. A checkpoint's tensors are these by name.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/matrix.hpp"
#include "core/gguf/gguf_file.hpp"

namespace qkv {

struct CheckpointTensor {
    std::string file;   // the .safetensors file that holds it (shard path)
    std::string dtype;  // "F32", "BF16", "I64", ... as in the header
    std::vector<std::size_t> shape;  // safetensors' order (a GGUF tensor's dims reversed: out x in)

    // A tensor of a GGUF file (dtype then "GGUF <type>"): where its blocks are. Reading undoes
    // what llama.cpp's converter did to it, so the values are the Hugging Face checkpoint's:
    std::optional<GgufTensorInfo> gguf;
    Index interleavedHeads = 0;  // Q or K of a llama GGUF: each of these heads' rows interleaved
    float storedOffset = 0.0f;   // Gemma's norms stored as 1 + w: subtracted on reading

    // Where its stored bytes are in `file` (a GGUF tensor: gguf->offset and gguf->byteCount).
    std::uint64_t fileOffset = 0;
    std::uint64_t byteCount = 0;
};

// Every tensor of every file of a checkpoint, by name.
using CheckpointTensors = std::map<std::string, CheckpointTensor>;

}  // namespace qkv
