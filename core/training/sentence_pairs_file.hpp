#pragma once
// The user's own sentence pairs: a UTF-8 text file with one pair per line, the source sentence,
// a TAB, the target sentence (further TAB-separated columns, such as the attribution column of
// Tatoeba's exports, are ignored). Blank lines and lines starting with '#' are skipped. Words
// are split on white space and kept exactly as written.
//
// Bad input is an Error naming the file and, where there is one, the line, never a crash or a
// hang: a missing file, a folder or a FIFO (refused before opening, core/io/regular_file.hpp),
// more than 16 MiB, text that is not UTF-8, a line without a TAB, a side without words, more than
// 64 words on a side, more than 100,000 lines.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.hpp"

namespace qkv {

inline constexpr std::size_t maxSentencePairsFileBytes = std::size_t{16} << 20;
inline constexpr std::size_t maxSentencePairsFileLines = 100000;
inline constexpr std::size_t maxSentencePairWords = 64;

struct SentencePairLine {
    std::vector<std::string> source, target;
    std::size_t line = 0;  // 1-based, in the file
};

// Every pair of the file, in file order (duplicates included).
Expected<std::vector<SentencePairLine>> readSentencePairs(const std::filesystem::path& path);
// The same for text already in memory; `name` stands for the file in messages.
Expected<std::vector<SentencePairLine>> parseSentencePairs(std::string_view text, const std::string& name);

// The gold alignment of a pair whose word alignment nobody wrote down: for each target word, the
// position of the same word in the source when the word occurs exactly once on each side, else -1.
std::vector<std::int32_t> sameWordAlignment(const std::vector<std::string>& source,
                                            const std::vector<std::string>& target);

}  // namespace qkv
