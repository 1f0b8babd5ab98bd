// Lexicon::parse: the text format of lexicon.hpp, line by line. Every rejection names the
// source and the line; nothing in the text can crash or hang the parser (tests fuzz it).
#include <algorithm>
#include <optional>

#include "core/embedding/lexicon.hpp"

namespace qkv {

namespace {

constexpr std::string_view neutralTag = "*";

std::string_view trim(std::string_view text)
{
    const auto isBlank = [](char c) { return c == ' ' || c == '\t'; };
    while (!text.empty() && isBlank(text.front())) text.remove_prefix(1);
    while (!text.empty() && isBlank(text.back())) text.remove_suffix(1);
    return text;
}

// One '|'-separated part of a concept line: "en: cat, cats" -> tag "en", words {cat, cats}.
// The first field of a line has no tag (it is the concept id).
struct Field {
    std::string tag;
    std::vector<std::string> words;
};

// Splits a concept line into fields and words. Double quotes make a word literal (so that ","
// "|" and "#" can be words; "" inside quotes is one '"'); '#' outside quotes starts a comment.
class LineScanner {
public:
    // Returns an error message (without the line prefix), or nothing.
    std::optional<std::string> scan(std::string_view line, std::vector<Field>& fields)
    {
        fields.assign(1, Field{});
        std::size_t at = 0;
        while (at < line.size()) {
            const char c = line[at];
            if (c == '"' && trim(current_).empty() && !quoted_) {
                if (auto problem = readQuoted(line, at)) return problem;
                continue;
            }
            if (quoted_ && (c == ' ' || c == '\t')) {
                ++at;
                continue;
            }
            if (quoted_ && c != ',' && c != '|' && c != '#')
                return "text after a closing quote; a quoted word ends at its quote";
            if (c == '#') break;
            ++at;
            if (c == '|') {
                if (auto problem = finishWord(fields, true)) return problem;
                fields.emplace_back();
            } else if (c == ',') {
                if (auto problem = finishWord(fields, false)) return problem;
            } else if (c == ':' && fields.size() > 1 && !tagRead_) {
                fields.back().tag = std::string(trim(current_));
                if (fields.back().tag.empty()) return "a ':' without a language tag before it";
                tagRead_ = true;
                current_.clear();
            } else {
                current_ += c;
            }
        }
        return finishWord(fields, true);
    }

private:
    std::optional<std::string> readQuoted(std::string_view line, std::size_t& at)
    {
        current_.clear();
        for (++at; at < line.size(); ++at) {
            if (line[at] != '"') {
                current_ += line[at];
            } else if (at + 1 < line.size() && line[at + 1] == '"') {
                current_ += '"';
                ++at;
            } else {
                ++at;
                quoted_ = true;
                return std::nullopt;
            }
        }
        return "a quote is not closed";
    }

    // Ends the word being read; `endOfField` when a '|' or the end of the line follows.
    std::optional<std::string> finishWord(std::vector<Field>& fields, bool endOfField)
    {
        Field& field = fields.back();
        const bool isIdField = fields.size() == 1;
        const std::string word = quoted_ ? current_ : std::string(trim(current_));
        const bool wasQuoted = quoted_;
        current_.clear();
        quoted_ = false;
        if (!isIdField && !tagRead_) {
            if (word.empty() && endOfField) return "an empty field between two '|'";
            return "the words '" + word + "' have no language tag; write 'en: " + word + "'";
        }
        if (word.empty() && !wasQuoted) {
            // "fr:" alone lists no words, which is allowed; an empty word between commas is not.
            if (!(endOfField && !isIdField && field.words.empty())) {
                if (isIdField) return endOfField ? "no concept id before the first '|'"
                                                 : "the concept id is one word, without commas";
                return "an empty word (two commas in a row, or a comma at the end)";
            }
        } else if (word.empty()) {
            return "an empty quoted word";
        } else {
            if (isIdField && !field.words.empty()) return "the concept id is one word, without commas";
            field.words.push_back(word);
        }
        if (endOfField) tagRead_ = false;
        return std::nullopt;
    }

    std::string current_;
    bool quoted_ = false;
    bool tagRead_ = false;
};

bool isTagName(std::string_view tag)
{
    if (tag.empty() || tag.size() > 16 || tag.front() < 'a' || tag.front() > 'z') return false;
    return std::all_of(tag.begin(), tag.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    });
}

// A word must be exactly one token of the tokenizer, or no token could ever match it.
std::optional<std::string> singleTokenProblem(std::string_view word)
{
    const std::vector<Token> tokens = tokenize(word);
    if (tokens.size() == 1 && tokens.front().text == word) return std::nullopt;
    if (tokens.empty()) return "'" + std::string(word) + "' is blank";
    std::string parts;
    for (const Token& token : tokens) parts += (parts.empty() ? "'" : ", '") + token.text + "'";
    return "'" + std::string(word) + "' is " + std::to_string(tokens.size()) + " tokens to the tokenizer (" + parts +
           "), so no token can match it; list its words separately";
}

std::vector<std::string_view> splitOn(std::string_view text, char separator)
{
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (std::size_t at = 0; at <= text.size(); ++at) {
        if (at == text.size() || text[at] == separator) {
            parts.push_back(trim(text.substr(start, at - start)));
            start = at + 1;
        }
    }
    return parts;
}

}  // namespace

// Fills a Lexicon line by line; first error wins.
class LexiconBuilder {
public:
    explicit LexiconBuilder(std::string_view sourceName) : source_(sourceName) {}

    std::optional<std::string> addLine(std::string_view line, std::size_t lineNumber)
    {
        lineNumber_ = lineNumber;
        if (line.size() > maxLexiconLineBytes)
            return fail("the line is " + std::to_string(line.size()) + " bytes long; the limit is " +
                        std::to_string(maxLexiconLineBytes));
        if (sanitizeUtf8(line) != line) return fail("the line is not valid UTF-8");
        if (std::any_of(line.begin(), line.end(), [](char c) { return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7F; }))
            return fail("the line holds a control character");
        const std::string_view content = trim(line);
        if (content.empty() || content.front() == '#') return std::nullopt;
        if (content.front() == '@') return addDirective(content);
        return addConcept(content);
    }

    std::optional<std::string> finish()
    {
        if (lexicon_.languages_.empty()) return fail0("no '@languages: ...' line; the lexicon declares its languages first");
        for (std::size_t language = 0; language < lexicon_.languages_.size(); ++language) {
            for (auto* affixes : {&lexicon_.elisions_[language], &lexicon_.clitics_[language]}) {
                for (LexiconAffix& affix : *affixes) {
                    if (affix.fullWord.empty()) continue;
                    const auto& table = lexicon_.wordsByLanguage_[language];
                    const auto found = table.find(affix.fullWord);
                    lineNumber_ = affix.line;
                    if (found == table.end())
                        return fail("'" + affix.text + " = " + affix.fullWord + "': no concept lists '" + affix.fullWord +
                                     "' under " + lexicon_.languages_[language]);
                    affix.conceptIndex = found->second;
                }
                // Longest first, so that "jusqu'" is tried before "qu'".
                std::stable_sort(affixes->begin(), affixes->end(),
                                 [](const LexiconAffix& a, const LexiconAffix& b) { return a.text.size() > b.text.size(); });
            }
        }
        return std::nullopt;
    }

    Lexicon take() { return std::move(lexicon_); }

private:
    std::string fail(const std::string& message) const
    {
        return source_ + " line " + std::to_string(lineNumber_) + ": " + message + ".";
    }
    std::string fail0(const std::string& message) const { return source_ + ": " + message + "."; }

    std::optional<std::string> addDirective(std::string_view content)
    {
        const std::size_t colon = content.find(':');
        if (colon == std::string_view::npos) return fail("a directive is '@name: values'");
        std::vector<std::string_view> head = splitOn(trim(content.substr(1, colon - 1)), ' ');
        std::erase_if(head, [](std::string_view part) { return part.empty(); });
        std::string_view values = content.substr(colon + 1);
        values = values.substr(0, values.find('#'));
        if (head.size() == 1 && head[0] == "languages") return declareLanguages(values);
        if (head.size() == 2 && (head[0] == "elision" || head[0] == "clitics")) return addAffixes(head[0], head[1], values);
        return fail("unknown directive '@" + std::string(head.empty() ? std::string_view{} : head[0]) +
                    "'; the directives are @languages, @elision and @clitics");
    }

    std::optional<std::string> declareLanguages(std::string_view values)
    {
        if (!lexicon_.languages_.empty()) return fail("'@languages' appears twice");
        if (!lexicon_.concepts_.empty()) return fail("'@languages' must come before the first concept");
        for (const std::string_view tag : splitOn(values, ',')) {
            if (!isTagName(tag))
                return fail("'" + std::string(tag) + "' is not a language tag (lower-case letters, such as en)");
            if (lexicon_.languageIndex(tag) >= 0) return fail("language '" + std::string(tag) + "' is declared twice");
            lexicon_.languages_.emplace_back(tag);
        }
        const std::size_t count = lexicon_.languages_.size();
        lexicon_.wordsByLanguage_.resize(count);
        lexicon_.elisions_.resize(count);
        lexicon_.clitics_.resize(count);
        return std::nullopt;
    }

    std::optional<std::string> addAffixes(std::string_view kind, std::string_view tag, std::string_view values)
    {
        const int language = lexicon_.languageIndex(tag);
        if (language < 0) return fail("unknown language tag '" + std::string(tag) + "'" + declaredHint());
        const bool elision = kind == "elision";
        for (const std::string_view item : splitOn(values, ',')) {
            const std::size_t equals = item.find('=');
            LexiconAffix affix;
            affix.line = lineNumber_;
            affix.text = normaliseLexiconWord(trim(item.substr(0, equals)));
            if (equals != std::string_view::npos) affix.fullWord = normaliseLexiconWord(trim(item.substr(equals + 1)));
            const std::string_view text = affix.text;
            // "l'" is letters then an apostrophe; "'s" an apostrophe then letters.
            const bool shaped = text.size() > 1 && (elision ? text.back() : text.front()) == '\'';
            if (!shaped || singleTokenProblem(elision ? text.substr(0, text.size() - 1) : text.substr(1)))
                return fail("'" + std::string(item) + "' is not " +
                            (elision ? "an elided prefix such as l' (letters, then an apostrophe)"
                                     : "a clitic suffix such as 's (an apostrophe, then letters)"));
            if (equals != std::string_view::npos && (affix.fullWord.empty() || singleTokenProblem(affix.fullWord)))
                return fail("'" + std::string(item) + "' needs one word after '='");
            auto& list = elision ? lexicon_.elisions_[static_cast<std::size_t>(language)]
                                 : lexicon_.clitics_[static_cast<std::size_t>(language)];
            for (const LexiconAffix& known : list)
                if (known.text == affix.text) return fail("'" + affix.text + "' is listed twice");
            list.push_back(std::move(affix));
        }
        return std::nullopt;
    }

    std::string declaredHint() const
    {
        std::string hint = "; the declared languages are ";
        for (const std::string& language : lexicon_.languages_) hint += language + ", ";
        return hint + "and * (every language)";
    }

    std::optional<std::string> addConcept(std::string_view content)
    {
        if (lexicon_.languages_.empty()) return fail("a concept before the '@languages: ...' line");
        if (content.find('|') == std::string_view::npos)
            return fail("no '|' on this line; a concept is written 'id | en: words | fr: words'");
        std::vector<Field> fields;
        if (auto problem = LineScanner{}.scan(content, fields)) return fail(*problem);
        if (fields[0].words.empty()) return fail("no concept id before the first '|'");

        LexiconConcept entry;
        entry.id = normaliseLexiconWord(fields[0].words[0]);
        entry.line = lineNumber_;
        entry.words.resize(lexicon_.languages_.size());
        if (const auto other = lexicon_.conceptById_.find(entry.id); other != lexicon_.conceptById_.end())
            return fail("concept '" + entry.id + "' is already defined on line " +
                        std::to_string(lexicon_.concepts_[static_cast<std::size_t>(other->second)].line));

        std::vector<bool> seen(lexicon_.languages_.size() + 1, false);
        bool idIsAWord = false;
        for (std::size_t f = 1; f < fields.size(); ++f) {
            const int language = fields[f].tag == neutralTag ? static_cast<int>(lexicon_.languages_.size())
                                                             : lexicon_.languageIndex(fields[f].tag);
            if (language < 0) return fail("unknown language tag '" + fields[f].tag + "'" + declaredHint());
            if (seen[static_cast<std::size_t>(language)])
                return fail("'" + fields[f].tag + ":' appears twice; put all its words in one field");
            seen[static_cast<std::size_t>(language)] = true;
            auto& list = language < static_cast<int>(lexicon_.languages_.size())
                             ? entry.words[static_cast<std::size_t>(language)] : entry.neutralWords;
            for (const std::string& word : fields[f].words) {
                if (auto problem = singleTokenProblem(word)) return fail(*problem);
                std::string normalised = normaliseLexiconWord(word);
                if (std::find(list.begin(), list.end(), normalised) != list.end()) continue;  // harmless repeat
                idIsAWord = idIsAWord || normalised == entry.id;
                list.push_back(std::move(normalised));
            }
        }
        if (!idIsAWord)
            return fail("the concept id '" + entry.id + "' is not one of its words; list it (for example 'en: " +
                        entry.id + "') so that an id never looks like a word outside the lexicon");
        return registerConcept(std::move(entry));
    }

    // Adds the concept's words to the lookup tables, refusing a word that another concept of the
    // same language (or of "*") already has.
    std::optional<std::string> registerConcept(LexiconConcept entry)
    {
        const int index = static_cast<int>(lexicon_.concepts_.size());
        const std::size_t languageCount = lexicon_.languages_.size();
        const auto clash = [&](const std::string& word, const std::string& tag, int other) {
            const LexiconConcept& owner = lexicon_.concepts_[static_cast<std::size_t>(other)];
            return fail("the " + tag + " word '" + word + "' already belongs to concept '" + owner.id + "' (line " +
                        std::to_string(owner.line) + "); a word has one concept per language");
        };
        for (const std::string& word : entry.neutralWords) {
            if (const auto it = lexicon_.neutralWords_.find(word); it != lexicon_.neutralWords_.end())
                return clash(word, "*", it->second);
            for (std::size_t language = 0; language < languageCount; ++language)
                if (const auto it = lexicon_.wordsByLanguage_[language].find(word); it != lexicon_.wordsByLanguage_[language].end())
                    return clash(word, lexicon_.languages_[language] + " (and so *)", it->second);
        }
        for (std::size_t language = 0; language < languageCount; ++language) {
            for (const std::string& word : entry.words[language]) {
                if (const auto it = lexicon_.wordsByLanguage_[language].find(word); it != lexicon_.wordsByLanguage_[language].end())
                    return clash(word, lexicon_.languages_[language], it->second);
                if (const auto it = lexicon_.neutralWords_.find(word); it != lexicon_.neutralWords_.end())
                    return clash(word, lexicon_.languages_[language] + " (listed under * there)", it->second);
            }
        }
        for (const std::string& word : entry.neutralWords) lexicon_.neutralWords_.emplace(word, index);
        for (std::size_t language = 0; language < languageCount; ++language)
            for (const std::string& word : entry.words[language]) lexicon_.wordsByLanguage_[language].emplace(word, index);
        lexicon_.conceptById_.emplace(entry.id, index);
        lexicon_.concepts_.push_back(std::move(entry));
        return std::nullopt;
    }

    std::string source_;
    std::size_t lineNumber_ = 0;
    Lexicon lexicon_;
};

Expected<Lexicon> Lexicon::parse(std::string_view text, std::string_view sourceName)
{
    const std::string source = sourceName.empty() ? std::string("lexicon") : std::string(sourceName);
    if (text.size() > maxLexiconBytes)
        return Error{source + ": the lexicon is " + std::to_string(text.size()) + " bytes; the limit is " +
                     std::to_string(maxLexiconBytes) + "."};
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a byte-order mark

    LexiconBuilder builder(source);
    std::size_t lineNumber = 0;
    while (!text.empty() || lineNumber == 0) {
        ++lineNumber;
        const std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (auto problem = builder.addLine(line, lineNumber)) return Error{*problem};
    }
    if (auto problem = builder.finish()) return Error{*problem};
    return builder.take();
}

}  // namespace qkv
