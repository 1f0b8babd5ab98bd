#pragma once
// safetensors files: reader and writer. The header's parsing and validation is in
// safetensors_header.cpp, the Tensor and its dtype decoding in safetensors_tensor.cpp, reading in
// safetensors_reading.cpp, writing in safetensors_writing.cpp.
//
// Format (huggingface/safetensors):
//   bytes 0..7   N, the header length, uint64 little-endian
//   bytes 8..8+N a JSON object: { "<name>": {"dtype": "F32", "shape": [r, c],
//                "data_offsets": [begin, end]}, ..., "__metadata__": {"key": "value"} }
//                (optional metadata, string to string), padded with trailing spaces
//   the rest     the data buffer: each tensor's values, C order, little-endian, at
//                [begin, end) relative to the start of the buffer.
//
// The reader checks everything before use: header length against the file size (and a
// 100 MB cap), JSON syntax, duplicate keys, required keys, dtypes (those it cannot decode are
// accepted only for tensors the caller does not keep), shape product against the offsets
// (with overflow checks), offsets that stay inside the buffer, do not overlap and cover it
// with no gap (as the reference implementation demands).
//
// Representation: a Tensor keeps its raw little-endian bytes as stored in the file, plus the
// dtype and shape; values are decoded on request (exactly, to double or float). So a file
// round-trips bit for bit, memory stays at the file's size, and F16 / BF16 tensors cost two
// bytes per value until converted. Non-finite values are not refused here (they are valid
// safetensors); weights_file.hpp refuses them.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/common/enum_names.hpp"
#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

enum class TensorDtype { F16, BF16, F32, F64 };

// The dtypes the reader decodes: the header's spelling and the bytes per value.
struct TensorDtypeName {
    TensorDtype value;
    std::string_view name;
    std::size_t bytes;
};
inline constexpr std::array<TensorDtypeName, 4> kTensorDtypeNames{{
    {TensorDtype::F32, "F32", 4},
    {TensorDtype::F64, "F64", 8},
    {TensorDtype::F16, "F16", 2},
    {TensorDtype::BF16, "BF16", 2},
}};
std::string_view tensorDtypeName(TensorDtype dtype);
std::size_t tensorDtypeSize(TensorDtype dtype);

// IEEE 754 binary16 and bfloat16 bit patterns to float, exactly (subnormals, +-0, +-Inf, NaN).
float decodeFloat16(std::uint16_t bits);
float decodeBFloat16(std::uint16_t bits);

struct Tensor {
    std::string name;
    TensorDtype dtype = TensorDtype::F32;
    std::vector<std::size_t> shape;  // empty for a scalar
    std::vector<std::byte> data;     // raw little-endian values, C order

    // prod(shape); 1 for a scalar. Meaningful when consistent().
    std::size_t elementCount() const;
    // True when prod(shape) does not overflow and `data` holds exactly that many values. Always
    // true for tensors the reader returns; checked before use for tensors built by hand.
    bool consistent() const;
    // Value `index` (C order), exact in double for every dtype. index < elementCount().
    double valueAt(std::size_t index) const;
    // All values in C order, exactly.
    std::vector<double> toDoubles() const;
    // All values in C order as float (F64 rounded to nearest), decoded in one pass per dtype:
    // the fast path for large tables (a 30522 x 768 embedding table in ~30 ms instead of a
    // switch per value). `out` holds at least elementCount() floats.
    void toFloats(float* out) const;

    // F32 / F64 tensors of a matrix, shape [rows, cols].
    static Tensor fromMatrix(std::string name, const MatrixF& matrix);
    static Tensor fromMatrix(std::string name, const MatrixD& matrix);
    // Any Eigen expression, evaluated row-major in its own scalar type (float -> F32,
    // double -> F64).
    template <class Derived>
    requires std::is_same_v<typename Derived::Scalar, float> || std::is_same_v<typename Derived::Scalar, double>
    static Tensor fromMatrix(std::string name, const Eigen::MatrixBase<Derived>& matrix)
    {
        if constexpr (std::is_same_v<typename Derived::Scalar, float>)
            return fromMatrix(std::move(name), MatrixF(matrix));
        else
            return fromMatrix(std::move(name), MatrixD(matrix));
    }
    // F32 / F64 tensors of shape [n] from a row or column vector.
    static Tensor fromVector(std::string name, std::span<const float> values);
    static Tensor fromVector(std::string name, std::span<const double> values);
};

struct SafetensorsFile {
    std::vector<Tensor> tensors;                  // sorted by name
    std::map<std::string, std::string> metadata;  // "__metadata__"

    // nullptr when there is no tensor of that name.
    const Tensor* find(std::string_view name) const;
};

// Which tensors to keep (the header is validated in full either way; the others' data are
// neither read nor stored). An empty function keeps every tensor.
using TensorFilter = std::function<bool(std::string_view name)>;

// The limit on N, the JSON header's length.
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

Expected<SafetensorsFile> parseSafetensors(std::span<const std::byte> bytes, std::string_view sourceName,
                                           const TensorFilter& keep = {});
// Reads the header first, then only the data of the kept tensors, so a large model file costs
// only what is asked for.
Expected<SafetensorsFile> readSafetensors(const std::string& path, const TensorFilter& keep = {});

// A tensor as the header describes it, without its values. `dtype` is the header's spelling:
// besides F32, F64, F16 and BF16 the reader accepts the other safetensors dtypes (I64, I32,
// I16, I8, U8, BOOL, ...) for tensors that are not kept, and refuses them when kept ("tensor
// 'position_ids' has dtype 'I64', which is not supported").
struct SafetensorsEntry {
    std::string name;
    std::string dtype;
    std::vector<std::size_t> shape;
    std::uint64_t fileOffset = 0;  // where its bytes start in the file (checked inside it)
    std::uint64_t byteCount = 0;
};
struct SafetensorsHeader {
    std::vector<SafetensorsEntry> entries;  // sorted by name
    std::map<std::string, std::string> metadata;
};
// The header alone, validated in full as readSafetensors does; no tensor data is read.
Expected<SafetensorsHeader> readSafetensorsHeader(const std::string& path);

// Where readSafetensorsFloats puts a kept tensor's values: a buffer of prod(shape) floats that
// stays valid until the call returns, or nullptr to stop (the caller keeps its reason).
using FloatDestination = std::function<float*(const std::string& name, const std::vector<std::size_t>& shape)>;
// The kept tensors' values as float (C order), each written where `destination` says. F32
// values are read straight into it, with no copy of the bytes (a 94 MB embedding table needs
// 94 MB, not twice that); F16, BF16 and F64 are decoded through one tensor's bytes at a time.
// Validates the header as readSafetensors does; the error names the file (empty when
// `destination` stopped it).
Status readSafetensorsFloats(const std::string& path, const TensorFilter& keep, const FloatDestination& destination);

// Where a kept tensor's values go, and in which order: C order, or for a matrix (R x C) with
// `transposed` its transpose in C order (C x R), e.g. an nn.Linear weight (out x in) read
// straight into the x W layout (in x out). nullptr data stops the reading.
struct FloatPlacement {
    float* data = nullptr;
    bool transposed = false;
};
using FloatPlacementDestination =
    std::function<FloatPlacement(const std::string& name, const std::vector<std::size_t>& shape)>;
// As above; each tensor is read in chunks of whole rows (a few MiB, one buffer for the call) and
// decoded straight into its place, so a weight is never held in its file's order as well: opening
// a bf16 model writes each float once. The values are the same bits as decoding, then transposing.
Status readSafetensorsFloats(const std::string& path, const TensorFilter& keep,
                             const FloatPlacementDestination& destination);

// Writes every tensor (any dtype, its raw bytes) sorted by name, with the header padded with
// spaces to a multiple of 8 bytes, through AtomicFile. Refuses duplicate names, the reserved
// name "__metadata__", and tensors whose byte count does not match their shape.
Status writeSafetensors(const std::string& path, const SafetensorsFile& file);

}  // namespace qkv
