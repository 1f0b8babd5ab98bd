#include "core/text/subword_tokens.hpp"

#include "core/common/limits.hpp"

namespace qkv {

std::vector<std::int32_t> SubwordTokenization::ids() const
{
    std::vector<std::int32_t> out;
    out.reserve(tokens.size());
    for (const SubwordToken& token : tokens) out.push_back(token.id);
    return out;
}

std::vector<Token> SubwordTokenization::chips() const
{
    std::vector<Token> out;
    out.reserve(tokens.size());
    for (const SubwordToken& token : tokens) out.push_back(Token{token.display, token.byteBegin, token.byteEnd});
    return out;
}

std::vector<TextSegment> splitOnSpecialTokens(std::string_view text, const std::vector<std::string>& specials)
{
    std::vector<TextSegment> segments;
    std::size_t plainBegin = 0;
    std::size_t at = 0;
    while (at < text.size()) {
        int found = -1;
        std::size_t foundLength = 0;
        for (std::size_t s = 0; s < specials.size(); ++s) {
            const std::string& special = specials[s];
            if (!special.empty() && special.size() > foundLength && text.substr(at).starts_with(special)) {
                found = static_cast<int>(s);
                foundLength = special.size();
            }
        }
        if (found < 0) {
            ++at;
            continue;
        }
        if (at > plainBegin) segments.push_back({plainBegin, at, -1});
        segments.push_back({at, at + foundLength, found});
        at += foundLength;
        plainBegin = at;
    }
    if (plainBegin < text.size() || segments.empty()) segments.push_back({plainBegin, text.size(), -1});
    return segments;
}

Status checkSentenceBytes(std::string_view text)
{
    if (text.size() > limits::maxSentenceBytes)
        return Error{"the text is too long (" + std::to_string(text.size()) + " bytes; the limit is " +
                     std::to_string(limits::maxSentenceBytes) + ")"};
    return {};
}

Error tooManyTokens()
{
    return Error{"the sentence has more than " + std::to_string(limits::maxTokens) +
                 " tokens, the limit; shorten it"};
}

}  // namespace qkv
