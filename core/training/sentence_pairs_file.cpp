#include "core/training/sentence_pairs_file.hpp"

#include <algorithm>

#include "core/io/file_bytes.hpp"
#include "core/text/utf8.hpp"
#include "core/training/words.hpp"

namespace qkv {

namespace {

bool isBlank(std::string_view line) { return std::all_of(line.begin(), line.end(), isWordSeparator); }

// One side of a pair, checked: at least one word, at most maxSentencePairWords.
Expected<std::vector<std::string>> sideWords(std::string_view text, std::string_view side, const std::string& where)
{
    const std::vector<std::string_view> views = splitWords(text);
    std::vector<std::string> words(views.begin(), views.end());
    if (words.empty()) return Error{where + ": the " + std::string(side) + " sentence is empty"};
    if (words.size() > maxSentencePairWords)
        return Error{where + ": the " + std::string(side) + " sentence has " + std::to_string(words.size()) +
                     " words; at most " + std::to_string(maxSentencePairWords) + " are allowed"};
    return words;
}

Expected<SentencePairLine> parseLine(std::string_view line, std::size_t number, const std::string& name)
{
    const std::string where = name + ":" + std::to_string(number);
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos)
        return Error{where + ": no TAB between the source and the target sentence (one pair per line: source TAB target)"};
    std::string_view rest = line.substr(tab + 1);
    rest = rest.substr(0, rest.find('\t'));  // later columns (attribution, ids) are not sentences
    Expected<std::vector<std::string>> source = sideWords(line.substr(0, tab), "source", where);
    if (!source) return Error{source.error()};
    Expected<std::vector<std::string>> target = sideWords(rest, "target", where);
    if (!target) return Error{target.error()};
    return SentencePairLine{std::move(*source), std::move(*target), number};
}

}  // namespace

Expected<std::vector<SentencePairLine>> parseSentencePairs(std::string_view text, const std::string& name)
{
    if (text.size() > maxSentencePairsFileBytes)
        return Error{name + ": is too large for sentence pairs (" + std::to_string(text.size()) +
                     " bytes; the limit is " + std::to_string(maxSentencePairsFileBytes) + ")"};
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a byte-order mark some editors write
    const std::size_t invalid = utf8::firstInvalidByte(text);
    if (invalid != text.size()) {
        const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(invalid), '\n');
        return Error{name + ":" + std::to_string(line) + ": is not UTF-8 text (byte " + std::to_string(invalid) +
                     " of the file)"};
    }

    std::vector<SentencePairLine> pairs;
    std::size_t number = 0;
    for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(at, end - at);
        at = end + 1;
        if (++number > maxSentencePairsFileLines)
            return Error{name + ":" + std::to_string(number) + ": more than " +
                         std::to_string(maxSentencePairsFileLines) + " lines"};
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // Windows line ends
        if (isBlank(line) || line.front() == '#') continue;
        Expected<SentencePairLine> pair = parseLine(line, number, name);
        if (!pair) return Error{pair.error()};
        pairs.push_back(std::move(*pair));
    }
    if (pairs.empty()) return Error{name + ": has no sentence pairs (one pair per line: source TAB target)"};
    return pairs;
}

Expected<std::vector<SentencePairLine>> readSentencePairs(const std::filesystem::path& path)
{
    Expected<std::string> bytes = readFileBytes(path.string(), maxSentencePairsFileBytes, "sentence pairs");
    if (!bytes) return Error{bytes.error()};
    return parseSentencePairs(*bytes, path.string());
}

std::vector<std::int32_t> sameWordAlignment(const std::vector<std::string>& source,
                                            const std::vector<std::string>& target)
{
    std::vector<std::int32_t> alignment(target.size(), -1);
    for (std::size_t t = 0; t < target.size(); ++t) {
        if (std::count(target.begin(), target.end(), target[t]) != 1) continue;
        if (std::count(source.begin(), source.end(), target[t]) != 1) continue;
        alignment[t] = static_cast<std::int32_t>(std::find(source.begin(), source.end(), target[t]) - source.begin());
    }
    return alignment;
}

}  // namespace qkv
