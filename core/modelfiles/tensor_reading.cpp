#include "core/modelfiles/tensor_reading.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <utility>

#include "core/common/finite_range.hpp"
#include "core/common/memory.hpp"
#include "core/common/parallelism.hpp"
#include "core/gguf/gguf_tensor.hpp"
#include "core/gguf/gguf_types.hpp"
#include "core/io/regular_file.hpp"
#include "core/io/safetensors.hpp"

namespace qkv::checkpoint_detail {

std::string shapeText(const std::vector<std::size_t>& shape)
{
    if (shape.empty()) return "a single number";
    std::string text;
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i > 0 ? "x" : "") + std::to_string(shape[i]);
    return text;
}

void RecycledMatrices::give(MatrixF&& matrix)
{
    if (matrix.size() > 0) matrices_.push_back(std::move(matrix));
}

MatrixF RecycledMatrices::take(Index rows, Index cols)
{
    for (auto it = matrices_.begin(); it != matrices_.end(); ++it)
        if (it->size() == rows * cols) {
            MatrixF m = std::move(*it);
            matrices_.erase(it);
            m.resize(rows, cols);  // same size: keeps its memory
            return m;
        }
    return freshLargeMatrix(rows, cols);
}

namespace {

thread_local RecycledMatrices* recycling = nullptr;

// A matrix about to be written whole: from the thread's recycled ones when a scope is open.
MatrixF destinationMatrix(Index rows, Index cols)
{
    return recycling ? recycling->take(rows, cols) : freshLargeMatrix(rows, cols);
}

}  // namespace

void announceReading(const CheckpointTensors& tensors, const std::vector<std::string>& prefixes)
{
    std::map<std::string, std::vector<std::pair<std::uint64_t, std::uint64_t>>> ranges;  // file: (offset, bytes)
    for (const auto& [name, tensor] : tensors) {
        if (tensor.byteCount == 0) continue;
        for (const std::string& prefix : prefixes)
            if (name.starts_with(prefix)) {
                ranges[tensor.file].emplace_back(tensor.fileOffset, tensor.byteCount);
                break;
            }
    }
    if (ranges.empty()) return;
    // The thread owns copies of what it needs and ends when the hints are given.
    std::thread([ranges = std::move(ranges)] {
        for (const auto& [file, spans] : ranges) {
            Expected<RegularFileReader> reader = RegularFileReader::open(file);
            if (!reader) continue;
            for (const auto& [offset, bytes] : spans) reader->willNeed(offset, bytes);
        }
    }).detach();
}

RecyclingScope::RecyclingScope(RecycledMatrices& pool) : previous_(recycling) { recycling = &pool; }

RecyclingScope::~RecyclingScope() { recycling = previous_; }

namespace {

// The file's row of each of the model's rows of Q or K: llama.cpp's rotary permutation undone
// (convert_hf_to_gguf.py's permute: the rows of each head, reshaped (2, d/2), swapped to (d/2, 2)):
// the model's row h d + t d/2 + j is the file's row h d + 2 j + t, for head h, j < d/2, t in {0, 1}.
// Without interleaved heads (heads 0) every row is its own.
Expected<std::vector<Index>> fileRowOrder(Index rows, Index heads, const std::string& what)
{
    std::vector<Index> order(static_cast<std::size_t>(rows));
    if (heads == 0) {
        for (Index r = 0; r < rows; ++r) order[static_cast<std::size_t>(r)] = r;
        return order;
    }
    if (heads < 0 || rows % (2 * heads) != 0)
        return Error{what + " has " + std::to_string(rows) + " rows, not 2 x d/2 for each of its " +
                     std::to_string(heads) + " heads"};
    const Index d = rows / heads;
    for (Index h = 0; h < heads; ++h)
        for (Index j = 0; j < d / 2; ++j)
            for (Index t = 0; t < 2; ++t) order[static_cast<std::size_t>(h * d + t * (d / 2) + j)] = h * d + 2 * j + t;
    return order;
}

// A GGUF tensor as the Hugging Face checkpoint holds it (checkpoint_tensor.hpp): its heads' rows
// put back and its norm's offset taken off. A matrix asked transposed is dequantized and transposed
// a chunk of whole heads at a time (readGgufTensorTransposedInto); any other is dequantized in the
// file's order first.
Expected<MatrixF> readGgufCheckpointTensor(const std::string& name, const CheckpointTensor& tensor, bool transposed)
{
    const std::string what = tensor.file + ": tensor '" + tensor.gguf->name + "' (" + name + ")";
    if (tensor.shape.empty() || tensor.shape.size() > 2)
        return Error{what + " is " + shapeText(tensor.shape) + ", not a matrix or a vector"};
    const GgufTensorInfo& info = *tensor.gguf;
    if (!ggmlTypeLayout(info.type))
        return Error{tensor.file + ": tensor '" + info.name + "' has " + ggmlTypeName(info.type) +
                     ", which this program cannot decode"};
    const bool vector = tensor.shape.size() == 1;  // 1 x n: a bias's values are its heads' rows
    if (transposed && !vector) {
        Expected<std::vector<Index>> order = fileRowOrder(static_cast<Index>(info.rowCount()), tensor.interleavedHeads, what);
        if (!order) return Error{order.error()};
        // The order keeps each head's rows within the head: a head's row order is every head's.
        RowOrder rowOrder;
        if (tensor.interleavedHeads > 0) {
            rowOrder.group = static_cast<Index>(order->size()) / tensor.interleavedHeads;
            rowOrder.withinGroup.assign(order->begin(), order->begin() + rowOrder.group);
        }
        MatrixF out = destinationMatrix(static_cast<Index>(info.rowLength()), static_cast<Index>(info.rowCount()));
        if (Status read = readGgufTensorTransposedInto(tensor.file, info, rowOrder, out); !read) return Error{read.error()};
        if (tensor.storedOffset != 0.0f) out.array() -= tensor.storedOffset;  // value by value: any order
        return out;
    }
    MatrixF stored = destinationMatrix(static_cast<Index>(info.rowCount()), static_cast<Index>(info.rowLength()));
    if (Status read = readGgufTensorInto(tensor.file, info, stored); !read) return Error{read.error()};
    if (tensor.storedOffset != 0.0f) stored.array() -= tensor.storedOffset;
    const Index rows = vector ? stored.cols() : stored.rows();
    Expected<std::vector<Index>> order = fileRowOrder(rows, tensor.interleavedHeads, what);
    if (!order) return Error{order.error()};
    if (vector) {
        if (tensor.interleavedHeads == 0) return stored;
        MatrixF row(1, rows);
        for (Index r = 0; r < rows; ++r) row(0, r) = stored(0, (*order)[static_cast<std::size_t>(r)]);
        return row;
    }
    if (tensor.interleavedHeads == 0) return stored;
    MatrixF out = destinationMatrix(stored.rows(), stored.cols());
    for (Index r = 0; r < rows; ++r) out.row(r) = stored.row((*order)[static_cast<std::size_t>(r)]);
    if (recycling) recycling->give(std::move(stored));
    return out;
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
                values = transposed ? destinationMatrix(cols, rows) : destinationMatrix(rows, cols);
                return {values.data(), transposed};
            });
        if (!read) return Error{refused.empty() ? read.error() : refused};
        for (const std::string& name : wanted) {
            const auto found = loaded.find(name);
            if (found == loaded.end())
                return Error{file + ": has no tensor '" + name + "', which the checkpoint's index places there"};
            const MatrixF& values = found->second;
            const std::size_t at = firstNonFinite({values.data(), static_cast<std::size_t>(values.size())});
            if (at == static_cast<std::size_t>(values.size())) continue;
            return Error{file + ": tensor '" + name + "' holds a value that is not finite (" +
                         std::to_string(values.data()[at]) + " at position " + std::to_string(at) + ")"};
        }
    }
    return loaded;
}

}  // namespace qkv::checkpoint_detail
