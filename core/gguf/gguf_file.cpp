#include "core/gguf/gguf_file.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <new>

#include "core/gguf/gguf_types.hpp"
#include "core/io/regular_file.hpp"

namespace qkv {
namespace {

static_assert(std::endian::native == std::endian::little, "GGUF numbers are read as they are stored");

// Reads a file front to back through a window of positioned reads, so that 300,000 small strings
// of a vocabulary cost a few dozen reads. Every read is checked against the file's size first:
// nothing is read past the end, and a length is known to fit before anything is allocated for it.
class Cursor {
public:
    explicit Cursor(const RegularFileReader& file) : file_(file) {}

    std::uint64_t position() const { return position_; }
    std::uint64_t left() const { return file_.size() - position_; }

    // Copies `count` bytes, or fails naming `what` ("the tensor count") when the file ends first.
    Status read(void* out, std::size_t count, const std::string& what)
    {
        if (count > left())
            return Error{"the file ends inside " + what + " (at byte " + std::to_string(position_) + ")"};
        auto* bytes = static_cast<unsigned char*>(out);
        while (count > 0) {
            if (position_ < windowStart_ || position_ >= windowStart_ + window_.size())
                if (Status filled = fill(); !filled) return filled;
            const std::size_t offset = static_cast<std::size_t>(position_ - windowStart_);
            const std::size_t piece = std::min(count, window_.size() - offset);
            std::memcpy(bytes, window_.data() + offset, piece);
            bytes += piece;
            count -= piece;
            position_ += piece;
        }
        return {};
    }

    template <class T>
    Expected<T> number(const std::string& what)
    {
        T value{};
        if (Status status = read(&value, sizeof(T), what); !status) return Error{status.error()};
        return value;
    }

    Expected<std::string> string(const std::string& what)
    {
        Expected<std::uint64_t> length = number<std::uint64_t>("the length of " + what);
        if (!length) return Error{length.error()};
        if (*length > kGgufMaxStringBytes)
            return Error{what + " claims " + std::to_string(*length) + " bytes, more than the limit of " +
                         std::to_string(kGgufMaxStringBytes)};
        if (*length > left())
            return Error{what + " claims " + std::to_string(*length) + " bytes, past the end of the file"};
        std::string text(static_cast<std::size_t>(*length), '\0');
        if (Status status = read(text.data(), text.size(), what); !status) return Error{status.error()};
        return text;
    }

    void skipTo(std::uint64_t position) { position_ = position; }

private:
    Status fill()
    {
        constexpr std::size_t kWindow = std::size_t{1} << 20;
        windowStart_ = position_;
        window_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(kWindow, left())));
        if (!file_.readAt(windowStart_, window_.data(), window_.size()))
            return Error{"cannot read at byte " + std::to_string(windowStart_) + " (the file shrank?)"};
        return {};
    }

    const RegularFileReader& file_;
    std::uint64_t position_ = 0;
    std::uint64_t windowStart_ = 0;
    std::vector<unsigned char> window_;
};

// Bytes one element of a fixed-width type takes; 0 for strings and arrays.
std::size_t fixedWidth(GgufValueType type)
{
    switch (type) {
    case GgufValueType::UInt8: case GgufValueType::Int8: case GgufValueType::Bool: return 1;
    case GgufValueType::UInt16: case GgufValueType::Int16: return 2;
    case GgufValueType::UInt32: case GgufValueType::Int32: case GgufValueType::Float32: return 4;
    case GgufValueType::UInt64: case GgufValueType::Int64: case GgufValueType::Float64: return 8;
    default: return 0;
    }
}

// One fixed-width scalar into `value` (its type already set).
Status readScalar(Cursor& cursor, GgufValue& value, const std::string& what)
{
    unsigned char bytes[8] = {};
    const std::size_t width = fixedWidth(value.type);
    if (Status status = cursor.read(bytes, width, what); !status) return status;
    auto load = [&](auto sample) {
        decltype(sample) v;
        std::memcpy(&v, bytes, sizeof v);
        return v;
    };
    switch (value.type) {
    case GgufValueType::UInt8: value.unsignedValue = load(std::uint8_t{}); break;
    case GgufValueType::UInt16: value.unsignedValue = load(std::uint16_t{}); break;
    case GgufValueType::UInt32: value.unsignedValue = load(std::uint32_t{}); break;
    case GgufValueType::UInt64: value.unsignedValue = load(std::uint64_t{}); break;
    case GgufValueType::Int8: value.signedValue = load(std::int8_t{}); break;
    case GgufValueType::Int16: value.signedValue = load(std::int16_t{}); break;
    case GgufValueType::Int32: value.signedValue = load(std::int32_t{}); break;
    case GgufValueType::Int64: value.signedValue = load(std::int64_t{}); break;
    case GgufValueType::Float32: value.floatValue = load(float{}); break;
    case GgufValueType::Float64: value.floatValue = load(double{}); break;
    case GgufValueType::Bool:
        if (bytes[0] > 1) return Error{what + " is a bool of value " + std::to_string(bytes[0]) + " (not 0 or 1)"};
        value.unsignedValue = bytes[0];
        break;
    default: break;
    }
    return {};
}

double asNumber(const GgufValue& scalar)
{
    if (scalar.type == GgufValueType::Float32 || scalar.type == GgufValueType::Float64) return scalar.floatValue;
    if (scalar.type == GgufValueType::Int8 || scalar.type == GgufValueType::Int16 ||
        scalar.type == GgufValueType::Int32 || scalar.type == GgufValueType::Int64)
        return static_cast<double>(scalar.signedValue);
    return static_cast<double>(scalar.unsignedValue);
}

Status readArray(Cursor& cursor, GgufValue& value, const std::string& what)
{
    Expected<std::uint32_t> elementType = cursor.number<std::uint32_t>("the element type of " + what);
    if (!elementType) return Error{elementType.error()};
    if (*elementType > static_cast<std::uint32_t>(GgufValueType::Float64))
        return Error{what + " is an array of unknown element type " + std::to_string(*elementType)};
    value.elementType = static_cast<GgufValueType>(*elementType);
    if (value.elementType == GgufValueType::Array)
        return Error{what + " is an array of arrays, which no key this program reads uses"};
    Expected<std::uint64_t> count = cursor.number<std::uint64_t>("the length of " + what);
    if (!count) return Error{count.error()};
    // Each element takes at least its width (a string at least its 8-byte length): a count the
    // rest of the file cannot hold is refused before anything is reserved for it.
    const std::size_t minimum = value.elementType == GgufValueType::String ? 8 : fixedWidth(value.elementType);
    if (*count > kGgufMaxArrayCount)
        return Error{what + " claims " + std::to_string(*count) + " elements, more than the limit of " +
                     std::to_string(kGgufMaxArrayCount)};
    if (*count > cursor.left() / minimum)
        return Error{what + " claims " + std::to_string(*count) + " elements, past the end of the file"};
    if (value.elementType == GgufValueType::String) {
        value.strings.reserve(static_cast<std::size_t>(*count));
        for (std::uint64_t i = 0; i < *count; ++i) {
            Expected<std::string> text = cursor.string("element " + std::to_string(i) + " of " + what);
            if (!text) return Error{text.error()};
            value.strings.push_back(std::move(*text));
        }
        return {};
    }
    value.numbers.reserve(static_cast<std::size_t>(*count));
    GgufValue element;
    element.type = value.elementType;
    for (std::uint64_t i = 0; i < *count; ++i) {
        if (Status status = readScalar(cursor, element, "element " + std::to_string(i) + " of " + what); !status)
            return status;
        value.numbers.push_back(asNumber(element));
    }
    return {};
}

Status readMetadata(Cursor& cursor, std::uint64_t count, GgufFile& file)
{
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::string where = "metadata entry " + std::to_string(i);
        Expected<std::string> key = cursor.string("the key of " + where);
        if (!key) return Error{key.error()};
        const std::string what = "metadata '" + *key + "'";
        Expected<std::uint32_t> type = cursor.number<std::uint32_t>("the value type of " + what);
        if (!type) return Error{type.error()};
        if (*type > static_cast<std::uint32_t>(GgufValueType::Float64))
            return Error{what + " has unknown value type " + std::to_string(*type)};
        GgufValue value;
        value.type = static_cast<GgufValueType>(*type);
        Status status;
        if (value.type == GgufValueType::String) {
            Expected<std::string> text = cursor.string(what);
            if (!text) return Error{text.error()};
            value.text = std::move(*text);
        } else if (value.type == GgufValueType::Array) {
            status = readArray(cursor, value, what);
        } else {
            status = readScalar(cursor, value, what);
        }
        if (!status) return status;
        if (!file.metadata.emplace(*key, std::move(value)).second) return Error{what + " appears twice"};
    }
    return {};
}

// prod(dims), or nullopt on overflow.
std::optional<std::uint64_t> product(const std::vector<std::uint64_t>& dims)
{
    std::uint64_t count = 1;
    for (std::uint64_t dim : dims) {
        if (dim != 0 && count > std::numeric_limits<std::uint64_t>::max() / dim) return std::nullopt;
        count *= dim;
    }
    return count;
}

std::string dimsText(const std::vector<std::uint64_t>& dims)
{
    std::string text;
    for (std::uint64_t dim : dims) text += (text.empty() ? "" : " x ") + std::to_string(dim);
    return text.empty() ? "a single number" : text;
}

Expected<GgufTensorInfo> readTensorInfo(Cursor& cursor, std::uint64_t index)
{
    GgufTensorInfo info;
    Expected<std::string> name = cursor.string("the name of tensor " + std::to_string(index));
    if (!name) return Error{name.error()};
    info.name = std::move(*name);
    const std::string what = "tensor '" + info.name + "'";
    Expected<std::uint32_t> dimCount = cursor.number<std::uint32_t>("the dimension count of " + what);
    if (!dimCount) return Error{dimCount.error()};
    if (*dimCount > kGgufMaxDims)
        return Error{what + " has " + std::to_string(*dimCount) + " dimensions (at most " + std::to_string(kGgufMaxDims) + ")"};
    for (std::uint32_t d = 0; d < *dimCount; ++d) {
        Expected<std::uint64_t> dim = cursor.number<std::uint64_t>("the shape of " + what);
        if (!dim) return Error{dim.error()};
        info.dims.push_back(*dim);
    }
    Expected<std::uint32_t> type = cursor.number<std::uint32_t>("the type of " + what);
    if (!type) return Error{type.error()};
    info.type = *type;
    Expected<std::uint64_t> offset = cursor.number<std::uint64_t>("the offset of " + what);
    if (!offset) return Error{offset.error()};
    info.offset = *offset;  // relative until the data start is known

    const std::optional<GgmlTypeLayout> layout = ggmlTypeLayout(info.type);
    if (!layout) return Error{what + " has " + ggmlTypeName(info.type) + ", which this program cannot decode"};
    const std::optional<std::uint64_t> count = product(info.dims);
    if (!count) return Error{what + " has a shape (" + dimsText(info.dims) + ") whose product overflows"};
    info.valueCount = *count;
    if (info.rowLength() % layout->blockValues != 0)
        return Error{what + " (" + ggmlTypeName(info.type) + ") has rows of " + std::to_string(info.rowLength()) +
                     " values, not a whole number of blocks of " + std::to_string(layout->blockValues)};
    const std::uint64_t blocks = info.valueCount / layout->blockValues;
    if (blocks > std::numeric_limits<std::uint64_t>::max() / layout->blockBytes)
        return Error{what + " has a shape (" + dimsText(info.dims) + ") whose size overflows"};
    info.byteCount = blocks * layout->blockBytes;
    return info;
}

Status readAlignment(GgufFile& file)
{
    const GgufValue* value = file.find("general.alignment");
    if (!value) return {};
    const std::optional<std::int64_t> alignment = value->integer();
    if (value->type != GgufValueType::UInt32 || !alignment || *alignment <= 0 || (*alignment & (*alignment - 1)) != 0 ||
        *alignment > (std::int64_t{1} << 20))
        return Error{"metadata 'general.alignment' must be a uint32 power of two (at most 1 MiB)"};
    file.alignment = static_cast<std::uint64_t>(*alignment);
    return {};
}

// Places every tensor in the data section: aligned, inside the file, not overlapping another.
Status placeTensors(GgufFile& file)
{
    std::vector<std::pair<std::uint64_t, std::size_t>> byStart;
    for (std::size_t i = 0; i < file.tensors.size(); ++i) {
        GgufTensorInfo& info = file.tensors[i];
        const std::string what = "tensor '" + info.name + "'";
        if (info.offset % file.alignment != 0)
            return Error{what + " starts at data offset " + std::to_string(info.offset) + ", not a multiple of the alignment " +
                         std::to_string(file.alignment)};
        if (info.offset > file.fileSize - file.dataOffset || info.byteCount > file.fileSize - file.dataOffset - info.offset)
            return Error{what + " (" + std::to_string(info.byteCount) + " bytes at data offset " + std::to_string(info.offset) +
                         ") reaches past the end of the file"};
        info.offset += file.dataOffset;
        byStart.emplace_back(info.offset, i);
    }
    std::sort(byStart.begin(), byStart.end());
    for (std::size_t k = 1; k < byStart.size(); ++k) {
        const GgufTensorInfo& before = file.tensors[byStart[k - 1].second];
        const GgufTensorInfo& after = file.tensors[byStart[k].second];
        if (before.offset + before.byteCount > after.offset)
            return Error{"tensors '" + before.name + "' and '" + after.name + "' overlap"};
    }
    return {};
}

Status readHeader(Cursor& cursor, GgufFile& file)
{
    char magic[4];
    if (Status status = cursor.read(magic, 4, "the magic"); !status) return Error{"is not a GGUF file (" + status.error() + ")"};
    if (std::memcmp(magic, "GGUF", 4) != 0) return Error{"is not a GGUF file (its first bytes are not \"GGUF\")"};
    Expected<std::uint32_t> version = cursor.number<std::uint32_t>("the version");
    if (!version) return Error{version.error()};
    if (*version != 2 && *version != 3)
        return Error{"is GGUF version " + std::to_string(*version) + "; versions 2 and 3 are read"};
    file.version = *version;
    Expected<std::uint64_t> tensorCount = cursor.number<std::uint64_t>("the tensor count");
    if (!tensorCount) return Error{tensorCount.error()};
    Expected<std::uint64_t> metadataCount = cursor.number<std::uint64_t>("the metadata count");
    if (!metadataCount) return Error{metadataCount.error()};
    // A metadata entry takes at least 8 + 4 + 1 bytes, a tensor info 8 + 4 + 4 + 8.
    if (*metadataCount > kGgufMaxMetadataCount || *metadataCount > cursor.left() / 13)
        return Error{"claims " + std::to_string(*metadataCount) + " metadata entries, more than the file can hold"};
    if (*tensorCount > kGgufMaxTensorCount || *tensorCount > cursor.left() / 24)
        return Error{"claims " + std::to_string(*tensorCount) + " tensors, more than the file can hold"};
    if (Status status = readMetadata(cursor, *metadataCount, file); !status) return status;
    if (Status status = readAlignment(file); !status) return status;
    file.tensors.reserve(static_cast<std::size_t>(*tensorCount));
    for (std::uint64_t i = 0; i < *tensorCount; ++i) {
        Expected<GgufTensorInfo> info = readTensorInfo(cursor, i);
        if (!info) return Error{info.error()};
        if (!file.tensorIndex.emplace(info->name, file.tensors.size()).second)
            return Error{"tensor '" + info->name + "' appears twice"};
        file.tensors.push_back(std::move(*info));
    }
    const std::uint64_t end = cursor.position();
    file.dataOffset = end + (file.alignment - end % file.alignment) % file.alignment;
    if (file.dataOffset > file.fileSize && !file.tensors.empty())
        return Error{"the file ends before its data section (at byte " + std::to_string(file.dataOffset) + ")"};
    if (file.dataOffset > file.fileSize) file.dataOffset = file.fileSize;
    return placeTensors(file);
}

}  // namespace

std::optional<std::int64_t> GgufValue::integer() const
{
    switch (type) {
    case GgufValueType::UInt8: case GgufValueType::UInt16: case GgufValueType::UInt32: case GgufValueType::UInt64:
    case GgufValueType::Bool:
        if (unsignedValue > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
        return static_cast<std::int64_t>(unsignedValue);
    case GgufValueType::Int8: case GgufValueType::Int16: case GgufValueType::Int32: case GgufValueType::Int64:
        return signedValue;
    default: return std::nullopt;
    }
}

std::optional<double> GgufValue::number() const
{
    if (type == GgufValueType::String || type == GgufValueType::Array) return std::nullopt;
    return asNumber(*this);
}

const GgufValue* GgufFile::find(const std::string& key) const
{
    auto it = metadata.find(key);
    return it == metadata.end() ? nullptr : &it->second;
}

const GgufTensorInfo* GgufFile::findTensor(const std::string& name) const
{
    auto it = tensorIndex.find(name);
    return it == tensorIndex.end() ? nullptr : &tensors[it->second];
}

std::string ggufValueTypeName(GgufValueType type)
{
    static const char* const kNames[] = {"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
                                         "bool", "string", "array", "uint64", "int64", "float64"};
    const auto index = static_cast<std::uint32_t>(type);
    return index < std::size(kNames) ? kNames[index] : "unknown";
}

Expected<GgufFile> readGgufFile(const std::string& path)
{
    Expected<RegularFileReader> reader = RegularFileReader::open(path);
    if (!reader) return Error{reader.error()};
    GgufFile file;
    file.path = path;
    file.fileSize = reader->size();
    Cursor cursor(*reader);
    try {
        if (Status status = readHeader(cursor, file); !status) return Error{path + ": " + status.error()};
    } catch (const std::bad_alloc&) {
        return Error{path + ": not enough memory for its metadata"};
    }
    return file;
}

}  // namespace qkv

namespace qkv {

bool hasGgufMagic(const std::string& path)
{
    Expected<RegularFileReader> reader = RegularFileReader::open(path);
    char magic[4];
    return reader && reader->size() >= 4 && reader->readAt(0, magic, 4) && std::memcmp(magic, "GGUF", 4) == 0;
}

}  // namespace qkv
