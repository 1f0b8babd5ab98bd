#include "core/checkpoint/gguf_checkpoint.hpp"

#include <algorithm>

#include "core/families/gguf_names.hpp"
#include "core/gguf/gguf_types.hpp"
#include "core/modelfiles/gguf_config.hpp"

namespace qkv {
namespace {

CheckpointTensor checkpointTensor(const GgufFile& file, const GgufTensorInfo& info)
{
    CheckpointTensor tensor;
    tensor.file = file.path;
    tensor.dtype = "GGUF " + ggmlTypeName(info.type);
    // ggml's dims run from the row's values outwards; safetensors' from the outside in.
    for (auto dim = info.dims.rbegin(); dim != info.dims.rend(); ++dim) tensor.shape.push_back(static_cast<std::size_t>(*dim));
    tensor.gguf = info;
    return tensor;
}

}  // namespace

Expected<GgufCheckpointParts> readGgufCheckpoint(const GgufFile& file)
{
    const GgufValue* architecture = file.find("general.architecture");
    if (!architecture || architecture->type != GgufValueType::String)
        return Error{file.path + ": has no general.architecture, so its family is unknown"};
    const GgufArchitectureRow* row = ggufArchitectureRow(architecture->text);
    if (!row)
        return Error{file.path + ": architecture '" + architecture->text + "' is not one this program reads (" +
                     ggufArchitectureNames() + ")"};
    Expected<CheckpointConfig> config = ggufCheckpointConfig(file, row->architecture, row->modelType);
    if (!config) return Error{config.error()};
    GgufCheckpointParts parts;
    parts.config = std::move(*config);
    const Index heads = parts.config.headCount.value_or(0);
    const Index keyValueHeads = parts.config.keyValueHeadCount.value_or(heads);
    std::vector<std::string> skipped;
    for (const GgufTensorInfo& info : file.tensors) {
        const std::optional<std::string> name = huggingFaceTensorName(*row, info.name);
        if (!name) {
            skipped.push_back(info.name);
            continue;
        }
        CheckpointTensor tensor = checkpointTensor(file, info);
        if (row->interleavedQueryKey && name->find(".self_attn.q_proj.") != std::string::npos) tensor.interleavedHeads = heads;
        if (row->interleavedQueryKey && name->find(".self_attn.k_proj.") != std::string::npos)
            tensor.interleavedHeads = keyValueHeads;
        if (row->normsStoreOnePlusW && isNormWeightName(*name)) tensor.storedOffset = 1.0f;
        parts.tensors.emplace(*name, std::move(tensor));
    }
    // Llama 3's GGUF carries its rope_scaling as per-frequency factors (rope_freqs), not as keys.
    if (std::find(skipped.begin(), skipped.end(), "rope_freqs.weight") != skipped.end() &&
        parts.config.ropeScalingNotApplied.empty())
        parts.config.ropeScalingNotApplied = "llama3 (the GGUF file's rope_freqs factors)";
    if (!skipped.empty()) {
        std::string list;
        for (std::size_t i = 0; i < std::min<std::size_t>(skipped.size(), 4); ++i)
            list += (i > 0 ? ", " : "") + skipped[i];
        parts.notes.push_back("left out " + std::to_string(skipped.size()) + " tensor(s) of the GGUF file that no layer reads (" +
                              list + (skipped.size() > 4 ? ", ..." : "") + ")");
    }
    return parts;
}

}  // namespace qkv
