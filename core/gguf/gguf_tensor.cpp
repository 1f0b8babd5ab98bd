#include "core/gguf/gguf_tensor.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <vector>

#include "core/common/parallelism.hpp"
#include "core/gguf/gguf_dequantize.hpp"
#include "core/gguf/gguf_types.hpp"
#include "core/io/regular_file.hpp"

namespace qkv {

namespace {

// Whether a value that is not finite is among `count` floats: exponent bits all ones. Branch-free,
// so the compiler vectorises it (std::isfinite per value with an early exit does not).
bool anyNonFinite(const float* values, std::size_t count)
{
    std::uint32_t found = 0;
    for (std::size_t i = 0; i < count; ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, values + i, 4);
        found |= static_cast<std::uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
    }
    return found != 0;
}

}  // namespace

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

Status readGgufTensorInto(const std::string& path, const GgufTensorInfo& tensor, MatrixF& values)
{
    const std::string what = path + ": tensor '" + tensor.name + "'";
    const auto layout = ggmlTypeLayout(tensor.type);
    if (!layout) return Error{what + " has " + ggmlTypeName(tensor.type) + ", which this program cannot decode"};
    if (static_cast<std::uint64_t>(values.size()) != tensor.valueCount) return Error{what + ": wrong destination size"};
    Expected<RegularFileReader> reader = RegularFileReader::open(path);
    if (!reader) return Error{reader.error()};
    if (reader->size() < tensor.offset + tensor.byteCount) return Error{what + ": the file shrank since it was opened"};
    // A few MiB of blocks at a time: the bytes are never held whole beside the floats. The chunks are
    // split between the compute threads (parallelism.hpp), one team for the tensor, each thread
    // reading its own: an 8B model's token table is 525 M values.
    const std::uint64_t blockCount = tensor.valueCount / layout->blockValues;
    const std::uint64_t blocksPerRead = std::max<std::uint64_t>(1, (std::uint64_t{4} << 20) / layout->blockBytes);
    const auto chunks = static_cast<std::ptrdiff_t>((blockCount + blocksPerRead - 1) / blocksPerRead);
    const int threads = chunks > 1 ? threadsFor(static_cast<double>(tensor.valueCount)) : 1;
    std::atomic<bool> unread{false};
    std::atomic<std::uint64_t> firstNonFinite{std::numeric_limits<std::uint64_t>::max()};
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        std::vector<unsigned char> bytes;  // this thread's, reused for its chunks
#pragma omp for schedule(dynamic, 1)
        for (std::ptrdiff_t k = 0; k < chunks; ++k) {
            if (unread) continue;
            const std::uint64_t first = static_cast<std::uint64_t>(k) * blocksPerRead;
            const std::uint64_t count = std::min(blocksPerRead, blockCount - first);
            try {
                bytes.resize(static_cast<std::size_t>(count * layout->blockBytes));
            } catch (const std::bad_alloc&) {
                unread = true;
                continue;
            }
            if (!reader->readAt(tensor.offset + first * layout->blockBytes, bytes.data(), bytes.size())) {
                unread = true;
                continue;
            }
            float* out = values.data() + first * layout->blockValues;
            const auto n = static_cast<std::size_t>(count * layout->blockValues);
            dequantizeGgml(tensor.type, bytes.data(), n, out);
            if (!anyNonFinite(out, n)) continue;
            std::size_t i = 0;
            while (std::isfinite(out[i])) ++i;
            const std::uint64_t at = first * layout->blockValues + i;
            std::uint64_t seen = firstNonFinite.load();
            while (at < seen && !firstNonFinite.compare_exchange_weak(seen, at)) {}
        }
    }
    if (unread) return Error{what + ": cannot read its data (the file shrank?)"};
    if (const std::uint64_t at = firstNonFinite.load(); at != std::numeric_limits<std::uint64_t>::max())
        return Error{what + " has a value that is not finite at position " + std::to_string(at)};
    return {};
}

}  // namespace qkv
