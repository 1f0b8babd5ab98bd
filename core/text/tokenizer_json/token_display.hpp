#pragma once
// How a token is shown to a reader, from tokenizer.json's "decoder" (what the library does to
// turn tokens back into text): ByteLevel pieces are GPT-2 byte symbols ("Ġcat" shows "·cat"),
// Metaspace and Replace("▁" -> " ") make "▁cat" show "·cat", ByteFallback reads "<0xE6>"
// pieces as bytes, so that the byte tokens of one character show that character ("日 1/3",
// "日 2/3", "日 3/3"). WordPiece, BPEDecoder, Fuse, Strip and CTC leave a piece as it is; any
// other decoder type is refused by name.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/common/expected.hpp"

namespace qkv::tokenizer_json {

struct TokenDisplay {
    bool byteSymbols = false;   // ByteLevel
    std::string spaceMark;      // "▁" (Metaspace, or Replace "▁" -> " "); empty: none
    bool byteFallback = false;  // ByteFallback

    // One piece alone (a prediction's name): spaces as "·", newlines as "↵", tabs as "→".
    std::string show(std::string_view piece) const;
    // The piece's own text, for text put back together (the decoder's): byte symbols as their
    // bytes, the space mark as a space, a fallback byte "<0xXX>" as that byte.
    std::string text(std::string_view piece) const;
    // A sentence's pieces: as show(), and runs of "<0xXX>" pieces read as UTF-8 together.
    std::vector<std::string> showAll(const std::vector<std::string_view>& pieces) const;
};

Expected<TokenDisplay> parseDecoder(const nlohmann::json& spec);

}  // namespace qkv::tokenizer_json
