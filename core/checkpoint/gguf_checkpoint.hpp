#pragma once
// A GGUF file opened as the Hugging Face checkpoint of the same model (docs/checkpoints.md, "GGUF
// files"): its tensors under the names its family's row gives them (core/families/gguf_names.hpp),
// each read from its blocks and dequantized when loaded (core/modelfiles/tensor_reading.hpp), and
// its metadata as the config.json it stands for (core/modelfiles/gguf_config.hpp). From there the
// layer loader, the recipe and the whole model read it as any checkpoint.

#include <string>
#include <vector>

#include "core/common/expected.hpp"
#include "core/gguf/gguf_file.hpp"
#include "core/modelfiles/checkpoint_config.hpp"
#include "core/modelfiles/checkpoint_tensor.hpp"
#include "core/text/subword_tokenizer.hpp"

namespace qkv {

struct GgufCheckpointParts {
    CheckpointTensors tensors;       // Hugging Face names; each CheckpointTensor::gguf set
    CheckpointConfig config;
    Expected<SubwordTokenizer> tokenizer = Error{"no tokenizer"};  // from tokenizer.ggml.* (embedded_vocabulary.hpp)
};

// Refuses an architecture not in the table (naming those read) and the file's own faults.
Expected<GgufCheckpointParts> readGgufCheckpoint(const GgufFile& file);

}  // namespace qkv
