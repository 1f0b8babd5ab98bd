#include "core/text/tokenizer_json/token_display.hpp"

#include "core/text/byte_level_bpe_tokenizer.hpp"
#include "core/text/tokenizer_json/json_fields.hpp"
#include "core/text/tokenizer_json/vocabulary_models.hpp"
#include "core/text/utf8.hpp"

namespace qkv::tokenizer_json {

namespace {

Status readDecoder(const Json& spec, TokenDisplay& display)
{
    if (spec.is_null()) return {};
    Expected<std::string> type = componentType(spec, "the decoder");
    if (!type) return Error{type.error()};
    const std::string what = "decoder " + *type;
    if (*type == "ByteLevel") display.byteSymbols = true;
    else if (*type == "Metaspace") {
        Expected<std::string> mark = stringField(spec, "replacement", what, std::string("\u2581"));
        if (!mark) return Error{mark.error()};
        display.spaceMark = *mark;
    } else if (*type == "Replace") {
        // Only what SentencePiece-style files write: a literal mark turned back into a space.
        const auto pattern = spec.find("pattern");
        const auto content = spec.find("content");
        if (pattern == spec.end() || !pattern->is_object() || !pattern->contains("String") || !(*pattern)["String"].is_string() ||
            content == spec.end() || !content->is_string() || content->get<std::string>() != " ")
            return Error{"decoder Replace other than a string into \" \" is not supported"};
        display.spaceMark = (*pattern)["String"].get<std::string>();
    } else if (*type == "ByteFallback") display.byteFallback = true;
    else if (*type == "Sequence") {
        Expected<const Json*> list = arrayField(spec, "decoders", what);
        if (!list) return Error{list.error()};
        for (const Json& item : **list)
            if (Status s = readDecoder(item, display); !s) return s;
    } else if (*type != "WordPiece" && *type != "BPEDecoder" && *type != "Fuse" && *type != "Strip" && *type != "CTC")
        return Error{"decoder " + *type + " is not supported"};
    return {};
}

}  // namespace

std::string TokenDisplay::show(std::string_view piece) const
{
    if (byteSymbols) return displayPiece(piece);
    std::string text(piece);
    if (!spaceMark.empty())
        for (std::size_t at = text.find(spaceMark); at != std::string::npos; at = text.find(spaceMark, at + 1))
            text.replace(at, spaceMark.size(), " ");
    if (byteFallback)
        if (const std::optional<std::uint8_t> byte = byteFallbackByte(piece); byte && *byte < 0x80)
            text = std::string(1, static_cast<char>(*byte));
    return visibleText(text);
}

std::string TokenDisplay::text(std::string_view piece) const
{
    if (byteSymbols) return pieceBytes(piece);
    if (byteFallback)
        if (const std::optional<std::uint8_t> byte = byteFallbackByte(piece)) return std::string(1, static_cast<char>(*byte));
    std::string out(piece);
    if (!spaceMark.empty())
        for (std::size_t at = out.find(spaceMark); at != std::string::npos; at = out.find(spaceMark, at + 1))
            out.replace(at, spaceMark.size(), " ");
    return out;
}

std::vector<std::string> TokenDisplay::showAll(const std::vector<std::string_view>& pieces) const
{
    std::vector<std::string> out;
    out.reserve(pieces.size());
    for (const std::string_view piece : pieces) out.push_back(show(piece));
    if (!byteFallback) return out;
    // Runs of byte pieces: each complete UTF-8 character names its pieces "日 1/3", "日 2/3", ...
    for (std::size_t i = 0; i < pieces.size();) {
        std::string bytes;
        std::size_t end = i;
        while (end < pieces.size() && byteFallbackByte(pieces[end])) bytes += static_cast<char>(*byteFallbackByte(pieces[end++]));
        if (end == i) {
            ++i;
            continue;
        }
        for (std::size_t at = 0; at < bytes.size();) {
            const utf8::Decoded d = utf8::decodeAt(bytes, at);
            if (d.valid && d.bytes > 1) {
                const std::string character = visibleText(std::string_view(bytes).substr(at, d.bytes));
                for (std::size_t k = 0; k < d.bytes; ++k)
                    out[i + at + k] = character + " " + std::to_string(k + 1) + "/" + std::to_string(d.bytes);
            }
            at += d.bytes;
        }
        i = end;
    }
    return out;
}

Expected<TokenDisplay> parseDecoder(const nlohmann::json& spec)
{
    TokenDisplay display;
    if (Status s = readDecoder(spec, display); !s) return Error{s.error()};
    return display;
}

}  // namespace qkv::tokenizer_json
