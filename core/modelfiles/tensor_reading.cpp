#include "core/modelfiles/tensor_reading.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/common/memory.hpp"
#include "core/gguf/gguf_tensor.hpp"
#include "core/io/safetensors.hpp"

namespace qkv::checkpoint_detail {

std::string shapeText(const std::vector<std::size_t>& shape)
{
    if (shape.empty()) return "a single number";
    std::string text;
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i > 0 ? "x" : "") + std::to_string(shape[i]);
    return text;
}

namespace {

// Whether every value is finite: its exponent bits are not all ones. A branch-free loop the
// compiler vectorises; Eigen's allFinite() tests one value at a time (100 ms for a BERT-base
// word table, 30522 x 768, against ~5 ms here).
bool allFiniteFloats(const float* values, std::size_t count)
{
    constexpr std::uint32_t exponent = 0x7f800000u;
    std::uint32_t nonFinite = 0;
    for (std::size_t i = 0; i < count; ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, values + i, sizeof bits);
        nonFinite |= static_cast<std::uint32_t>((bits & exponent) == exponent);
    }
    return nonFinite == 0;
}

// Undoes llama.cpp's rotary permutation of Q or K (convert_hf_to_gguf.py's permute: the rows of
// each head, reshaped (2, d/2), swapped to (d/2, 2)): the file's row h d + 2 j + t is the model's
// row h d + t d/2 + j, for head h, j < d/2, t in {0, 1}.
Expected<MatrixF> deinterleavedHeadRows(const MatrixF& stored, Index heads, const std::string& what)
{
    if (heads <= 0 || stored.rows() % (2 * heads) != 0)
        return Error{what + " has " + std::to_string(stored.rows()) + " rows, not 2 x d/2 for each of its " +
                     std::to_string(heads) + " heads"};
    const Index d = stored.rows() / heads;
    MatrixF rows(stored.rows(), stored.cols());
    for (Index h = 0; h < heads; ++h)
        for (Index j = 0; j < d / 2; ++j)
            for (Index t = 0; t < 2; ++t) rows.row(h * d + t * (d / 2) + j) = stored.row(h * d + 2 * j + t);
    return rows;
}

// A GGUF tensor as the Hugging Face checkpoint holds it (checkpoint_tensor.hpp): dequantized,
// its heads' rows and its norm's offset put back, transposed when asked.
Expected<MatrixF> readGgufCheckpointTensor(const std::string& name, const CheckpointTensor& tensor, bool transposed)
{
    const std::string what = tensor.file + ": tensor '" + tensor.gguf->name + "' (" + name + ")";
    if (tensor.shape.empty() || tensor.shape.size() > 2)
        return Error{what + " is " + shapeText(tensor.shape) + ", not a matrix or a vector"};
    Expected<MatrixF> values = readGgufTensor(tensor.file, *tensor.gguf);
    if (!values) return values;
    if (tensor.interleavedHeads > 0) {
        const bool vector = tensor.shape.size() == 1;  // a bias: its values are the rows
        values = deinterleavedHeadRows(vector ? MatrixF(values->transpose()) : *values, tensor.interleavedHeads, what);
        if (!values) return values;
        if (vector) values = MatrixF(values->transpose());
    }
    if (tensor.storedOffset != 0.0f) values->array() -= tensor.storedOffset;
    if (transposed && tensor.shape.size() == 2) return MatrixF(values->transpose());
    return values;
}

}  // namespace

Expected<LoadedTensors> readTensors(const CheckpointTensors& tensors, const std::set<std::string>& names,
                                    const std::set<std::string>& transposedNames)
{
    std::map<std::string, std::set<std::string>> byFile;
    LoadedTensors loaded;
    for (const std::string& name : names) {
        const CheckpointTensor& tensor = tensors.at(name);
        if (!tensor.gguf) {
            byFile[tensor.file].insert(name);
            continue;
        }
        Expected<MatrixF> values = readGgufCheckpointTensor(name, tensor, transposedNames.contains(name));
        if (!values) return Error{values.error()};
        loaded[name] = std::move(*values);
    }
    for (const auto& group : byFile) {
        // Named, not a structured binding: clang before 16 (the fuzz build) cannot capture one.
        const std::string& file = group.first;
        const std::set<std::string>& wanted = group.second;
        // Each tensor is read straight into its matrix (row-major like the file), so a large
        // table is held once.
        std::string refused;
        const Status read = readSafetensorsFloats(
            file, [&wanted](std::string_view name) { return wanted.contains(std::string(name)); },
            [&](const std::string& name, const std::vector<std::size_t>& shape) -> FloatPlacement {
                if (shape.empty() || shape.size() > 2) {
                    refused = file + ": tensor '" + name + "' is " + shapeText(shape) + ", not a matrix or a vector";
                    return {};
                }
                const bool vector = shape.size() == 1;
                const bool transposed = !vector && transposedNames.contains(name);
                MatrixF& values = loaded[name];
                const auto rows = static_cast<Index>(vector ? 1 : shape[0]);
                const auto cols = static_cast<Index>(vector ? shape[0] : shape[1]);
                // A model's weights: gigabytes written once (memory.hpp).
                values = transposed ? freshLargeMatrix(cols, rows) : freshLargeMatrix(rows, cols);
                return {values.data(), transposed};
            });
        if (!read) return Error{refused.empty() ? read.error() : refused};
        for (const std::string& name : wanted) {
            const auto found = loaded.find(name);
            if (found == loaded.end())
                return Error{file + ": has no tensor '" + name + "', which the checkpoint's index places there"};
            const MatrixF& values = found->second;
            if (allFiniteFloats(values.data(), static_cast<std::size_t>(values.size()))) continue;
            Index at = 0;
            while (std::isfinite(values.data()[at])) ++at;
            return Error{file + ": tensor '" + name + "' holds a value that is not finite (" +
                         std::to_string(values.data()[at]) + " at position " + std::to_string(at) + ")"};
        }
    }
    return loaded;
}

}  // namespace qkv::checkpoint_detail
