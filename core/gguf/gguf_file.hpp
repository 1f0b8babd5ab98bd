#pragma once
// GGUF files (llama.cpp, Ollama, LM Studio): the header, the metadata and the tensor infos,
// read and checked before any tensor's bytes are touched (docs/checkpoints.md, "GGUF files").
//
// Layout (ggml's docs/gguf.md; every number little-endian):
//   "GGUF"            4 bytes of magic
//   version           uint32: 2 or 3 (version 1 used 32-bit counts and is refused)
//   tensor count      uint64
//   metadata count    uint64
//   metadata          count x (key: string, value type: uint32, value)
//   tensor infos      count x (name: string, n_dims: uint32, dims: n_dims x uint64 (ne[0] first,
//                     the values of one row), type: uint32, offset: uint64 from the data start)
//   padding           to `general.alignment` (default 32)
//   data              each tensor's bytes at its offset, a multiple of the alignment
// A string is a uint64 length and that many UTF-8 bytes (no terminator). A value's type is one of
// uint8 int8 uint16 int16 uint32 int32 float32 bool string array uint64 int64 float64 (0..12);
// an array is an element type (uint32), a count (uint64) and the elements.
//
// A file is refused, with a message naming the file and what is wrong, when the magic or the
// version is wrong, when it ends inside the header, when a count, a length or an offset reaches
// past the file, when a string or an array is longer than the limits below, when a tensor has a
// type this reader does not decode, a shape whose product overflows or is not whole blocks, or
// data that overlaps another's or is misaligned. Nothing the file claims is allocated before the
// bytes it needs are known to be in the file.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/expected.hpp"

namespace qkv {

// What one file may claim (each also bounded by the bytes left in the file).
inline constexpr std::uint64_t kGgufMaxStringBytes = std::uint64_t{1} << 24;   // 16 MiB (chat templates)
inline constexpr std::uint64_t kGgufMaxArrayCount = std::uint64_t{1} << 24;    // vocabularies, merges
inline constexpr std::uint64_t kGgufMaxTensorCount = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kGgufMaxMetadataCount = std::uint64_t{1} << 20;
inline constexpr std::uint32_t kGgufMaxDims = 4;  // GGML_MAX_DIMS

enum class GgufValueType : std::uint32_t {
    UInt8 = 0, Int8 = 1, UInt16 = 2, Int16 = 3, UInt32 = 4, Int32 = 5, Float32 = 6, Bool = 7,
    String = 8, Array = 9, UInt64 = 10, Int64 = 11, Float64 = 12,
};

// One metadata value. Numbers of every width are kept as the widest of their kind; an array
// keeps its elements as strings (String elements) or numbers (every other element type; a
// uint64 or int64 element beyond 2^53 is rounded, which no key this program reads reaches).
struct GgufValue {
    GgufValueType type = GgufValueType::UInt8;
    std::uint64_t unsignedValue = 0;   // UInt8..UInt64, Bool (0 or 1)
    std::int64_t signedValue = 0;      // Int8..Int64
    double floatValue = 0.0;           // Float32, Float64
    std::string text;                  // String
    GgufValueType elementType = GgufValueType::UInt8;  // Array
    std::vector<std::string> strings;  // Array of String
    std::vector<double> numbers;       // Array of any other type

    // An integer (signed, unsigned or bool) as int64, when it is one and fits.
    std::optional<std::int64_t> integer() const;
    // Any number (integers converted).
    std::optional<double> number() const;
    std::uint64_t arrayCount() const { return type == GgufValueType::Array ? strings.size() + numbers.size() : 0; }
};

struct GgufTensorInfo {
    std::string name;
    std::vector<std::uint64_t> dims;  // ne[0] (a row's values) first
    std::uint32_t type = 0;           // GgmlType's number (always one ggmlTypeLayout decodes)
    std::uint64_t offset = 0;         // absolute, in the file
    std::uint64_t byteCount = 0;      // the tensor's bytes
    std::uint64_t valueCount = 0;     // product of dims

    std::uint64_t rowLength() const { return dims.empty() ? 1 : dims[0]; }
    std::uint64_t rowCount() const { return rowLength() == 0 ? 0 : valueCount / rowLength(); }
};

struct GgufFile {
    std::string path;
    std::uint64_t fileSize = 0;
    std::uint32_t version = 0;
    std::uint64_t alignment = 32;
    std::uint64_t dataOffset = 0;     // where the data section starts
    std::map<std::string, GgufValue> metadata;
    std::vector<GgufTensorInfo> tensors;  // in the file's order
    std::map<std::string, std::size_t> tensorIndex;  // name -> position in `tensors`

    const GgufValue* find(const std::string& key) const;
    const GgufTensorInfo* findTensor(const std::string& name) const;
};

// Reads and checks the header, metadata and tensor infos of a GGUF file (no tensor data).
Expected<GgufFile> readGgufFile(const std::string& path);

// "uint32", "string", "array", ... for messages.
std::string ggufValueTypeName(GgufValueType type);

}  // namespace qkv

namespace qkv {

// Whether `path` is a regular file that starts with GGUF's magic (Ollama's blobs have no
// extension). Never blocks (regular_file.hpp).
bool hasGgufMagic(const std::string& path);

}  // namespace qkv
