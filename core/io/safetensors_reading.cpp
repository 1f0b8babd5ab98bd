#include "core/io/safetensors.hpp"

#include <algorithm>
#include <new>

#include "core/io/regular_file.hpp"
#include "core/io/safetensors_header.hpp"

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
    Expected<RegularFileReader> reader = RegularFileReader::open(path);
    if (!reader) return Error{reader.error()};
    Expected<OpenedHeader> opened = readHeader(*reader, path);
    if (!opened) return Error{opened.error()};
    try {
        for (const HeaderEntry& entry : opened->header.entries) {
            if (keep && !keep(entry.name)) continue;
            if (!entry.dtype) return unsupportedDtype(path, entry);
            float* out = destination(entry.name, entry.shape);
            if (!out) return Error{std::string()};
            const auto bytes = static_cast<std::size_t>(entry.end - entry.begin);  // checked against the shape
            const std::uint64_t at = opened->dataStart + entry.begin;
            if (*entry.dtype == TensorDtype::F32) {  // little-endian host (safetensors_tensor.cpp)
                if (!reader->readAt(at, out, bytes)) return readFailed(path);
                continue;
            }
            Tensor tensor;
            tensor.dtype = *entry.dtype;
            tensor.shape = entry.shape;
            tensor.data.resize(bytes);
            if (!reader->readAt(at, tensor.data.data(), bytes)) return readFailed(path);
            tensor.toFloats(out);
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
        header.entries.push_back({std::move(entry.name), std::move(entry.dtypeName), std::move(entry.shape)});
    return header;
}

}  // namespace qkv
