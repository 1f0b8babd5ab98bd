// The manual page says what --help says: every option of every usage text is a tagged paragraph
// of the page, every word of them is there, and nothing in it is read by roff as a request.

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/usage_text.hpp"
#include "packaging/manual_page.hpp"

namespace {

using qkv::packaging::manualPage;
using qkv::packaging::roffEscaped;
using qkv::packaging::usageAsRoff;

std::vector<std::string> linesOf(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) lines.push_back(line);
    return lines;
}

std::string utf8(unsigned long point)
{
    if (point < 0x80) return std::string(1, static_cast<char>(point));
    if (point < 0x800) return {static_cast<char>(0xC0 | (point >> 6)), static_cast<char>(0x80 | (point & 0x3F))};
    if (point < 0x10000)
        return {static_cast<char>(0xE0 | (point >> 12)), static_cast<char>(0x80 | ((point >> 6) & 0x3F)),
                static_cast<char>(0x80 | (point & 0x3F))};
    return {static_cast<char>(0xF0 | (point >> 18)), static_cast<char>(0x80 | ((point >> 12) & 0x3F)),
            static_cast<char>(0x80 | ((point >> 6) & 0x3F)), static_cast<char>(0x80 | (point & 0x3F))};
}

// The page's text with roff's escapes and font changes undone.
std::string plainText(const std::string& roff)
{
    std::string text;
    const std::regex character(R"(\\\[u([0-9A-F]{4,5})\])");
    std::size_t done = 0;
    for (auto it = std::sregex_iterator(roff.begin(), roff.end(), character); it != std::sregex_iterator(); ++it) {
        text += roff.substr(done, static_cast<std::size_t>(it->position()) - done) + utf8(std::stoul((*it)[1], nullptr, 16));
        done = static_cast<std::size_t>(it->position() + it->length());
    }
    text += roff.substr(done);
    text = std::regex_replace(text, std::regex(R"(\\f[BIR])"), "");
    text = std::regex_replace(text, std::regex(R"(\\-)"), "-");
    text = std::regex_replace(text, std::regex(R"(\\e)"), "\\");
    text = std::regex_replace(text, std::regex(R"(\\&)"), "");
    return text;
}

const std::string& page()
{
    static const std::string text = manualPage({"0.1.0", "2026-11-24", "/usr/share/qkv-studio"});
    return text;
}

TEST(ManualPage, EveryOptionOfEveryUsageIsATaggedParagraph)
{
    for (const char* usage : {qkv::app::mainUsage(), qkv::app::exportUsage(), qkv::app::figureUsage(), qkv::app::trainUsage()}) {
        int options = 0;
        for (const std::string& line : linesOf(usage))
            if (line.size() > 2 && line.starts_with("  ") && line[2] != ' ') ++options;
        const std::string roff = usageAsRoff(usage, {".SS", "", ""});
        int tagged = 0;
        for (const std::string& line : linesOf(roff)) tagged += line == ".TP";
        EXPECT_EQ(tagged, options) << usage;
        EXPECT_GT(options, 1);
    }
    EXPECT_NE(page().find(".TP\n\\fB\\-\\-format\\fR \\fIFORMAT\\fR\n"), std::string::npos);
    EXPECT_NE(page().find(".TP\n\\fB\\-\\-width\\fR \\fIW\\fR \\fB\\-\\-height\\fR \\fIH\\fR\n"), std::string::npos);
    EXPECT_NE(page().find(".TP\n\\fBQKV_STUDIO_DATA_DIR\\fR\n"), std::string::npos);
}

TEST(ManualPage, HasEveryWordOfHelp)
{
    std::set<std::string> words;
    for (const std::string& line : linesOf(plainText(page()))) {
        std::istringstream stream(line);
        for (std::string word; stream >> word;) words.insert(word);
    }
    for (const char* usage : {qkv::app::mainUsage(), qkv::app::exportUsage(), qkv::app::figureUsage(), qkv::app::trainUsage()}) {
        std::istringstream stream(usage);
        for (std::string word; stream >> word;) {
            if (word == "Usage:") continue;  // the synopsis is laid out without it
            // Headings become section names ("Environment:" -> ENVIRONMENT or Environment).
            if (word.back() == ':' && word.find_first_of(" ") == std::string::npos && std::isupper(word[0]) &&
                word.size() > 1 && std::string(usage).find("\n" + word + "\n") != std::string::npos)
                continue;
            EXPECT_TRUE(words.count(word)) << "'" << word << "' of --help is not in the manual page";
        }
    }
}

TEST(ManualPage, OnlyKnownRequestsStartALine)
{
    const std::set<std::string> requests{".TH", ".SH", ".SS", ".TP", ".PP", ".nf", ".fi", ".\\\""};
    for (const std::string& line : linesOf(page())) {
        if (line.empty() || (line[0] != '.' && line[0] != '\'')) continue;
        const std::string request = line.substr(0, line.find(' '));
        EXPECT_TRUE(requests.count(request)) << "a line roff reads as a request: " << line;
    }
}

TEST(ManualPage, NamesTheVersionDateAndDataFolder)
{
    EXPECT_EQ(linesOf(page()).at(1), R"(.TH QKV\-STUDIO 1 "2026-11-24" "qkv\-studio 0.1.0" "User Commands")");
    EXPECT_NE(page().find("/usr/share/qkv\\-studio/examples/"), std::string::npos);
    EXPECT_NE(page().find(".SH \"EXPORT COMMAND\""), std::string::npos);
    EXPECT_NE(page().find(".SH \"FIGURE COMMAND\""), std::string::npos);
    EXPECT_NE(page().find(".SH \"TRAIN COMMAND\""), std::string::npos);
}

TEST(ManualPage, PlainTextUndoesTheEscapes)
{
    EXPECT_EQ(plainText(roffEscaped("--show q\xc2\xb7k/sqrt(d_k) \\ \xf0\x9f\x98\x80")), "--show q\xc2\xb7k/sqrt(d_k) \\ \xf0\x9f\x98\x80");
}

TEST(RoffEscaped, ProtectsWhatRoffWouldRead)
{
    EXPECT_EQ(roffEscaped("--out PATH"), "\\-\\-out PATH");
    EXPECT_EQ(roffEscaped("a\\b"), "a\\eb");
    EXPECT_EQ(roffEscaped(".qkv.json files"), "\\&.qkv.json files");
    EXPECT_EQ(roffEscaped("'quoted'"), "\\&'quoted'");
    EXPECT_EQ(roffEscaped("q\xc2\xb7k"), "q\\[u00B7]k");              // q·k
    EXPECT_EQ(roffEscaped("\xe2\x80\x94"), "\\[u2014]");              // an em dash
    EXPECT_EQ(roffEscaped("\xf0\x9f\x98\x80"), "\\[u1F600]");         // four bytes
}

}  // namespace
