#pragma once
// The JSON files beside a checkpoint (config.json, model.safetensors.index.json), read with
// bounds: a size cap, a nesting limit checked before parsing, and the parser's exceptions
// turned into messages that name the file. Internal to core/modelfiles and core/checkpoint (nlohmann-json is a
// private dependency of qkv_core).

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "core/common/expected.hpp"

namespace qkv::checkpoint_detail {

// Refuses files larger than `maxBytes`, non-regular files (FIFO, folder...), invalid JSON and
// anything but a JSON object at the top.
Expected<nlohmann::json> readJsonObjectFile(const std::string& path, std::size_t maxBytes);

}  // namespace qkv::checkpoint_detail
