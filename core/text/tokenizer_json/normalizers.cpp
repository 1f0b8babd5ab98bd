#include "core/text/tokenizer_json/normalizers.hpp"

#include <utf8proc.h>

#include <cstdlib>
#include <vector>

#include "core/text/tokenizer_json/json_fields.hpp"
#include "core/text/unicode_properties.hpp"

namespace qkv::tokenizer_json {

namespace {

// ---- Unicode normalisation forms, by utf8proc ------------------------------------------

// Each grapheme cluster is normalised on its own (composition and reordering never cross one:
// combining marks and Hangul jamo sequences stay inside their cluster), and every character it
// gives spans the cluster's bytes.
class UnicodeForm final : public Normalizer {
public:
    UnicodeForm(std::string name, utf8proc_option_t options) : name_(std::move(name)), options_(options) {}

    Status normalize(SpannedText& text) const override
    {
        SpannedText out;
        out.reserve(text.size());
        std::int32_t state = 0;
        std::size_t start = 0;
        for (std::size_t i = 1; i <= text.size(); ++i) {
            const bool boundary =
                i == text.size() || utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(text[i - 1].codePoint),
                                                                     static_cast<utf8proc_int32_t>(text[i].codePoint), &state);
            if (!boundary) continue;
            if (Status s = appendCluster(text, start, i, out); !s) return s;
            start = i;
        }
        text = std::move(out);
        return {};
    }
    std::string name() const override { return name_; }

private:
    Status appendCluster(const SpannedText& text, std::size_t begin, std::size_t end, SpannedText& out) const
    {
        // ASCII is the same in every form.
        if (end == begin + 1 && text[begin].codePoint < 0x80) {
            out.push_back(text[begin]);
            return {};
        }
        const SpannedText cluster(text.begin() + static_cast<std::ptrdiff_t>(begin),
                                  text.begin() + static_cast<std::ptrdiff_t>(end));
        const std::string bytes = toUtf8(cluster);
        utf8proc_uint8_t* mapped = nullptr;
        const utf8proc_ssize_t length = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(bytes.data()),
                                                     static_cast<utf8proc_ssize_t>(bytes.size()), &mapped, options_);
        if (length < 0) return Error{name_ + " normalisation failed: " + utf8proc_errmsg(length)};
        const SpannedText normalized = charsSpanning(
            std::string_view(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(length)),
            text[begin].byteBegin, text[end - 1].byteEnd);
        std::free(mapped);
        out.insert(out.end(), normalized.begin(), normalized.end());
        return {};
    }

    std::string name_;
    utf8proc_option_t options_;
};

// ---- per-character rules ---------------------------------------------------------------

// Each character replaced by what `map` gives (none, itself, or several), with its span.
template <class Map>
void mapCharacters(SpannedText& text, Map map)
{
    SpannedText out;
    out.reserve(text.size());
    char32_t buffer[8];
    for (const utf8::SpannedChar& ch : text) {
        const int count = map(ch.codePoint, buffer);
        for (int k = 0; k < count; ++k) out.push_back({buffer[k], ch.byteBegin, ch.byteEnd});
    }
    text = std::move(out);
}

int lowerCase(char32_t c, char32_t* out) { return unicode::appendLowerCase(c, out); }

class Lowercase final : public Normalizer {
public:
    Status normalize(SpannedText& text) const override
    {
        mapCharacters(text, lowerCase);
        return {};
    }
    std::string name() const override { return "Lowercase"; }
};

// Drops the non-spacing marks (Mn) only; an NFD before it is the file's to ask for.
class StripAccents final : public Normalizer {
public:
    Status normalize(SpannedText& text) const override
    {
        std::erase_if(text, [](const utf8::SpannedChar& ch) { return unicode::isNonspacingMark(ch.codePoint); });
        return {};
    }
    std::string name() const override { return "StripAccents"; }
};

class Strip final : public Normalizer {
public:
    Strip(bool left, bool right) : left_(left), right_(right) {}
    Status normalize(SpannedText& text) const override
    {
        const auto space = [](const utf8::SpannedChar& ch) { return unicode::isWhiteSpace(ch.codePoint); };
        if (right_)
            while (!text.empty() && space(text.back())) text.pop_back();
        if (left_) {
            std::size_t first = 0;
            while (first < text.size() && space(text[first])) ++first;
            text.erase(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(first));
        }
        return {};
    }
    std::string name() const override { return "Strip"; }

private:
    bool left_, right_;
};

class Replace final : public Normalizer {
public:
    Replace(Pattern pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
    Status normalize(SpannedText& text) const override
    {
        Expected<std::vector<Match>> matches = pattern_.find(text);
        if (!matches) return Error{"normalizer Replace: " + matches.error()};
        if (matches->empty()) return {};
        SpannedText out;
        std::size_t at = 0;
        for (const Match& m : *matches) {
            out.insert(out.end(), text.begin() + static_cast<std::ptrdiff_t>(at),
                       text.begin() + static_cast<std::ptrdiff_t>(m.begin));
            // The replacement stands for the whole match.
            const SpannedText replacement = charsSpanning(content_, text[m.begin].byteBegin, text[m.end - 1].byteEnd);
            out.insert(out.end(), replacement.begin(), replacement.end());
            at = m.end;
        }
        out.insert(out.end(), text.begin() + static_cast<std::ptrdiff_t>(at), text.end());
        text = std::move(out);
        return {};
    }
    std::string name() const override { return "Replace " + pattern_.describe() + " -> \"" + content_ + "\""; }

private:
    Pattern pattern_;
    std::string content_;
};

class Prepend final : public Normalizer {
public:
    explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
    Status normalize(SpannedText& text) const override
    {
        if (!text.empty()) insertSpanned(text, 0, prefix_);
        return {};
    }
    std::string name() const override { return "Prepend \"" + prefix_ + "\""; }

private:
    std::string prefix_;
};

// BERT's cleaning (Devlin et al. 2019; tokenizers' normalizers/bert.rs): control characters out,
// every space a plain one, CJK ideographs spaced apart, accents stripped, lower case.
class BertNormalizer final : public Normalizer {
public:
    BertNormalizer(bool cleanText, bool chineseChars, bool stripAccents, bool lowercase)
        : cleanText_(cleanText), chineseChars_(chineseChars), stripAccents_(stripAccents), lowercase_(lowercase)
    {
    }
    Status normalize(SpannedText& text) const override
    {
        if (cleanText_)
            mapCharacters(text, [](char32_t c, char32_t* out) {
                const bool keptControl = c == '\t' || c == '\n' || c == '\r';
                if (c == 0 || c == 0xFFFD || (!keptControl && unicode::isOther(c))) return 0;
                out[0] = keptControl || unicode::isWhiteSpace(c) ? U' ' : c;
                return 1;
            });
        if (chineseChars_)
            mapCharacters(text, [](char32_t c, char32_t* out) {
                if (!unicode::isCjkIdeograph(c)) {
                    out[0] = c;
                    return 1;
                }
                out[0] = U' ';
                out[1] = c;
                out[2] = U' ';
                return 3;
            });
        if (stripAccents_) mapCharacters(text, [](char32_t c, char32_t* out) { return unicode::appendAccentStripped(c, out); });
        if (lowercase_) mapCharacters(text, lowerCase);
        return {};
    }
    std::string name() const override { return lowercase_ ? "BertNormalizer (lower case)" : "BertNormalizer"; }

private:
    bool cleanText_, chineseChars_, stripAccents_, lowercase_;
};

class Sequence final : public Normalizer {
public:
    explicit Sequence(std::vector<std::shared_ptr<const Normalizer>> steps) : steps_(std::move(steps)) {}
    Status normalize(SpannedText& text) const override
    {
        for (const auto& step : steps_)
            if (Status s = step->normalize(text); !s) return s;
        return {};
    }
    std::string name() const override
    {
        std::string out = "Sequence[";
        for (std::size_t i = 0; i < steps_.size(); ++i) out += (i ? ", " : "") + steps_[i]->name();
        return out + "]";
    }

private:
    std::vector<std::shared_ptr<const Normalizer>> steps_;
};

}  // namespace

Expected<std::shared_ptr<const Normalizer>> parseNormalizer(const nlohmann::json& spec)
{
    using Result = std::shared_ptr<const Normalizer>;
    if (spec.is_null()) return Result{};
    Expected<std::string> type = componentType(spec, "the normalizer");
    if (!type) return Error{type.error()};
    const std::string what = "normalizer " + *type;
    if (*type == "NFC") return Result(std::make_shared<UnicodeForm>("NFC", utf8proc_option_t(UTF8PROC_STABLE | UTF8PROC_COMPOSE)));
    if (*type == "NFD") return Result(std::make_shared<UnicodeForm>("NFD", utf8proc_option_t(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE)));
    if (*type == "NFKC")
        return Result(std::make_shared<UnicodeForm>("NFKC", utf8proc_option_t(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT)));
    if (*type == "NFKD")
        return Result(std::make_shared<UnicodeForm>("NFKD", utf8proc_option_t(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT)));
    if (*type == "Lowercase") return Result(std::make_shared<Lowercase>());
    if (*type == "StripAccents") return Result(std::make_shared<StripAccents>());
    if (*type == "Strip") {
        Expected<bool> left = boolField(spec, "strip_left", what, true);
        Expected<bool> right = boolField(spec, "strip_right", what, true);
        if (!left) return Error{left.error()};
        if (!right) return Error{right.error()};
        return Result(std::make_shared<Strip>(*left, *right));
    }
    if (*type == "Replace") {
        Expected<Pattern> pattern = parsePattern(spec, what);
        if (!pattern) return Error{pattern.error()};
        Expected<std::string> content = stringField(spec, "content", what);
        if (!content) return Error{content.error()};
        return Result(std::make_shared<Replace>(std::move(*pattern), std::move(*content)));
    }
    if (*type == "Prepend") {
        Expected<std::string> prefix = stringField(spec, "prepend", what);
        if (!prefix) return Error{prefix.error()};
        return Result(std::make_shared<Prepend>(std::move(*prefix)));
    }
    if (*type == "BertNormalizer") {
        Expected<bool> clean = boolField(spec, "clean_text", what, true);
        Expected<bool> chinese = boolField(spec, "handle_chinese_chars", what, true);
        Expected<bool> lowercase = boolField(spec, "lowercase", what, true);
        if (!clean || !chinese || !lowercase) return Error{what + ": clean_text, handle_chinese_chars and lowercase are true or false"};
        // strip_accents null: the same as lowercase (BERT's uncased models strip, cased ones keep).
        Expected<bool> strip = boolField(spec, "strip_accents", what, *lowercase);
        if (!strip) return Error{strip.error()};
        return Result(std::make_shared<BertNormalizer>(*clean, *chinese, *strip, *lowercase));
    }
    if (*type == "Sequence") {
        Expected<std::vector<Result>> steps = parseSequence<Normalizer>(spec, "normalizers", what, parseNormalizer);
        if (!steps) return Error{steps.error()};
        return Result(std::make_shared<Sequence>(std::move(*steps)));
    }
    return Error{"normalizer " + *type + " is not supported"};
}

}  // namespace qkv::tokenizer_json
