#include "core/io/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "core/io/atomic_file.hpp"
#include "core/io/json_depth.hpp"
#include "core/io/regular_file.hpp"

namespace qkv {

static_assert(std::endian::native == std::endian::little,
              "the safetensors reader and writer copy little-endian data as is");

namespace {

using Json = nlohmann::json;

constexpr char kMetadataKey[] = "__metadata__";
// A valid header nests three levels ({ name: { shape: [ ] } }); anything much deeper is not a
// safetensors header, and refusing it before parsing keeps the JSON library's stack bounded.
constexpr int kMaxJsonDepth = 16;

// A tensor's entry in the header, validated: [begin, end) lies in the data buffer and holds
// exactly prod(shape) values.
struct HeaderEntry {
    std::string name;
    std::string dtypeName;              // as the header spells it
    std::optional<TensorDtype> dtype;   // empty: not a weight dtype (I64, BOOL, ...)
    std::vector<std::size_t> shape;
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
};

struct ParsedHeader {
    std::vector<HeaderEntry> entries;  // sorted by name
    std::map<std::string, std::string> metadata;
};

std::string prefixed(std::string_view sourceName, const std::string& what)
{
    return std::string(sourceName) + ": " + what;
}

std::uint64_t readU64(const std::byte* p)
{
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i)
        value |= static_cast<std::uint64_t>(std::to_integer<unsigned>(p[i])) << (8 * i);
    return value;
}

std::string jsonTypeWords(const Json& value)
{
    switch (value.type()) {
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "a list";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "true/false";
    case Json::value_t::null: return "null";
    case Json::value_t::number_float: return "a decimal number";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    default: return "something else";
    }
}

// Parses the JSON text and turns nlohmann's exceptions and silently merged duplicate keys
// into a message.
Expected<Json> parseJson(std::string_view text, std::string_view sourceName)
{
    if (jsonDepth(text, kMaxJsonDepth) > kMaxJsonDepth)
        return Error{prefixed(sourceName, "the header is not a safetensors header (its JSON nests "
                                          "more than " + std::to_string(kMaxJsonDepth) +
                                          " levels deep)")};
    std::vector<std::set<std::string>> openObjects;
    std::string duplicate;
    auto callback = [&](int, Json::parse_event_t event, Json& parsed) {
        switch (event) {
        case Json::parse_event_t::object_start: openObjects.emplace_back(); break;
        case Json::parse_event_t::object_end:
            if (!openObjects.empty()) openObjects.pop_back();
            break;
        case Json::parse_event_t::key:
            if (!openObjects.empty() && parsed.is_string() &&
                !openObjects.back().insert(parsed.get<std::string>()).second && duplicate.empty())
                duplicate = parsed.get<std::string>();
            break;
        default: break;
        }
        return true;
    };
    try {
        Json json = Json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/true);
        if (!duplicate.empty())
            return Error{prefixed(sourceName, "the header names '" + duplicate + "' twice")};
        return json;
    } catch (const Json::exception& e) {
        std::string what = e.what();
        // "[json.exception.parse_error.101] parse error at ..." -> "parse error at ..."
        if (const auto close = what.find("] "); what.starts_with("[json.") && close != std::string::npos)
            what.erase(0, close + 2);
        return Error{prefixed(sourceName, "the header is not valid JSON (" + what + ")")};
    } catch (const std::bad_alloc&) {
        return Error{prefixed(sourceName, "not enough memory to read the header")};
    }
}

std::optional<TensorDtype> dtypeFromName(std::string_view name)
{
    if (name == "F32") return TensorDtype::F32;
    if (name == "F64") return TensorDtype::F64;
    if (name == "F16") return TensorDtype::F16;
    if (name == "BF16") return TensorDtype::BF16;
    return std::nullopt;
}

// Bytes per value of the other safetensors dtypes, which files hold beside weights
// (position_ids, masks) and which are validated and skipped, never decoded. 0: unknown.
std::uint64_t otherDtypeSize(std::string_view name)
{
    if (name == "BOOL" || name == "U8" || name == "I8" || name == "F8_E4M3" || name == "F8_E5M2") return 1;
    if (name == "I16" || name == "U16") return 2;
    if (name == "I32" || name == "U32") return 4;
    if (name == "I64" || name == "U64") return 8;
    return 0;
}

// Validates the whole header against a data buffer of `dataSize` bytes.
Expected<ParsedHeader> parseHeader(std::string_view text, std::uint64_t dataSize,
                                   std::string_view sourceName)
{
    auto parsed = parseJson(text, sourceName);
    if (!parsed) return Error{parsed.error()};
    const Json& root = *parsed;
    if (!root.is_object())
        return Error{prefixed(sourceName, "the header is " + jsonTypeWords(root) +
                                              ", not a JSON object of tensors")};

    ParsedHeader header;
    for (const auto& [name, entry] : root.items()) {
        const std::string where = "tensor '" + name + "'";
        if (name == kMetadataKey) {
            if (!entry.is_object())
                return Error{prefixed(sourceName, "'__metadata__' is " + jsonTypeWords(entry) +
                                                      ", not an object of strings")};
            for (const auto& [key, value] : entry.items()) {
                if (!value.is_string())
                    return Error{prefixed(sourceName, "'__metadata__' entry '" + key + "' is " +
                                                          jsonTypeWords(value) + ", not a string")};
                header.metadata[key] = value.get<std::string>();
            }
            continue;
        }
        if (!entry.is_object())
            return Error{prefixed(sourceName, where + " is described by " + jsonTypeWords(entry) +
                                                  ", not an object")};
        for (const auto& [key, value] : entry.items()) {
            (void)value;
            if (key != "dtype" && key != "shape" && key != "data_offsets")
                return Error{prefixed(sourceName, where + " has an unknown field '" + key + "'")};
        }
        for (const char* key : {"dtype", "shape", "data_offsets"})
            if (!entry.contains(key))
                return Error{prefixed(sourceName, where + " has no '" + key + "'")};

        HeaderEntry out;
        out.name = name;
        const Json& dtype = entry["dtype"];
        if (!dtype.is_string())
            return Error{prefixed(sourceName, where + ": 'dtype' is " + jsonTypeWords(dtype) +
                                                  ", not a string")};
        const auto dtypeName = dtype.get<std::string>();
        out.dtypeName = dtypeName;
        out.dtype = dtypeFromName(dtypeName);
        // A dtype this reader cannot decode is fine for a tensor nobody asks for (refused by
        // collectTensors when kept); an unknown byte size only skips the size check below.
        const std::uint64_t itemSize = out.dtype ? tensorDtypeSize(*out.dtype) : otherDtypeSize(dtypeName);

        const Json& shape = entry["shape"];
        if (!shape.is_array())
            return Error{prefixed(sourceName, where + ": 'shape' is " + jsonTypeWords(shape) +
                                                  ", not a list")};
        std::uint64_t count = 1;
        bool overflow = false;
        for (const Json& dim : shape) {
            if (!dim.is_number_unsigned())
                return Error{prefixed(sourceName, where + ": 'shape' must hold non-negative "
                                                          "integers")};
            const auto value = dim.get<std::uint64_t>();
            if (value > std::numeric_limits<std::size_t>::max())
                overflow = true;
            else
                out.shape.push_back(static_cast<std::size_t>(value));
            if (value != 0 && count > std::numeric_limits<std::uint64_t>::max() / value)
                overflow = true;
            else
                count *= value;
        }
        const std::uint64_t item = std::max<std::uint64_t>(itemSize, 1);
        if (overflow || count > std::numeric_limits<std::uint64_t>::max() / item)
            return Error{prefixed(sourceName, where + " has an impossibly large shape")};
        // Zero-size tensors need a bound too (Eigen must never see absurd dimensions).
        for (std::size_t dim : out.shape)
            if (dim > std::numeric_limits<std::int32_t>::max())
                return Error{prefixed(sourceName, where + " has an impossibly large shape")};

        const Json& offsets = entry["data_offsets"];
        if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
            !offsets[1].is_number_unsigned())
            return Error{prefixed(sourceName, where + ": 'data_offsets' must be a list of two "
                                                      "non-negative integers [begin, end]")};
        out.begin = offsets[0].get<std::uint64_t>();
        out.end = offsets[1].get<std::uint64_t>();
        if (out.begin > out.end)
            return Error{prefixed(sourceName, where + ": 'data_offsets' [" +
                                                  std::to_string(out.begin) + ", " +
                                                  std::to_string(out.end) + "] end before they begin")};
        if (out.end > dataSize)
            return Error{prefixed(sourceName, where + " lies at bytes [" +
                                                  std::to_string(out.begin) + ", " +
                                                  std::to_string(out.end) +
                                                  ") but the data buffer has only " +
                                                  std::to_string(dataSize) +
                                                  " bytes (the file is truncated or corrupt)")};
        if (itemSize != 0 && out.end - out.begin != count * item)
            return Error{prefixed(sourceName, where + " has " + std::to_string(count) + " " +
                                                  dtypeName + " values (" +
                                                  std::to_string(count * item) + " bytes) but its "
                                                  "'data_offsets' span " +
                                                  std::to_string(out.end - out.begin) + " bytes")};
        header.entries.push_back(std::move(out));
    }

    // The tensors must tile the data buffer: no overlap, no gap, nothing after the last.
    std::vector<const HeaderEntry*> byOffset;
    byOffset.reserve(header.entries.size());
    for (const HeaderEntry& entry : header.entries) byOffset.push_back(&entry);
    std::sort(byOffset.begin(), byOffset.end(), [](const HeaderEntry* a, const HeaderEntry* b) {
        return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
    });
    std::uint64_t covered = 0;
    const HeaderEntry* previous = nullptr;
    for (const HeaderEntry* entry : byOffset) {
        if (entry->begin < covered)
            return Error{prefixed(sourceName, "tensors '" + previous->name + "' and '" +
                                                  entry->name + "' overlap in the data buffer")};
        if (entry->begin > covered)
            return Error{prefixed(sourceName, "bytes [" + std::to_string(covered) + ", " +
                                                  std::to_string(entry->begin) +
                                                  ") of the data buffer belong to no tensor")};
        covered = entry->end;
        previous = entry;
    }
    if (covered != dataSize)
        return Error{prefixed(sourceName, "the last " + std::to_string(dataSize - covered) +
                                              " bytes of the data buffer belong to no tensor")};
    // root.items() walks std::map order, so entries are already sorted by name.
    return header;
}

// "is empty" or "is too short: 5 bytes, a safetensors file needs at least 8" (the 8-byte
// header length alone), or nothing when the size is enough to look further.
std::optional<std::string> sizeProblem(std::uint64_t size)
{
    if (size == 0) return "is empty";
    if (size < 8)
        return "is too short: " + std::to_string(size) + (size == 1 ? " byte" : " bytes") +
               ", a safetensors file needs at least 8";
    return std::nullopt;
}

std::string bytesForHeader(std::uint64_t headerLength, std::uint64_t fileSize)
{
    return "the header length says " + std::to_string(headerLength) + " bytes but the file has only " +
           std::to_string(fileSize >= 8 ? fileSize - 8 : 0) +
           " bytes after the 8-byte length (the file is truncated or not a safetensors file)";
}

Expected<std::uint64_t> checkHeaderLength(std::uint64_t headerLength, std::uint64_t fileSize,
                                          std::string_view sourceName)
{
    if (headerLength > kMaxSafetensorsHeaderBytes)
        return Error{prefixed(sourceName, "the header length says " + std::to_string(headerLength) +
                                              " bytes, more than the limit of 100 MB (the file is "
                                              "corrupt or not a safetensors file)")};
    if (headerLength > fileSize - 8) return Error{prefixed(sourceName, bytesForHeader(headerLength, fileSize))};
    return headerLength;
}

}  // namespace

std::string_view tensorDtypeName(TensorDtype dtype)
{
    switch (dtype) {
    case TensorDtype::F16: return "F16";
    case TensorDtype::BF16: return "BF16";
    case TensorDtype::F32: return "F32";
    case TensorDtype::F64: return "F64";
    }
    return "?";
}

std::size_t tensorDtypeSize(TensorDtype dtype)
{
    switch (dtype) {
    case TensorDtype::F16:
    case TensorDtype::BF16: return 2;
    case TensorDtype::F32: return 4;
    case TensorDtype::F64: return 8;
    }
    return 1;
}

float decodeFloat16(std::uint16_t bits)
{
    // binary16: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits.
    const bool negative = (bits & 0x8000u) != 0;
    const int exponent = (bits >> 10) & 0x1f;
    const int mantissa = bits & 0x3ff;
    float magnitude;
    if (exponent == 0) magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // subnormal
    else if (exponent == 31)
        magnitude = mantissa == 0 ? std::numeric_limits<float>::infinity()
                                  : std::numeric_limits<float>::quiet_NaN();
    else magnitude = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
    return negative ? -magnitude : magnitude;
}

float decodeBFloat16(std::uint16_t bits)
{
    // bfloat16 is the top half of a binary32.
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::size_t Tensor::elementCount() const
{
    std::size_t count = 1;
    for (std::size_t dim : shape) count *= dim;
    return count;
}

bool Tensor::consistent() const
{
    std::size_t count = 1;
    for (std::size_t dim : shape) {
        if (dim != 0 && count > std::numeric_limits<std::size_t>::max() / dim) return false;
        count *= dim;
    }
    const std::size_t item = tensorDtypeSize(dtype);
    return count <= std::numeric_limits<std::size_t>::max() / item && data.size() == count * item;
}

double Tensor::valueAt(std::size_t index) const
{
    const std::byte* p = data.data() + index * tensorDtypeSize(dtype);
    switch (dtype) {
    case TensorDtype::F16:
    case TensorDtype::BF16: {
        std::uint16_t bits;
        std::memcpy(&bits, p, 2);
        return dtype == TensorDtype::F16 ? decodeFloat16(bits) : decodeBFloat16(bits);
    }
    case TensorDtype::F32: {
        float value;
        std::memcpy(&value, p, 4);
        return value;
    }
    case TensorDtype::F64: {
        double value;
        std::memcpy(&value, p, 8);
        return value;
    }
    }
    return 0.0;
}

void Tensor::toFloats(float* out) const
{
    const std::size_t count = std::min(elementCount(), data.size() / tensorDtypeSize(dtype));
    const std::byte* p = data.data();
    switch (dtype) {
    case TensorDtype::F32:
        if (count > 0) std::memcpy(out, p, count * sizeof(float));  // little-endian host (static_assert above)
        return;
    case TensorDtype::F16:
    case TensorDtype::BF16:
        for (std::size_t i = 0; i < count; ++i) {
            std::uint16_t bits;
            std::memcpy(&bits, p + 2 * i, 2);
            out[i] = dtype == TensorDtype::F16 ? decodeFloat16(bits) : decodeBFloat16(bits);
        }
        return;
    case TensorDtype::F64:
        for (std::size_t i = 0; i < count; ++i) {
            double value;
            std::memcpy(&value, p + 8 * i, 8);
            out[i] = static_cast<float>(value);
        }
        return;
    }
}

std::vector<double> Tensor::toDoubles() const
{
    const std::size_t count = std::min(elementCount(), data.size() / tensorDtypeSize(dtype));
    std::vector<double> values(count);
    for (std::size_t i = 0; i < count; ++i) values[i] = valueAt(i);
    return values;
}

namespace {

template <class Scalar>
Tensor makeTensor(std::string name, std::vector<std::size_t> shape, const Scalar* values,
                  std::size_t count)
{
    Tensor tensor;
    tensor.name = std::move(name);
    tensor.dtype = sizeof(Scalar) == 4 ? TensorDtype::F32 : TensorDtype::F64;
    tensor.shape = std::move(shape);
    tensor.data.resize(count * sizeof(Scalar));
    if (count > 0) std::memcpy(tensor.data.data(), values, count * sizeof(Scalar));
    return tensor;
}

}  // namespace

Tensor Tensor::fromMatrix(std::string name, const MatrixF& matrix)
{
    return makeTensor(std::move(name),
                      {static_cast<std::size_t>(matrix.rows()), static_cast<std::size_t>(matrix.cols())},
                      matrix.data(), static_cast<std::size_t>(matrix.size()));
}

Tensor Tensor::fromMatrix(std::string name, const MatrixD& matrix)
{
    return makeTensor(std::move(name),
                      {static_cast<std::size_t>(matrix.rows()), static_cast<std::size_t>(matrix.cols())},
                      matrix.data(), static_cast<std::size_t>(matrix.size()));
}

Tensor Tensor::fromVector(std::string name, std::span<const float> values)
{
    return makeTensor(std::move(name), {values.size()}, values.data(), values.size());
}

Tensor Tensor::fromVector(std::string name, std::span<const double> values)
{
    return makeTensor(std::move(name), {values.size()}, values.data(), values.size());
}

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
                                          "', which is not supported (F32, F64, F16 and BF16 are)")};
}

// A positioned read of a file that failed (it shrank after the header was read, an I/O error).
Error readFailed(const std::string& path) { return Error{path + ": cannot read (the file changed or a read failed)"}; }

// The tensors a header lists (those `keep` accepts), their bytes supplied by `loadBytes`
// (entry, destination) -> false on a read failure, reported as an Error with no message so the
// caller can say how its source failed.
template <class LoadBytes>
Expected<SafetensorsFile> collectTensors(ParsedHeader& header, const TensorFilter& keep,
                                         std::string_view sourceName, LoadBytes loadBytes)
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

Expected<SafetensorsFile> parseSafetensors(std::span<const std::byte> bytes,
                                           std::string_view sourceName, const TensorFilter& keep)
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
            if (*entry.dtype == TensorDtype::F32) {  // little-endian host (static_assert above)
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

Status writeSafetensors(const std::string& path, const SafetensorsFile& file)
{
    std::vector<const Tensor*> sorted;
    for (const Tensor& tensor : file.tensors) sorted.push_back(&tensor);
    std::sort(sorted.begin(), sorted.end(),
              [](const Tensor* a, const Tensor* b) { return a->name < b->name; });

    Json header = Json::object();
    std::uint64_t offset = 0;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        const Tensor& tensor = *sorted[i];
        if (tensor.name == kMetadataKey)
            return Error{"cannot write '" + path + "': '__metadata__' cannot name a tensor"};
        if (i > 0 && sorted[i - 1]->name == tensor.name)
            return Error{"cannot write '" + path + "': two tensors are named '" + tensor.name + "'"};
        if (!tensor.consistent())
            return Error{"cannot write '" + path + "': tensor '" + tensor.name + "' has " +
                         std::to_string(tensor.data.size()) + " bytes, which does not match its shape"};
        header[tensor.name] = {{"dtype", std::string(tensorDtypeName(tensor.dtype))},
                               {"shape", tensor.shape},
                               {"data_offsets", {offset, offset + tensor.data.size()}}};
        offset += tensor.data.size();
    }
    if (!file.metadata.empty()) header[kMetadataKey] = file.metadata;

    std::string text;
    try {
        text = header.dump();
    } catch (const Json::exception&) {  // invalid UTF-8 in a name
        return Error{"cannot write '" + path + "': a tensor name or metadata entry is not valid "
                     "UTF-8"};
    }
    // Pad with spaces so that the data buffer starts 8-byte aligned.
    text.append((8 - text.size() % 8) % 8, ' ');

    std::byte length[8];
    for (int i = 0; i < 8; ++i)
        length[i] = static_cast<std::byte>((static_cast<std::uint64_t>(text.size()) >> (8 * i)) & 0xff);

    AtomicFile out;
    if (Status opened = out.open(path); !opened) return opened;
    out.write(length, 8);
    out.write(text);
    for (const Tensor* tensor : sorted) out.write(tensor->data.data(), tensor->data.size());
    return out.commit();
}

}  // namespace qkv
