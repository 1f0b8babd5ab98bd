#include "core/text/tokenizer_json/pre_tokenizers.hpp"

#include <utility>

#include "core/text/byte_level_bpe_vocab.hpp"
#include "core/text/tokenizer_json/json_fields.hpp"
#include "core/text/tokenizer_json/splitting.hpp"
#include "core/text/unicode_properties.hpp"

namespace qkv::tokenizer_json {

namespace {

using Pieces = std::vector<SpannedText>;

// Replaces every piece by what `cut` makes of it.
template <class Cut>
Status cutEach(Pieces& pieces, Cut cut)
{
    Pieces out;
    for (SpannedText& piece : pieces) {
        Expected<Pieces> parts = cut(piece);
        if (!parts) return Error{parts.error()};
        for (SpannedText& part : *parts) out.push_back(std::move(part));
    }
    pieces = std::move(out);
    return {};
}

class Split final : public PreTokenizer {
public:
    Split(Pattern pattern, SplitBehavior behavior, bool invert)
        : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert)
    {
    }
    Status split(Pieces& pieces) const override
    {
        return cutEach(pieces, [this](const SpannedText& piece) -> Expected<Pieces> {
            Expected<std::vector<Match>> matches = pattern_.find(piece);
            if (!matches) return Error{"pre-tokenizer Split: " + matches.error()};
            return splitAtMatches(piece, *matches, behavior_, invert_);
        });
    }
    std::string name() const override { return "Split on " + pattern_.describe(); }

private:
    Pattern pattern_;
    SplitBehavior behavior_;
    bool invert_;
};

// GPT-2's pre-token pattern (Radford et al. 2019, section 2.2), as ByteLevel's use_regex applies it.
constexpr const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

class ByteLevel final : public PreTokenizer {
public:
    ByteLevel(bool addPrefixSpace, std::optional<Pattern> regex)
        : addPrefixSpace_(addPrefixSpace), regex_(std::move(regex))
    {
    }
    Status split(Pieces& pieces) const override
    {
        return cutEach(pieces, [this](SpannedText& piece) -> Expected<Pieces> {
            if (addPrefixSpace_ && !piece.empty() && piece.front().codePoint != U' ') insertSpanned(piece, 0, " ");
            Pieces parts;
            if (regex_) {
                Expected<std::vector<Match>> matches = regex_->find(piece);
                if (!matches) return Error{"pre-tokenizer ByteLevel: " + matches.error()};
                parts = splitAtMatches(piece, *matches, SplitBehavior::Isolated);
            } else {
                parts.push_back(std::move(piece));
            }
            for (SpannedText& part : parts) part = toByteSymbols(part);
            return parts;
        });
    }
    std::string name() const override { return regex_ ? "ByteLevel (GPT-2's pattern)" : "ByteLevel"; }
    bool writesByteSymbols() const override { return true; }

private:
    bool addPrefixSpace_;
    std::optional<Pattern> regex_;
};

enum class PrependScheme { Always, First, Never };

// SentencePiece's view of spaces (Kudo & Richardson 2018): each " " becomes "▁", a "▁" is put
// before the text, and with split the text is cut before each "▁".
class Metaspace final : public PreTokenizer {
public:
    Metaspace(std::string replacement, PrependScheme scheme, bool split)
        : replacement_(std::move(replacement)), scheme_(scheme), split_(split)
    {
    }
    Status split(Pieces& pieces) const override
    {
        const char32_t mark = utf8::decodeAt(replacement_, 0).codePoint;
        return cutEach(pieces, [&](SpannedText& piece) -> Expected<Pieces> {
            for (utf8::SpannedChar& ch : piece)
                if (ch.codePoint == U' ') ch.codePoint = mark;
            const bool startsWithMark = !piece.empty() && piece.front().codePoint == mark;
            // "first": only the piece the typed text begins with.
            const bool atStart = piece.empty() || piece.front().byteBegin == 0;
            if (!startsWithMark && (scheme_ == PrependScheme::Always || (scheme_ == PrependScheme::First && atStart)))
                insertSpanned(piece, 0, replacement_);
            if (!split_) return Pieces{std::move(piece)};
            return splitAtMatches(piece, characterMatches(piece, [mark](char32_t c) { return c == mark; }),
                                  SplitBehavior::MergedWithNext);
        });
    }
    std::string name() const override { return "Metaspace"; }

private:
    std::string replacement_;
    PrependScheme scheme_;
    bool split_;
};

// Pieces cut at single characters for which `test` holds, with `behavior`.
template <class Test>
class CharacterSplit final : public PreTokenizer {
public:
    CharacterSplit(std::string name, Test test, SplitBehavior behavior)
        : name_(std::move(name)), test_(test), behavior_(behavior)
    {
    }
    Status split(Pieces& pieces) const override
    {
        return cutEach(pieces, [this](const SpannedText& piece) -> Expected<Pieces> {
            return splitAtMatches(piece, characterMatches(piece, test_), behavior_);
        });
    }
    std::string name() const override { return name_; }

private:
    std::string name_;
    Test test_;
    SplitBehavior behavior_;
};

template <class Test>
std::shared_ptr<const PreTokenizer> characterSplit(std::string name, Test test, SplitBehavior behavior)
{
    return std::make_shared<CharacterSplit<Test>>(std::move(name), test, behavior);
}

// Rust's char::is_numeric: the N* categories.
bool isDigit(char32_t c) { return unicode::isNumber(c); }
// tokenizers' is_punc: ASCII punctuation or a P* character.
bool isPunctuationChar(char32_t c)
{
    return (c < 0x80 && c > 0x20 && c != 0x7F && !((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) ||
           unicode::isPunctuation(c);
}
bool isSpaceChar(char32_t c) { return unicode::isWhiteSpace(c); }

class Sequence final : public PreTokenizer {
public:
    explicit Sequence(std::vector<std::shared_ptr<const PreTokenizer>> steps) : steps_(std::move(steps)) {}
    Status split(Pieces& pieces) const override
    {
        for (const auto& step : steps_)
            if (Status s = step->split(pieces); !s) return s;
        return {};
    }
    std::string name() const override
    {
        std::string out = "Sequence[";
        for (std::size_t i = 0; i < steps_.size(); ++i) out += (i ? ", " : "") + steps_[i]->name();
        return out + "]";
    }
    bool writesByteSymbols() const override
    {
        for (const auto& step : steps_)
            if (step->writesByteSymbols()) return true;
        return false;
    }

private:
    std::vector<std::shared_ptr<const PreTokenizer>> steps_;
};

Expected<PrependScheme> prependScheme(const Json& spec, const std::string& what)
{
    // Older files say add_prefix_space instead of prepend_scheme.
    if (const auto it = spec.find("prepend_scheme"); it != spec.end() && !it->is_null()) {
        if (!it->is_string()) return Error{what + "'s prepend_scheme is not a string"};
        const std::string scheme = it->get<std::string>();
        if (scheme == "always") return PrependScheme::Always;
        if (scheme == "first") return PrependScheme::First;
        if (scheme == "never") return PrependScheme::Never;
        return Error{what + ": prepend_scheme '" + scheme + "' is not supported"};
    }
    Expected<bool> add = boolField(spec, "add_prefix_space", what, true);
    if (!add) return Error{add.error()};
    return *add ? PrependScheme::Always : PrependScheme::Never;
}

Expected<std::shared_ptr<const PreTokenizer>> parseByteLevel(const Json& spec, const std::string& what)
{
    Expected<bool> prefix = boolField(spec, "add_prefix_space", what, true);
    Expected<bool> useRegex = boolField(spec, "use_regex", what, true);
    if (!prefix) return Error{prefix.error()};
    if (!useRegex) return Error{useRegex.error()};
    std::optional<Pattern> regex;
    if (*useRegex) {
        Expected<Pattern> gpt2 = Pattern::regex(kGpt2Pattern);
        if (!gpt2) return Error{gpt2.error()};
        regex = std::move(*gpt2);
    }
    return std::shared_ptr<const PreTokenizer>(std::make_shared<ByteLevel>(*prefix, std::move(regex)));
}

}  // namespace

SpannedText toByteSymbols(const SpannedText& text)
{
    SpannedText out;
    out.reserve(text.size());
    std::string bytes;
    for (const utf8::SpannedChar& ch : text) {
        bytes.clear();
        utf8::append(bytes, ch.codePoint);
        for (const char byte : bytes)
            out.push_back({byteToSymbol(static_cast<std::uint8_t>(byte)), ch.byteBegin, ch.byteEnd});
    }
    return out;
}

Expected<std::shared_ptr<const PreTokenizer>> parsePreTokenizer(const nlohmann::json& spec)
{
    using Result = std::shared_ptr<const PreTokenizer>;
    if (spec.is_null()) return Result{};
    Expected<std::string> type = componentType(spec, "the pre_tokenizer");
    if (!type) return Error{type.error()};
    const std::string what = "pre-tokenizer " + *type;
    if (*type == "Split") {
        Expected<Pattern> pattern = parsePattern(spec, what);
        if (!pattern) return Error{pattern.error()};
        Expected<std::string> behaviorName = stringField(spec, "behavior", what);
        if (!behaviorName) return Error{behaviorName.error()};
        Expected<SplitBehavior> behavior = parseSplitBehavior(*behaviorName);
        if (!behavior) return Error{what + ": " + behavior.error()};
        Expected<bool> invert = boolField(spec, "invert", what, false);
        if (!invert) return Error{invert.error()};
        return Result(std::make_shared<Split>(std::move(*pattern), *behavior, *invert));
    }
    if (*type == "ByteLevel") return parseByteLevel(spec, what);
    if (*type == "Metaspace") {
        Expected<std::string> replacement = stringField(spec, "replacement", what, std::string("\u2581"));
        if (!replacement) return Error{replacement.error()};
        if (utf8::decodeWithSpans(*replacement).size() != 1) return Error{what + ": the replacement is not one character"};
        Expected<PrependScheme> scheme = prependScheme(spec, what);
        if (!scheme) return Error{scheme.error()};
        Expected<bool> split = boolField(spec, "split", what, true);
        if (!split) return Error{split.error()};
        return Result(std::make_shared<Metaspace>(std::move(*replacement), *scheme, *split));
    }
    if (*type == "Digits") {
        Expected<bool> individual = boolField(spec, "individual_digits", what, false);
        if (!individual) return Error{individual.error()};
        return characterSplit(*individual ? "Digits (one by one)" : "Digits", &isDigit,
                              *individual ? SplitBehavior::Isolated : SplitBehavior::Contiguous);
    }
    if (*type == "Punctuation") {
        Expected<std::string> behaviorName = stringField(spec, "behavior", what, std::string("Isolated"));
        if (!behaviorName) return Error{behaviorName.error()};
        Expected<SplitBehavior> behavior = parseSplitBehavior(*behaviorName);
        if (!behavior) return Error{what + ": " + behavior.error()};
        return characterSplit("Punctuation", &isPunctuationChar, *behavior);
    }
    if (*type == "Whitespace") {
        // \w+|[^\w\s]+, the matches kept.
        Expected<Pattern> words = Pattern::regex(R"(\w+|[^\w\s]+)");
        if (!words) return Error{words.error()};
        return Result(std::make_shared<Split>(std::move(*words), SplitBehavior::Removed, true));
    }
    if (*type == "WhitespaceSplit") return characterSplit("WhitespaceSplit", &isSpaceChar, SplitBehavior::Removed);
    if (*type == "BertPreTokenizer") {
        std::vector<Result> steps = {characterSplit("WhitespaceSplit", &isSpaceChar, SplitBehavior::Removed),
                                     characterSplit("Punctuation", &isPunctuationChar, SplitBehavior::Isolated)};
        return Result(std::make_shared<Sequence>(std::move(steps)));
    }
    if (*type == "Sequence") {
        Expected<std::vector<Result>> steps = parseSequence<PreTokenizer>(spec, "pretokenizers", what, parsePreTokenizer);
        if (!steps) return Error{steps.error()};
        return Result(std::make_shared<Sequence>(std::move(*steps)));
    }
    return Error{"pre-tokenizer " + *type + " is not supported"};
}

}  // namespace qkv::tokenizer_json
