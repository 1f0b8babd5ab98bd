#include "packaging/manual_page.hpp"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string_view>
#include <vector>

#include "app/usage_text.hpp"

namespace qkv::packaging {
namespace {

// Usage texts put an option's description at this column and continue it there.
constexpr std::size_t kDescriptionColumn = 29;
constexpr std::string_view kUsage = "Usage: ";
constexpr std::string_view kUsageContinuation = "       ";

std::vector<std::string> linesOf(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) lines.push_back(line);
    return lines;
}

std::size_t indentOf(const std::string& line)
{
    const std::size_t first = line.find_first_not_of(' ');
    return first == std::string::npos ? line.size() : first;
}

bool isOption(const std::string& line) { return indentOf(line) == 2 && line.size() > 2; }

bool isContinuation(const std::string& line) { return indentOf(line) == kDescriptionColumn && line.size() > kDescriptionColumn; }

bool isHeading(const std::string& line)
{
    return !line.empty() && std::isupper(static_cast<unsigned char>(line[0])) && line.back() == ':' &&
           line.find(": ") == std::string::npos && line.size() < 40;
}

std::string trimmed(const std::string& text)
{
    const std::size_t first = text.find_first_not_of(' ');
    if (first == std::string::npos) return {};
    return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

std::vector<std::string> wordsOf(const std::string& text)
{
    std::vector<std::string> words;
    std::istringstream stream(text);
    for (std::string word; stream >> word;) words.push_back(word);
    return words;
}

// "--mode self|causal|cross": the option (and any further option) in bold, arguments in italics.
std::string optionTerm(const std::string& term)
{
    std::string roff;
    const std::vector<std::string> words = wordsOf(term);
    for (std::size_t i = 0; i < words.size(); ++i) {
        const bool bold = i == 0 || words[i].front() == '-';
        roff += (i ? " " : "") + std::string(bold ? "\\fB" : "\\fI") + roffEscaped(words[i]) + "\\fR";
    }
    return roff;
}

// "qkv-studio export [options] --out PATH": the program, its command and the options in bold.
std::string synopsisLine(const std::string& line)
{
    std::string roff;
    const std::vector<std::string> words = wordsOf(line);
    for (std::size_t i = 0; i < words.size(); ++i) {
        const bool command = i == 1 && std::islower(static_cast<unsigned char>(words[i].front()));
        const bool bold = i == 0 || command || words[i].front() == '-';
        roff += (i ? " " : "") + (bold ? "\\fB" + roffEscaped(words[i]) + "\\fR" : roffEscaped(words[i]));
    }
    return roff;
}

std::string headingText(const std::string& line, const std::string& macro)
{
    std::string text = line.substr(0, line.size() - 1);
    if (macro == ".SH")
        for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text.find(' ') == std::string::npos ? text : '"' + text + '"';
}

}  // namespace

std::string roffEscaped(const std::string& text)
{
    std::string roff;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte == '\\') {
            roff += "\\e";
        } else if (byte == '-') {
            roff += "\\-";
        } else if (byte < 0x80) {
            roff += text[i];
        } else {
            // UTF-8: one code point as \[uXXXX] (groff's portable spelling of any character).
            const int length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
            std::uint32_t point = length == 1 ? byte : byte & (0x3F >> (length - 1));
            for (int k = 1; k < length && i + 1 < text.size(); ++k) point = (point << 6) | (text[++i] & 0x3F);
            char code[16];
            std::snprintf(code, sizeof code, "\\[u%04X]", static_cast<unsigned>(point));
            roff += code;
        }
    }
    if (!roff.empty() && (roff.front() == '.' || roff.front() == '\'')) roff.insert(0, "\\&");
    return roff;
}

std::string usageAsRoff(const std::string& usage, const RoffLayout& layout)
{
    std::ostringstream roff;
    const std::vector<std::string> lines = linesOf(usage);
    std::size_t i = 0;
    if (i < lines.size() && lines[i].starts_with(kUsage)) {
        if (!layout.synopsisHeading.empty()) roff << ".SH " << layout.synopsisHeading << "\n";
        roff << (layout.synopsisHeading.empty() ? ".PP\n" : "") << ".nf\n" << synopsisLine(lines[i++].substr(kUsage.size())) << "\n";
        for (; i < lines.size() && lines[i].starts_with(kUsageContinuation) && indentOf(lines[i]) == kUsageContinuation.size(); ++i)
            roff << synopsisLine(lines[i]) << "\n";
        roff << ".fi\n";
        if (!layout.descriptionHeading.empty()) roff << ".SH " << layout.descriptionHeading << "\n";
    }
    bool inParagraph = false;
    for (; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        if (trimmed(line).empty()) {
            inParagraph = false;
        } else if (isHeading(line)) {
            roff << layout.headingMacro << " " << headingText(line, layout.headingMacro) << "\n";
            inParagraph = true;  // what follows starts right below the heading
        } else if (isOption(line)) {
            // "  --name ARG      description": the term ends where two spaces begin the description.
            const std::size_t gap = line.find("  ", 2);
            const std::string term = trimmed(line.substr(2, gap == std::string::npos ? std::string::npos : gap - 2));
            roff << ".TP\n" << optionTerm(term) << "\n";
            if (gap != std::string::npos && !trimmed(line.substr(gap)).empty())
                roff << roffEscaped(trimmed(line.substr(gap))) << "\n";
            for (; i + 1 < lines.size() && isContinuation(lines[i + 1]); ++i) roff << roffEscaped(trimmed(lines[i + 1])) << "\n";
            inParagraph = false;
        } else {
            if (!inParagraph) roff << ".PP\n";
            roff << roffEscaped(trimmed(line)) << "\n";
            inParagraph = true;
        }
    }
    return roff.str();
}

std::string manualPage(const ManualPageFacts& facts)
{
    std::ostringstream page;
    page << ".\\\" qkv-studio(1), made at build time from the usage texts (app/usage_text.cpp).\n"
         << ".TH QKV\\-STUDIO 1 \"" << facts.date << "\" \"qkv\\-studio " << roffEscaped(facts.version)
         << "\" \"User Commands\"\n"
         << ".SH NAME\nqkv\\-studio \\- multi\\-head attention, made visible\n"
         << usageAsRoff(app::mainUsage(), {".SH", "SYNOPSIS", "DESCRIPTION"})
         << ".SH \"EXPORT COMMAND\"\n"
         << usageAsRoff(app::exportUsage(), {".SS", "", ""})
         << ".SH \"FIGURE COMMAND\"\n"
         << usageAsRoff(app::figureUsage(), {".SS", "", ""})
         << ".SH \"TRAIN COMMAND\"\n"
         << usageAsRoff(app::trainUsage(), {".SS", "", ""});
    const std::string data = roffEscaped(facts.dataDirectory);
    page << ".SH FILES\n"
         << ".TP\n" << data << "/examples/\n"
         << "The example sessions of File > Examples and the Scenarios menu; each opens with "
            "\\fBqkv\\-studio\\fR \\fIFILE\\fR.\n"
         << ".TP\n" << data << "/lexicon/lexicon.txt\n"
         << "The words that meaning embeddings know, by language (the app computes with the copy "
            "compiled into it, so a session gives the same numbers on every machine).\n"
         << ".TP\n~/.local/share/QKV Studio/QKV Studio/autosave.qkv.json\n"
         << "The last state of the desktop app, written a moment after every change.\n"
         << ".SH \"SEE ALSO\"\n"
         << "The session format, the figures and the checkpoints the app reads are described in the "
            "project's documentation (docs/formats.md, docs/figures.md, docs/checkpoints.md); the "
            "training output (sessions, log.csv, report.json) in docs/formats.md.\n";
    return page.str();
}

}  // namespace qkv::packaging
