#include "core/io/safetensors.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#include "core/common/parallelism.hpp"
#include "core/io/regular_file.hpp"
#include "core/io/safetensors_header.hpp"
#include "core/io/widening_transpose.hpp"

namespace qkv {

using safetensors_detail::checkHeaderLength;
using safetensors_detail::HeaderEntry;
using safetensors_detail::ParsedHeader;
using safetensors_detail::parseHeader;
using safetensors_detail::prefixed;
using safetensors_detail::readU64;
using safetensors_detail::sizeProblem;

const Tensor* SafetensorsFile::find(std::string_view name) const
{
    const auto it = std::lower_bound(tensors.begin(), tensors.end(), name,
                                     [](const Tensor& t, std::string_view n) { return t.name < n; });
    if (it != tensors.end() && it->name == name) return &*it;
    // Not sorted (built by hand): fall back to a scan.
    for (const Tensor& tensor : tensors)
        if (tensor.name == name) return &tensor;
    return nullptr;
}

namespace {

// A kept tensor whose dtype this reader cannot decode (I64, BOOL, ...).
Error unsupportedDtype(std::string_view sourceName, const HeaderEntry& entry)
{
    return Error{prefixed(sourceName, "tensor '" + entry.name + "' has dtype '" + entry.dtypeName +
                                          "', which is not supported (" + allowedNames(kTensorDtypeNames) + " are)")};
}

// A positioned read of a file that failed (it shrank after the header was read, an I/O error).
Error readFailed(const std::string& path) { return Error{path + ": cannot read (the file changed or a read failed)"}; }

// The tensors a header lists (those `keep` accepts), their bytes supplied by `loadBytes`
// (entry, destination) -> false on a read failure, reported as an Error with no message so the
// caller can say how its source failed.
template <class LoadBytes>
Expected<SafetensorsFile> collectTensors(ParsedHeader& header, const TensorFilter& keep, std::string_view sourceName,
                                         LoadBytes loadBytes)
{
    SafetensorsFile file;
    file.metadata = std::move(header.metadata);
    try {
        for (HeaderEntry& entry : header.entries) {
            if (keep && !keep(entry.name)) continue;
            if (!entry.dtype) return unsupportedDtype(sourceName, entry);
            Tensor tensor;
            tensor.name = std::move(entry.name);
            tensor.dtype = *entry.dtype;
            tensor.shape = std::move(entry.shape);
            if (!loadBytes(entry, tensor.data)) return Error{};
            file.tensors.push_back(std::move(tensor));
        }
    } catch (const std::bad_alloc&) {
        return Error{prefixed(sourceName, "not enough memory to hold its tensors")};
    }
    return file;
}

}  // namespace

Expected<SafetensorsFile> parseSafetensors(std::span<const std::byte> bytes, std::string_view sourceName,
                                           const TensorFilter& keep)
{
    const std::uint64_t size = bytes.size();
    if (const auto problem = sizeProblem(size)) return Error{prefixed(sourceName, *problem)};
    auto headerLength = checkHeaderLength(readU64(bytes.data()), size, sourceName);
    if (!headerLength) return Error{headerLength.error()};
    const std::string_view text(reinterpret_cast<const char*>(bytes.data() + 8), *headerLength);
    const std::uint64_t dataStart = 8 + *headerLength;
    auto header = parseHeader(text, size - dataStart, sourceName);
    if (!header) return Error{header.error()};

    return collectTensors(*header, keep, sourceName, [&](const HeaderEntry& entry, std::vector<std::byte>& data) {
        const auto* first = bytes.data() + dataStart + entry.begin;
        data.assign(first, first + (entry.end - entry.begin));
        return true;
    });
}

namespace {

// The validated header of an open file and where its data buffer starts.
struct OpenedHeader {
    ParsedHeader header;
    std::uint64_t dataStart = 0;
};

Expected<OpenedHeader> readHeader(const RegularFileReader& reader, const std::string& path)
{
    const std::uint64_t size = reader.size();
    if (const auto problem = sizeProblem(size)) return Error{prefixed(path, *problem)};
    std::byte lengthBytes[8];
    if (!reader.readAt(0, lengthBytes, 8)) return readFailed(path);
    auto headerLength = checkHeaderLength(readU64(lengthBytes), size, path);
    if (!headerLength) return Error{headerLength.error()};
    std::string text;
    try {
        text.resize(static_cast<std::size_t>(*headerLength));
    } catch (const std::bad_alloc&) {
        return Error{prefixed(path, "not enough memory to read the header")};
    }
    if (!reader.readAt(8, text.data(), text.size())) return readFailed(path);
    const std::uint64_t dataStart = 8 + *headerLength;
    auto header = parseHeader(text, size - dataStart, path);
    if (!header) return Error{header.error()};
    return OpenedHeader{std::move(*header), dataStart};
}

}  // namespace

Expected<SafetensorsFile> readSafetensors(const std::string& path, const TensorFilter& keep)
{
    // Regular files only, opened without blocking (a FIFO or /dev/zero is refused here).
    Expected<RegularFileReader> reader = RegularFileReader::open(path);
    if (!reader) return Error{reader.error()};
    Expected<OpenedHeader> opened = readHeader(*reader, path);
    if (!opened) return Error{opened.error()};
    const std::uint64_t dataStart = opened->dataStart;
    Expected<SafetensorsFile> file =
        collectTensors(opened->header, keep, path, [&](const HeaderEntry& entry, std::vector<std::byte>& data) {
            data.resize(static_cast<std::size_t>(entry.end - entry.begin));
            return reader->readAt(dataStart + entry.begin, data.data(), data.size());
        });
    if (!file && file.error().empty()) return readFailed(path);
    return file;
}

Status readSafetensorsFloats(const std::string& path, const TensorFilter& keep, const FloatDestination& destination)
{
    return readSafetensorsFloats(path, keep, [&](const std::string& name, const std::vector<std::size_t>& shape) {
        return FloatPlacement{destination(name, shape), false};
    });
}

namespace {

// The bytes of one chunk of whole rows, at most this many (one row when a row is larger).
constexpr std::size_t kChunkBytes = std::size_t{4} << 20;

// A float64 value of a chunk, as float (no checkpoint family stores its weights so: a value at a
// time).
inline float float64At(const std::byte* bytes, std::size_t i)
{
    double value;
    std::memcpy(&value, bytes + 8 * i, 8);
    return static_cast<float>(value);
}

// Stored rows [firstRow, firstRow + rows) of an R x C matrix, decoded into place: in order, or into
// the transpose (C x R) at columns firstRow...
void decodeChunk(TensorDtype dtype, const std::byte* chunk, std::size_t firstRow, std::size_t rows, std::size_t C,
                 std::size_t R, const FloatPlacement& place)
{
    if (dtype == TensorDtype::F64) {
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < C; ++c) {
                float* out = place.transposed ? place.data + c * R + firstRow + r : place.data + (firstRow + r) * C + c;
                *out = float64At(chunk, r * C + c);
            }
        return;
    }
    // widening_transpose.hpp: exact, vectorised (in registers for the transpose, where the CPU can).
    const StoredFloat format = dtype == TensorDtype::F32    ? StoredFloat::Float32
                               : dtype == TensorDtype::BF16 ? StoredFloat::BFloat16
                                                            : StoredFloat::Float16;
    if (!place.transposed) {
        widenToFloat(format, chunk, rows * C, place.data + firstRow * C);
        return;
    }
    const StoredRows stored{format, chunk, static_cast<std::ptrdiff_t>(C * tensorDtypeSize(dtype))};
    transposeToFloat(stored, static_cast<std::ptrdiff_t>(rows), static_cast<std::ptrdiff_t>(C), place.data + firstRow,
                     static_cast<std::ptrdiff_t>(R));
}

}  // namespace

// A tensor of R rows of C values at `at`, a chunk of chunkRows rows at a time, each read and decoded
// into place. The chunks are split between the threads (parallelism.hpp) in one team for the whole
// tensor, each thread reading its own chunks (positioned reads): a block of an 8B model is 0.9 GB of
// float32 converted each time a run reaches it, and a team per 4 MiB chunk spent a third of that
// conversion in OpenMP's barriers on this busy machine (measured). False when a read fails.
bool decodeChunks(const RegularFileReader& reader, std::uint64_t at, TensorDtype dtype, std::size_t R, std::size_t C,
                  std::size_t chunkRows, const FloatPlacement& target)
{
    const std::size_t rowBytes = C * tensorDtypeSize(dtype);
    const auto chunks = static_cast<std::ptrdiff_t>((R + chunkRows - 1) / chunkRows);
    const int threads = chunks > 1 ? threadsFor(static_cast<double>(R) * static_cast<double>(C)) : 1;
    std::atomic<bool> failed{false};
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        std::vector<std::byte> chunk;  // this thread's, reused for its chunks
        try {
            chunk.resize(std::min(R, chunkRows) * rowBytes);
        } catch (const std::bad_alloc&) {
            failed = true;
        }
#pragma omp for schedule(dynamic, 1)
        for (std::ptrdiff_t k = 0; k < chunks; ++k) {
            if (failed) continue;
            const std::size_t first = static_cast<std::size_t>(k) * chunkRows;
            const std::size_t rows = std::min(chunkRows, R - first);
            if (!reader.readAt(at + first * rowBytes, chunk.data(), rows * rowBytes)) {
                failed = true;
                continue;
            }
            decodeChunk(dtype, chunk.data(), first, rows, C, R, target);
        }
    }
    return !failed;
}

Status readSafetensorsFloats(const std::string& path, const TensorFilter& keep,
                             const FloatPlacementDestination& destination)
{
    Expected<RegularFileReader> reader = RegularFileReader::open(path);
    if (!reader) return Error{reader.error()};
    Expected<OpenedHeader> opened = readHeader(*reader, path);
    if (!opened) return Error{opened.error()};
    try {
        for (const HeaderEntry& entry : opened->header.entries) {
            if (keep && !keep(entry.name)) continue;
            if (!entry.dtype) return unsupportedDtype(path, entry);
            const FloatPlacement place = destination(entry.name, entry.shape);
            if (!place.data) return Error{std::string()};
            const auto bytes = static_cast<std::size_t>(entry.end - entry.begin);  // checked against the shape
            const std::uint64_t at = opened->dataStart + entry.begin;
            const bool matrix = entry.shape.size() == 2;
            if (*entry.dtype == TensorDtype::F32 && !(place.transposed && matrix)) {
                // little-endian host (safetensors_tensor.cpp): straight into place
                if (!reader->readAt(at, place.data, bytes)) return readFailed(path);
                continue;
            }
            // Rows R of C values (a vector or a scalar: one row), read a chunk of rows at a time.
            const std::size_t size = tensorDtypeSize(*entry.dtype);
            const std::size_t C = matrix ? entry.shape[1] : bytes / size;
            const std::size_t R = matrix ? entry.shape[0] : 1;
            if (C == 0 || R == 0) continue;
            const std::size_t rowBytes = C * size;
            const std::size_t chunkRows = std::max<std::size_t>(1, kChunkBytes / rowBytes);
            const FloatPlacement target{place.data, place.transposed && matrix};
            if (!decodeChunks(*reader, at, *entry.dtype, R, C, chunkRows, target)) return readFailed(path);
        }
    } catch (const std::bad_alloc&) {
        return Error{prefixed(path, "not enough memory to hold its tensors")};
    }
    return {};
}

Expected<SafetensorsHeader> readSafetensorsHeader(const std::string& path)
{
    Expected<RegularFileReader> reader = RegularFileReader::open(path);
    if (!reader) return Error{reader.error()};
    Expected<OpenedHeader> opened = readHeader(*reader, path);
    if (!opened) return Error{opened.error()};
    SafetensorsHeader header;
    header.metadata = std::move(opened->header.metadata);
    header.entries.reserve(opened->header.entries.size());
    for (HeaderEntry& entry : opened->header.entries)
        header.entries.push_back({std::move(entry.name), std::move(entry.dtypeName), std::move(entry.shape),
                                  opened->dataStart + entry.begin, entry.end - entry.begin});
    return header;
}

}  // namespace qkv
