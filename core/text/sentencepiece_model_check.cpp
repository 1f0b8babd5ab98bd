#include "core/text/sentencepiece_model_check.hpp"

#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

namespace qkv {

namespace {

// One varint of the protobuf wire format at `at`; false past the end or after 10 bytes.
bool readVarint(std::string_view bytes, std::size_t& at, std::uint64_t& value)
{
    value = 0;
    for (int shift = 0; shift < 64 && at < bytes.size(); shift += 7) {
        const auto byte = static_cast<unsigned char>(bytes[at++]);
        value |= std::uint64_t{byte & 0x7Fu} << shift;
        if ((byte & 0x80u) == 0) return true;
    }
    return false;
}

// Calls `visit` with every occurrence of field `number` of a protobuf message: its varint, or
// for a length-delimited field its bytes. False when the message is malformed (the library
// refuses such a file anyway).
bool forEachField(std::string_view message, std::uint64_t number,
                  const std::function<void(std::uint64_t, std::string_view)>& visit)
{
    std::size_t at = 0;
    while (at < message.size()) {
        std::uint64_t key = 0;
        std::uint64_t value = 0;
        if (!readVarint(message, at, key)) return false;
        switch (key & 7u) {
        case 0:
            if (!readVarint(message, at, value)) return false;
            if ((key >> 3) == number) visit(value, {});
            break;
        case 1: at += 8; break;
        case 5: at += 4; break;
        case 2:
            if (!readVarint(message, at, value) || value > message.size() - at) return false;
            if ((key >> 3) == number) visit(0, message.substr(at, value));
            at += value;
            break;
        default: return false;
        }
        if (at > message.size()) return false;
    }
    return true;
}

// Darts-clone's DoubleArrayUnit, as the library's normalizer reads it.
struct Unit {
    std::uint32_t bits;
    bool hasLeaf() const { return ((bits >> 8) & 1u) == 1u; }
    std::uint32_t value() const { return bits & ((1u << 31) - 1); }
    std::uint32_t label() const { return bits & ((1u << 31) | 0xFFu); }
    std::uint32_t offset() const { return (bits >> 10) << ((bits & (1u << 9)) >> 6); }
};

// The trie's common-prefix search reads units[base ^ c] for every byte c of the text at each
// node it reaches (base = node ^ offset), and at a leaf units[base].value() indexes the strings.
// Walks every reachable node once.
Status checkTrie(const std::vector<Unit>& units, std::string_view strings)
{
    const std::size_t size = units.size();
    std::vector<bool> seen(size, false);
    std::vector<std::uint32_t> pending = {0};
    if (size == 0) return Error{"its normalisation trie is empty"};
    seen[0] = true;
    while (!pending.empty()) {
        const std::uint32_t node = pending.back();
        pending.pop_back();
        const std::uint32_t base = node ^ units[node].offset();
        if ((std::size_t{base} | 0xFFu) >= size) return Error{"its normalisation trie points outside itself"};
        if (node != 0 && units[node].hasLeaf()) {
            const std::uint32_t at = units[base].value();
            if (at >= strings.size() || std::memchr(strings.data() + at, '\0', strings.size() - at) == nullptr)
                return Error{"its normalisation table maps to a string outside the table"};
        }
        for (std::uint32_t c = 0; c < 256; ++c) {
            const std::uint32_t child = base ^ c;
            if (units[child].label() != c || seen[child]) continue;
            seen[child] = true;
            pending.push_back(child);
        }
    }
    return {};
}

// precompiled_charsmap: a little-endian uint32 trie size, the trie's units, then the strings.
Status checkCharsMap(std::string_view blob)
{
    if (blob.empty()) return {};  // no table: the identity
    constexpr std::size_t maxBytes = std::size_t{16} << 20;
    if (blob.size() > maxBytes) return Error{"its normalisation table is larger than 16 MiB"};
    std::uint32_t trieBytes = 0;
    if (blob.size() < sizeof trieBytes) return Error{"its normalisation table is cut short"};
    std::memcpy(&trieBytes, blob.data(), sizeof trieBytes);
    // The library only checks trieBytes < blob size, which lets the trie overrun by 3 bytes.
    if (trieBytes > blob.size() - sizeof trieBytes) return Error{"its normalisation trie is larger than its table"};
    std::vector<Unit> units(trieBytes / sizeof(std::uint32_t));
    for (std::size_t i = 0; i < units.size(); ++i)
        std::memcpy(&units[i].bits, blob.data() + sizeof trieBytes + i * sizeof(std::uint32_t), sizeof(std::uint32_t));
    return checkTrie(units, blob.substr(sizeof trieBytes + trieBytes));
}

}  // namespace

Status checkSentencePieceTables(std::string_view modelProto)
{
    Status result;
    for (const std::uint64_t spec : {3u, 5u}) {  // normalizer_spec, denormalizer_spec
        forEachField(modelProto, spec, [&](std::uint64_t, std::string_view normalizer) {
            forEachField(normalizer, 2, [&](std::uint64_t, std::string_view charsMap) {  // precompiled_charsmap
                if (result) result = checkCharsMap(charsMap);
            });
        });
    }
    return result;
}

std::string sentencePieceModelKind(std::string_view modelProto)
{
    std::uint64_t type = 1;  // UNIGRAM, the default
    forEachField(modelProto, 2, [&](std::uint64_t, std::string_view trainerSpec) {
        forEachField(trainerSpec, 3, [&](std::uint64_t value, std::string_view) { type = value; });
    });
    switch (type) {
    case 2: return "BPE";
    case 3: return "word";
    case 4: return "char";
    default: return "unigram";
    }
}

}  // namespace qkv
