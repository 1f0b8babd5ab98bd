#include "core/text/tokenizer_json/spanned_text.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>

namespace qkv::tokenizer_json {

namespace {

// A regex over a sentence of at most limits::maxSentenceBytes: real pre-tokenizer patterns need
// a few steps per byte; a pattern that backtracks catastrophically hits this long before a
// second has passed.
constexpr std::uint32_t kMatchLimit = 50'000'000;
constexpr std::uint32_t kDepthLimit = 10'000;
constexpr std::uint32_t kHeapLimitKiB = 64 * 1024;

}  // namespace

std::string toUtf8(const SpannedText& text, std::vector<std::size_t>* charAtByte)
{
    std::string out;
    out.reserve(text.size());
    if (charAtByte) charAtByte->clear();
    for (std::size_t i = 0; i < text.size(); ++i) {
        const std::size_t before = out.size();
        utf8::append(out, text[i].codePoint);
        if (charAtByte) charAtByte->insert(charAtByte->end(), out.size() - before, i);
    }
    if (charAtByte) charAtByte->push_back(text.size());
    return out;
}

SpannedText charsSpanning(std::string_view utf8Text, std::size_t begin, std::size_t end)
{
    SpannedText out;
    for (const utf8::SpannedChar& ch : utf8::decodeWithSpans(utf8Text)) out.push_back({ch.codePoint, begin, end});
    return out;
}

void insertSpanned(SpannedText& text, std::size_t at, std::string_view utf8Text)
{
    std::size_t begin = 0, end = 0;
    if (at < text.size()) {
        begin = text[at].byteBegin;
        end = text[at].byteEnd;
    } else if (!text.empty()) {
        begin = end = text.back().byteEnd;
    }
    const SpannedText inserted = charsSpanning(utf8Text, begin, end);
    text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), inserted.begin(), inserted.end());
}

struct Pattern::Compiled {
    pcre2_code* code = nullptr;
    pcre2_match_context* context = nullptr;
    ~Compiled()
    {
        pcre2_match_context_free(context);
        pcre2_code_free(code);
    }
};

Pattern Pattern::literal(std::string text)
{
    Pattern p;
    p.literal_ = std::move(text);
    return p;
}

Expected<Pattern> Pattern::regex(const std::string& expression)
{
    int code = 0;
    PCRE2_SIZE offset = 0;
    auto compiled = std::make_shared<Compiled>();
    compiled->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(expression.data()), expression.size(),
                                   PCRE2_UTF | PCRE2_UCP, &code, &offset, nullptr);
    if (!compiled->code) {
        PCRE2_UCHAR message[256];
        pcre2_get_error_message(code, message, sizeof message);
        return Error{"the regex '" + expression + "' does not compile: " +
                     reinterpret_cast<const char*>(message) + " (at character " + std::to_string(offset) + ")"};
    }
    // JIT where the library has it: the same matches, several times faster. It honours the match
    // limit; its own stack bounds the depth.
    (void)pcre2_jit_compile(compiled->code, PCRE2_JIT_COMPLETE);
    compiled->context = pcre2_match_context_create(nullptr);
    pcre2_set_match_limit(compiled->context, kMatchLimit);
    pcre2_set_depth_limit(compiled->context, kDepthLimit);
    pcre2_set_heap_limit(compiled->context, kHeapLimitKiB);
    Pattern p;
    p.regex_ = std::move(compiled);
    p.expression_ = expression;
    return p;
}

std::string Pattern::describe() const
{
    // A status line names a long regex by its kind; messages about it quote it (see find()).
    if (!regex_) return "\"" + literal_ + "\"";
    return expression_.size() <= 24 ? "regex '" + expression_ + "'" : "a regex";
}

Expected<std::vector<Match>> Pattern::find(const SpannedText& text) const
{
    std::vector<std::size_t> charAtByte;
    const std::string subject = toUtf8(text, &charAtByte);
    std::vector<Match> matches;
    if (!regex_) {
        if (literal_.empty()) return matches;
        for (std::size_t at = subject.find(literal_); at != std::string::npos;
             at = subject.find(literal_, at + literal_.size()))
            matches.push_back({charAtByte[at], charAtByte[at + literal_.size()]});
        return matches;
    }
    std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> data(
        pcre2_match_data_create_from_pattern(regex_->code, nullptr), pcre2_match_data_free);
    const auto* bytes = reinterpret_cast<PCRE2_SPTR>(subject.data());
    PCRE2_SIZE at = 0;
    while (at <= subject.size()) {
        const int rc = pcre2_match(regex_->code, bytes, subject.size(), at, PCRE2_NO_UTF_CHECK, data.get(),
                                   regex_->context);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) {
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(rc, message, sizeof message);
            return Error{"the regex '" + expression_ + "' cannot be matched within its limits on this text (" +
                         reinterpret_cast<const char*>(message) + ")"};
        }
        const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data.get());
        const PCRE2_SIZE begin = ovector[0], end = ovector[1];
        if (end > begin) {
            matches.push_back({charAtByte[begin], charAtByte[end]});
            at = end;
        } else {
            // An empty match: step over one character.
            if (begin >= subject.size()) break;
            at = begin + 1;
            while (at < subject.size() && (static_cast<unsigned char>(subject[at]) & 0xC0) == 0x80) ++at;
        }
    }
    return matches;
}

}  // namespace qkv::tokenizer_json
