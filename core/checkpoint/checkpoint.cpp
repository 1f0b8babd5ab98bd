#include "core/checkpoint/checkpoint.hpp"

#include <charconv>

#include "core/checkpoint/gguf_checkpoint.hpp"
#include "core/checkpoint/layer_loading.hpp"
#include "core/checkpoint/layer_recognition.hpp"
#include "core/checkpoint/model_folders.hpp"
#include "core/common/quoted_names.hpp"
#include "core/families/family_table.hpp"
#include "core/modelfiles/checkpoint_files.hpp"

namespace qkv {

Expected<Checkpoint> openCheckpoint(const std::string& given, const CheckpointOptions& options)
{
    Expected<std::string> file = checkpointFileOf(given);
    if (!file) return Error{file.error()};
    const std::string& path = *file;
    Checkpoint checkpoint;
    checkpoint.path = path;
    if (hasGgufMagic(path)) {  // its metadata is its config.json (gguf_checkpoint.hpp)
        Expected<GgufFile> gguf = readGgufFile(path);
        if (!gguf) return Error{gguf.error()};
        Expected<GgufCheckpointParts> parts = readGgufCheckpoint(*gguf);
        if (!parts) return Error{parts.error()};
        checkpoint.tensors = std::move(parts->tensors);
        checkpoint.config = std::move(parts->config);
        checkpoint.configPath = path;  // what fixes a setting, in messages
        if (parts->tokenizer) checkpoint.fileTokenizer = std::move(*parts->tokenizer);
        else checkpoint.fileTokenizerProblem = parts->tokenizer.error();
    } else {
        Expected<std::map<std::string, CheckpointTensor>> tensors = checkpoint_detail::readCheckpointTensors(path);
        if (!tensors) return Error{tensors.error()};
        checkpoint.tensors = std::move(*tensors);
        checkpoint.configPath = checkpoint_detail::configPathBeside(path);
        if (!checkpoint.configPath.empty()) {
            Expected<CheckpointConfig> config = readCheckpointConfig(checkpoint.configPath);
            if (!config) return Error{config.error()};
            checkpoint.config = std::move(*config);
        }
    }
    checkpoint.layers = checkpoint_detail::recogniseLayers(checkpoint.tensors, checkpoint.config, options.headCount);
    if (checkpoint.layers.empty()) {
        std::vector<std::string> names;
        for (const auto& entry : checkpoint.tensors) names.push_back(entry.first);
        return Error{path + ": no attention layer of a known family (" + layerFamilyNames() +
                     ") among its " + std::to_string(names.size()) + " tensors: " + quotedNames(names, 12)};
    }
    checkpoint_detail::layerHeadCount(checkpoint.layers.front(), checkpoint.config, options.headCount,
                                      &checkpoint.headCountFromConfig);
    return checkpoint;
}

Expected<CheckpointLayer> findCheckpointLayer(const Checkpoint& checkpoint, std::string_view nameOrIndex)
{
    // "encoder.layers.0.self_attn." is that layer's prefix, as nn.MultiheadAttention names were given.
    const std::string_view name = nameOrIndex.size() > 1 && nameOrIndex.ends_with('.')
                                      ? nameOrIndex.substr(0, nameOrIndex.size() - 1)
                                      : nameOrIndex;
    for (const CheckpointLayer& layer : checkpoint.layers)
        if (layer.name == name) return layer;
    Index index = -1;
    const char* end = nameOrIndex.data() + nameOrIndex.size();
    if (const auto [rest, error] = std::from_chars(nameOrIndex.data(), end, index);
        error == std::errc() && rest == end && index >= 0 && index < static_cast<Index>(checkpoint.layers.size()))
        return checkpoint.layers[static_cast<std::size_t>(index)];
    std::vector<std::string> names;
    for (const CheckpointLayer& layer : checkpoint.layers) names.push_back(layer.name);
    return Error{checkpoint.path + ": no layer '" + std::string(nameOrIndex) + "'; its " +
                 std::to_string(names.size()) + " layers are " + quotedNames(names, 24) + " (or their index, 0 to " +
                 std::to_string(names.size() - 1) + ")"};
}

Expected<CheckpointLayerWeights> loadCheckpointLayer(const Checkpoint& checkpoint, const CheckpointLayer& layer)
{
    return checkpoint_detail::loadLayer(checkpoint, layer);
}

Expected<CheckpointLayerWeights> loadCheckpointLayer(const std::string& path, std::string_view nameOrIndex,
                                                     const CheckpointOptions& options)
{
    Expected<Checkpoint> checkpoint = openCheckpoint(path, options);
    if (!checkpoint) return Error{checkpoint.error()};
    Expected<CheckpointLayer> layer = findCheckpointLayer(*checkpoint, nameOrIndex);
    if (!layer) return Error{layer.error()};
    return loadCheckpointLayer(*checkpoint, *layer);
}

std::string checkpointLayerLine(const CheckpointLayer& layer)
{
    return std::to_string(layer.index) + "\t" + layer.name + "\t" + std::string(modeName(layer.kind)) + "\t" +
           std::to_string(layer.headCount) + "\t" + std::to_string(layer.keyValueHeadCount) + "\t" +
           std::to_string(layer.d_model);
}

}  // namespace qkv
