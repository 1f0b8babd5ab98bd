#pragma once
// Text as a tokenizer.json pipeline sees it: characters, each with the bytes of the typed text
// it came from. Normalizers replace characters (NFC, lower case, "▁" for " "), pre-tokenizers
// cut the text into pieces and ByteLevel turns characters into byte symbols; every character
// keeps its span, so each token of the model still points at what the user typed (Hugging Face
// tokenizers' NormalizedString keeps the same alignment).

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.hpp"
#include "core/text/utf8.hpp"

namespace qkv::tokenizer_json {

using SpannedText = std::vector<utf8::SpannedChar>;

// The text's characters written as UTF-8. With `charAtByte`, also the character each byte
// belongs to (one entry per byte, plus one past the end giving text.size()).
std::string toUtf8(const SpannedText& text, std::vector<std::size_t>* charAtByte = nullptr);

// The characters of `utf8Text` (a string of the file: a replacement, a prepended "▁"), each
// spanning [begin, end) of the typed text.
SpannedText charsSpanning(std::string_view utf8Text, std::size_t begin, std::size_t end);

// Where the text at character `at` comes from when a character is inserted there: the span of
// the character it precedes (or an empty span after the last one).
void insertSpanned(SpannedText& text, std::size_t at, std::string_view utf8Text);

// A match of a pattern: characters [begin, end).
struct Match {
    std::size_t begin = 0;
    std::size_t end = 0;
};

// A Split or Replace pattern of the file: {"String": "..."} (matched literally) or
// {"Regex": "..."} (PCRE2 with Unicode properties, the syntax the files use: \p{L}, (?i:...),
// look-ahead). Matching is bounded: a regex that needs more than a fixed number of steps on a
// text fails with a message instead of running for minutes. Copies share the compiled regex.
class Pattern {
public:
    static Pattern literal(std::string text);
    // Fails with PCRE2's message and the offset when the regex does not compile.
    static Expected<Pattern> regex(const std::string& expression);

    // The non-overlapping matches, leftmost first; empty matches are skipped.
    Expected<std::vector<Match>> find(const SpannedText& text) const;
    // "\" \"", "regex '\\s+'" or, when longer than 24 characters, "a regex": for descriptions.
    std::string describe() const;

private:
    struct Compiled;
    std::string literal_;
    std::shared_ptr<const Compiled> regex_;
    std::string expression_;
};

}  // namespace qkv::tokenizer_json
