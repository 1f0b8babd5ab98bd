#include "core/io/safetensors_header.hpp"

#include <algorithm>
#include <limits>
#include <new>
#include <set>

#include <nlohmann/json.hpp>

#include "core/io/json_depth.hpp"

namespace qkv::safetensors_detail {

namespace {

using Json = nlohmann::json;

// A valid header nests three levels ({ name: { shape: [ ] } }); anything much deeper is not a
// safetensors header, and refusing it before parsing keeps the JSON library's stack bounded.
constexpr int kMaxJsonDepth = 16;

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
        return Error{prefixed(sourceName,
                              "the header is not a safetensors header (its JSON nests "
                              "more than " +
                                  std::to_string(kMaxJsonDepth) + " levels deep)")};
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
        if (!duplicate.empty()) return Error{prefixed(sourceName, "the header names '" + duplicate + "' twice")};
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

std::string bytesForHeader(std::uint64_t headerLength, std::uint64_t fileSize)
{
    return "the header length says " + std::to_string(headerLength) + " bytes but the file has only " +
           std::to_string(fileSize >= 8 ? fileSize - 8 : 0) +
           " bytes after the 8-byte length (the file is truncated or not a safetensors file)";
}

}  // namespace

std::string prefixed(std::string_view sourceName, const std::string& what)
{
    return std::string(sourceName) + ": " + what;
}

std::uint64_t readU64(const std::byte* p)
{
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value |= static_cast<std::uint64_t>(std::to_integer<unsigned>(p[i])) << (8 * i);
    return value;
}

void writeU64(std::uint64_t value, std::byte* p)
{
    for (int i = 0; i < 8; ++i) p[i] = static_cast<std::byte>((value >> (8 * i)) & 0xff);
}

std::optional<std::string> sizeProblem(std::uint64_t size)
{
    if (size == 0) return "is empty";
    if (size < 8)
        return "is too short: " + std::to_string(size) + (size == 1 ? " byte" : " bytes") +
               ", a safetensors file needs at least 8";
    return std::nullopt;
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

namespace {

// "__metadata__": an object of strings.
Status readMetadata(const Json& entry, std::string_view sourceName, std::map<std::string, std::string>& metadata)
{
    if (!entry.is_object())
        return Error{prefixed(sourceName, "'__metadata__' is " + jsonTypeWords(entry) + ", not an object of strings")};
    for (const auto& [key, value] : entry.items()) {
        if (!value.is_string())
            return Error{prefixed(sourceName,
                                  "'__metadata__' entry '" + key + "' is " + jsonTypeWords(value) + ", not a string")};
        metadata[key] = value.get<std::string>();
    }
    return {};
}

// The entry's "shape" into `out.shape`, and prod(shape) into `count`; refuses a product of
// `itemSize`-byte values that overflows 64 bits, and dimensions beyond what Eigen can index.
Status readShape(const Json& shape, const std::string& where, std::uint64_t itemSize, std::string_view sourceName,
                 HeaderEntry& out, std::uint64_t& count)
{
    if (!shape.is_array())
        return Error{prefixed(sourceName, where + ": 'shape' is " + jsonTypeWords(shape) + ", not a list")};
    count = 1;
    bool overflow = false;
    for (const Json& dim : shape) {
        if (!dim.is_number_unsigned())
            return Error{prefixed(sourceName, where + ": 'shape' must hold non-negative integers")};
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
    return {};
}

// The entry's "data_offsets" into out.begin and out.end: in order and inside the data buffer.
Status readOffsets(const Json& offsets, const std::string& where, std::uint64_t dataSize, std::string_view sourceName,
                   HeaderEntry& out)
{
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned())
        return Error{prefixed(sourceName, where + ": 'data_offsets' must be a list of two non-negative integers "
                                                  "[begin, end]")};
    out.begin = offsets[0].get<std::uint64_t>();
    out.end = offsets[1].get<std::uint64_t>();
    const std::string span = std::to_string(out.begin) + ", " + std::to_string(out.end);
    if (out.begin > out.end)
        return Error{prefixed(sourceName, where + ": 'data_offsets' [" + span + "] end before they begin")};
    if (out.end > dataSize)
        return Error{prefixed(sourceName, where + " lies at bytes [" + span + ") but the data buffer has only " +
                                              std::to_string(dataSize) + " bytes (the file is truncated or corrupt)")};
    return {};
}

// One tensor's entry {dtype, shape, data_offsets}, checked against a data buffer of `dataSize`.
Expected<HeaderEntry> readEntry(const std::string& name, const Json& entry, std::uint64_t dataSize,
                                std::string_view sourceName)
{
    const std::string where = "tensor '" + name + "'";
    if (!entry.is_object())
        return Error{prefixed(sourceName, where + " is described by " + jsonTypeWords(entry) + ", not an object")};
    for (const auto& item : entry.items())
        if (item.key() != "dtype" && item.key() != "shape" && item.key() != "data_offsets")
            return Error{prefixed(sourceName, where + " has an unknown field '" + item.key() + "'")};
    for (const char* key : {"dtype", "shape", "data_offsets"})
        if (!entry.contains(key)) return Error{prefixed(sourceName, where + " has no '" + key + "'")};

    HeaderEntry out;
    out.name = name;
    const Json& dtype = entry["dtype"];
    if (!dtype.is_string())
        return Error{prefixed(sourceName, where + ": 'dtype' is " + jsonTypeWords(dtype) + ", not a string")};
    out.dtypeName = dtype.get<std::string>();
    out.dtype = parseName(kTensorDtypeNames, out.dtypeName);
    // A dtype this reader cannot decode is fine for a tensor nobody asks for (refused by the
    // reader when kept); an unknown byte size only skips the size check below.
    const std::uint64_t itemSize = out.dtype ? tensorDtypeSize(*out.dtype) : otherDtypeSize(out.dtypeName);
    std::uint64_t count = 0;
    if (Status shape = readShape(entry["shape"], where, itemSize, sourceName, out, count); !shape)
        return Error{shape.error()};
    const std::uint64_t bytes = count * itemSize;
    if (Status offsets = readOffsets(entry["data_offsets"], where, dataSize, sourceName, out); !offsets)
        return Error{offsets.error()};
    if (itemSize != 0 && out.end - out.begin != bytes)
        return Error{prefixed(sourceName, where + " has " + std::to_string(count) + " " + out.dtypeName + " values (" +
                                              std::to_string(bytes) + " bytes) but its 'data_offsets' span " +
                                              std::to_string(out.end - out.begin) + " bytes")};
    return out;
}

// The tensors must tile the data buffer: no overlap, no gap, nothing after the last.
Status checkTiling(const std::vector<HeaderEntry>& entries, std::uint64_t dataSize, std::string_view sourceName)
{
    std::vector<const HeaderEntry*> byOffset;
    byOffset.reserve(entries.size());
    for (const HeaderEntry& entry : entries) byOffset.push_back(&entry);
    std::sort(byOffset.begin(), byOffset.end(), [](const HeaderEntry* a, const HeaderEntry* b) {
        return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
    });
    std::uint64_t covered = 0;
    const HeaderEntry* previous = nullptr;
    for (const HeaderEntry* entry : byOffset) {
        if (entry->begin < covered)
            return Error{prefixed(
                sourceName, "tensors '" + previous->name + "' and '" + entry->name + "' overlap in the data buffer")};
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
    return {};
}

}  // namespace

Expected<ParsedHeader> parseHeader(std::string_view text, std::uint64_t dataSize, std::string_view sourceName)
{
    auto parsed = parseJson(text, sourceName);
    if (!parsed) return Error{parsed.error()};
    const Json& root = *parsed;
    if (!root.is_object())
        return Error{prefixed(sourceName, "the header is " + jsonTypeWords(root) + ", not a JSON object of tensors")};

    ParsedHeader header;
    for (const auto& [name, entry] : root.items()) {
        if (name == kMetadataKey) {
            if (Status metadata = readMetadata(entry, sourceName, header.metadata); !metadata)
                return Error{metadata.error()};
            continue;
        }
        Expected<HeaderEntry> tensor = readEntry(name, entry, dataSize, sourceName);
        if (!tensor) return Error{tensor.error()};
        header.entries.push_back(std::move(*tensor));
    }
    if (Status tiling = checkTiling(header.entries, dataSize, sourceName); !tiling) return Error{tiling.error()};
    // root.items() walks std::map order, so entries are already sorted by name.
    return header;
}

}  // namespace qkv::safetensors_detail
