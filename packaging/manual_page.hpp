#pragma once
// The manual page qkv-studio(1), written in roff from the command line's usage texts
// (app/usage_text.hpp), so `man qkv-studio` and `--help` say the same thing.

#include <string>

namespace qkv::packaging {

struct ManualPageFacts {
    std::string version;        // "0.1.0"
    std::string date;           // "2026-11-24"
    std::string dataDirectory;  // where the examples and the lexicon are installed
};

// Where a usage text's parts go in the page.
struct RoffLayout {
    std::string headingMacro;        // ".SH" (a top-level section) or ".SS"
    std::string synopsisHeading;     // a section before the "Usage:" lines ("SYNOPSIS"), or none
    std::string descriptionHeading;  // a section after them ("DESCRIPTION"), or none
};

// One usage text as roff: its "Usage:" lines as a synopsis, paragraphs as paragraphs, option
// lines as tagged paragraphs (.TP: the option in bold, its arguments in italics), "Heading:"
// lines as headings.
std::string usageAsRoff(const std::string& usage, const RoffLayout& layout);

// The whole page: NAME, SYNOPSIS, DESCRIPTION and the sections of the main usage, a section per
// command (export, figure, train) from theirs, then FILES.
std::string manualPage(const ManualPageFacts& facts);

// Text as roff: backslashes and hyphens escaped, non-ASCII characters as \[uXXXX], and a line
// that would start with a control character ('.' or '\'') protected.
std::string roffEscaped(const std::string& text);

}  // namespace qkv::packaging
