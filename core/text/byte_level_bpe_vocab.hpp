#pragma once
// GPT-2's tokenizer files: vocab.json ({"token": id, ...}) and merges.txt (an optional
// "#version: ..." first line, then one merge "left right" per line, earlier lines first).
//
// Byte-level BPE (Radford et al. 2019, section 2.2; Sennrich et al. 2016): text is UTF-8 bytes,
// each byte written as one printable character (bytesToUnicode), and merges join adjacent
// symbols, the pair with the lowest merge rank first.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/expected.hpp"
#include "core/text/vocabulary_files.hpp"

namespace qkv {

// GPT-2's bytes_to_unicode: the printable bytes ! to ~, ¡ to ¬ and ® to ÿ stand for themselves;
// the other 68 bytes, in increasing order, become U+0100, U+0101, ... (so a space, 0x20, is
// U+0120 "Ġ" and a newline, 0x0A, is U+010A "Ċ").
char32_t byteToSymbol(std::uint8_t byte);
// The inverse: the byte a symbol character stands for, if it stands for one.
std::optional<std::uint8_t> symbolToByte(char32_t symbol);

struct ByteLevelBpe {
    TokenIdMap ids;               // token -> id, as vocab.json lists them
    std::size_t idCount = 0;      // the largest id + 1 (rows an embedding table needs)

    // Merges over interned symbols: every byte symbol and every string a usable merge names.
    struct Merge {
        std::int32_t rank;    // the merge's line among the merges (0 = first), lower merges first
        std::int32_t result;  // symbol index of left + right
    };
    std::vector<std::string> symbols;           // symbol index -> text ("Ġ", "Ġc", "Ġcat")
    std::vector<std::int32_t> symbolTokenIds;   // symbol index -> token id, or -1
    std::array<std::int32_t, 256> byteSymbols{};  // byte -> symbol index
    std::unordered_map<std::uint64_t, Merge> merges;  // (left << 32 | right) -> merge
    std::size_t mergeLines = 0;      // merges listed in merges.txt
    std::size_t unusableMerges = 0;  // merges whose result is not in vocab.json (never applied)

    std::optional<std::int32_t> id(std::string_view token) const;
    // "<|endoftext|>" when vocab.json has it: typed in the text, it stays whole.
    std::vector<std::string> specialTokens() const;
};

// Parses both files from memory. Refuses (the message starts with the file's name): malformed
// JSON (with the position), anything but one flat object of "token": whole-number pairs, a
// negative id or one >= limits::maxVocabularyEntries, two tokens with the same id, a token
// missing for one of the 256 byte symbols, an empty file, a merges line that is not two symbols
// separated by one space, over-long or non-UTF-8 lines, too many entries. As in Hugging Face, a
// merge may name symbols vocab.json lacks; a merge whose result vocab.json lacks is kept out
// (the fast tokenizer refuses such files; the Python one would emit tokens without an id) and
// counted in unusableMerges. When a pair is listed twice, the later line's rank holds (as
// Python's dict(zip(merges, range(...))) does).
Expected<ByteLevelBpe> parseByteLevelBpe(std::string_view vocabJson, std::string_view mergesText,
                                         std::string_view vocabName, std::string_view mergesName);

// Reads both files (regular files of at most limits::maxTokenizerFileBytes) and parses them.
Expected<ByteLevelBpe> loadByteLevelBpe(const std::string& vocabPath, const std::string& mergesPath);

}  // namespace qkv
