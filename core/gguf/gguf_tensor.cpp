#include "core/gguf/gguf_tensor.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <vector>

#include "core/common/finite_range.hpp"
#include "core/common/parallelism.hpp"
#include "core/gguf/gguf_dequantize.hpp"
#include "core/gguf/gguf_types.hpp"
#include "core/io/regular_file.hpp"
#include "core/io/widening_transpose.hpp"

namespace qkv {

Expected<MatrixF> readGgufTensor(const std::string& path, const GgufTensorInfo& tensor)
{
    const std::string what = path + ": tensor '" + tensor.name + "'";
    if (!ggmlTypeLayout(tensor.type))
        return Error{what + " has " + ggmlTypeName(tensor.type) + ", which this program cannot decode"};
    if (tensor.valueCount > static_cast<std::uint64_t>(std::numeric_limits<Index>::max()) / 2)
        return Error{what + " is too large"};
    MatrixF values;
    try {
        values.resize(static_cast<Index>(tensor.rowCount()), static_cast<Index>(tensor.rowLength()));
    } catch (const std::bad_alloc&) {
        return Error{what + ": not enough memory for its " + std::to_string(tensor.valueCount) + " values"};
    }
    if (Status read = readGgufTensorInto(path, tensor, values); !read) return Error{read.error()};
    return values;
}

namespace {

// The tensor's rows, a chunk of whole rows (a few MiB of blocks) at a time: read, dequantized
// (gguf_dequantize.hpp), checked finite and handed to `place(firstRow, rows, values)`, where
// `values` is either the destination itself (rowsAt) or a thread's buffer. The bytes are never
// held whole beside the floats. The chunks are split between the compute threads
// (parallelism.hpp), one team for the tensor, each thread reading its own: an 8B model's token
// table is 525 M values. chunkRowMultiple: each chunk's row count is a multiple of it. A chunk is
// 4 MiB of the file's bytes, or of floats when they go to a buffer (`buffered`: a Q4_K chunk's
// floats are 7 times its bytes, and the buffer should stay in the cache).
template <typename RowsAt, typename Place>
Status readRowChunks(const std::string& path, const GgufTensorInfo& tensor, std::uint64_t chunkRowMultiple,
                     bool buffered, const RowsAt& rowsAt, const Place& place)
{
    const std::string what = path + ": tensor '" + tensor.name + "'";
    const auto layout = ggmlTypeLayout(tensor.type);
    if (!layout) return Error{what + " has " + ggmlTypeName(tensor.type) + ", which this program cannot decode"};
    Expected<RegularFileReader> reader = RegularFileReader::open(path);
    if (!reader) return Error{reader.error()};
    if (reader->size() < tensor.offset + tensor.byteCount) return Error{what + ": the file shrank since it was opened"};
    const std::uint64_t C = tensor.rowLength(), R = tensor.rowCount();
    if (C == 0 || R == 0) return {};
    const std::uint64_t rowBytes = C / layout->blockValues * layout->blockBytes;  // rows are whole blocks
    const std::uint64_t chunkRowBytes = buffered ? std::max<std::uint64_t>(rowBytes, C * sizeof(float)) : rowBytes;
    std::uint64_t chunkRows = std::max<std::uint64_t>(1, (std::uint64_t{4} << 20) / chunkRowBytes);
    chunkRows = std::max(chunkRowMultiple, chunkRows / chunkRowMultiple * chunkRowMultiple);
    const auto chunks = static_cast<std::ptrdiff_t>((R + chunkRows - 1) / chunkRows);
    const int threads = chunks > 1 ? threadsFor(static_cast<double>(tensor.valueCount)) : 1;
    std::atomic<bool> unread{false}, noMemory{false};
    std::atomic<std::uint64_t> nonFiniteAt{std::numeric_limits<std::uint64_t>::max()};
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        std::vector<unsigned char> bytes;  // this thread's, reused for its chunks
        std::vector<float> buffer;         // the same, for rowsAt's that want one
#pragma omp for schedule(dynamic, 1)
        for (std::ptrdiff_t k = 0; k < chunks; ++k) {
            if (unread || noMemory) continue;
            const std::uint64_t first = static_cast<std::uint64_t>(k) * chunkRows;
            const std::uint64_t rows = std::min(chunkRows, R - first);
            float* out = nullptr;
            try {
                bytes.resize(static_cast<std::size_t>(rows * rowBytes));
                out = rowsAt(first, rows, buffer);
            } catch (const std::bad_alloc&) {
                noMemory = true;
                continue;
            }
            if (!reader->readAt(tensor.offset + first * rowBytes, bytes.data(), bytes.size())) {
                unread = true;
                continue;
            }
            const auto n = static_cast<std::size_t>(rows * C);
            dequantizeGgml(tensor.type, bytes.data(), n, out);
            if (const std::size_t i = firstNonFinite({out, n}); i < n) {
                const std::uint64_t at = first * C + i;
                std::uint64_t seen = nonFiniteAt.load();
                while (at < seen && !nonFiniteAt.compare_exchange_weak(seen, at)) {}
                continue;
            }
            place(first, rows, out);
        }
    }
    if (noMemory) return Error{what + ": not enough memory to read it"};
    if (unread) return Error{what + ": cannot read its data (the file shrank?)"};
    if (const std::uint64_t at = nonFiniteAt.load(); at != std::numeric_limits<std::uint64_t>::max())
        return Error{what + " has a value that is not finite at position " + std::to_string(at)};
    return {};
}

}  // namespace

Status readGgufTensorInto(const std::string& path, const GgufTensorInfo& tensor, MatrixF& values)
{
    if (static_cast<std::uint64_t>(values.size()) != tensor.valueCount)
        return Error{path + ": tensor '" + tensor.name + "': wrong destination size"};
    const auto C = tensor.rowLength();
    return readRowChunks(
        path, tensor, 1, false,
        [&](std::uint64_t first, std::uint64_t, std::vector<float>&) { return values.data() + first * C; },
        [](std::uint64_t, std::uint64_t, const float*) {});
}

Status readGgufTensorTransposedInto(const std::string& path, const GgufTensorInfo& tensor, const RowOrder& order,
                                    MatrixF& out)
{
    const auto C = static_cast<Index>(tensor.rowLength()), R = static_cast<Index>(tensor.rowCount());
    const Index group = std::max<Index>(1, order.group);
    if (out.rows() != C || out.cols() != R || R % group != 0 ||
        (!order.withinGroup.empty() && static_cast<Index>(order.withinGroup.size()) != group))
        return Error{path + ": tensor '" + tensor.name + "': wrong destination size"};
    // A chunk of whole groups holds every row its columns of `out` read (the order keeps each
    // group's rows), and its order from its own first row is the tensor's from row 0.
    std::vector<std::ptrdiff_t> relative;
    if (!order.withinGroup.empty()) {
        relative.resize(static_cast<std::size_t>(R));
        for (Index r = 0; r < R; ++r)
            relative[static_cast<std::size_t>(r)] = r / group * group + order.withinGroup[static_cast<std::size_t>(r % group)];
    }
    return readRowChunks(
        path, tensor, static_cast<std::uint64_t>(group), true,
        [&](std::uint64_t, std::uint64_t rows, std::vector<float>& buffer) {
            buffer.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(C));
            return buffer.data();
        },
        [&](std::uint64_t first, std::uint64_t rows, const float* values) {
            const StoredRows stored{StoredFloat::Float32, reinterpret_cast<const std::byte*>(values),
                                    C * static_cast<std::ptrdiff_t>(sizeof(float)),
                                    relative.empty() ? nullptr : relative.data()};
            transposeToFloat(stored, static_cast<std::ptrdiff_t>(rows), C, out.data() + first, R);
        });
}

}  // namespace qkv
