#pragma once
// The safetensors header (the format: safetensors.hpp): the 8-byte little-endian length and the
// JSON object of tensor entries, validated in full against the data buffer after it. Internal to
// core/io: the reader (safetensors_reading.cpp) parses it, the writer (safetensors_writing.cpp)
// spells the same keys.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.hpp"
#include "core/io/safetensors.hpp"

namespace qkv::safetensors_detail {

// The header key of the string-to-string metadata; no tensor may take this name.
inline constexpr char kMetadataKey[] = "__metadata__";

// A tensor's entry in the header, validated: [begin, end) lies in the data buffer and holds
// exactly prod(shape) values.
struct HeaderEntry {
    std::string name;
    std::string dtypeName;             // as the header spells it
    std::optional<TensorDtype> dtype;  // empty: not a weight dtype (I64, BOOL, ...)
    std::vector<std::size_t> shape;
    std::uint64_t begin = 0;  // relative to the start of the data buffer
    std::uint64_t end = 0;
};

struct ParsedHeader {
    std::vector<HeaderEntry> entries;  // sorted by name
    std::map<std::string, std::string> metadata;
};

// "<sourceName>: <what>", the form of every message of the reader.
std::string prefixed(std::string_view sourceName, const std::string& what);

// The header length field: a little-endian uint64 at p[0..8).
std::uint64_t readU64(const std::byte* p);
void writeU64(std::uint64_t value, std::byte* p);

// "is empty" or "is too short: 5 bytes, a safetensors file needs at least 8" (the 8-byte header
// length alone), or nothing when a file of `size` bytes is long enough to look further.
std::optional<std::string> sizeProblem(std::uint64_t size);

// The header length, when it is within kMaxSafetensorsHeaderBytes and the file of `fileSize`
// (>= 8) bytes holds it after the length field.
Expected<std::uint64_t> checkHeaderLength(std::uint64_t headerLength, std::uint64_t fileSize,
                                          std::string_view sourceName);

// Validates the whole header text against a data buffer of `dataSize` bytes: JSON syntax and
// depth, duplicate keys, each entry's fields, dtype, shape and offsets, and that the tensors
// tile the buffer with no overlap and no gap.
Expected<ParsedHeader> parseHeader(std::string_view text, std::uint64_t dataSize, std::string_view sourceName);

}  // namespace qkv::safetensors_detail
