#include "core/text/wordpiece_tokenizer.hpp"

#include "core/common/limits.hpp"
#include "core/text/bert_basic_tokenizer.hpp"

namespace qkv {

namespace {

constexpr std::string_view kContinuation = "##";

// Greedy longest-match-first over one word (Hugging Face's WordpieceTokenizer.tokenize).
// Appends the pieces, or one [UNK] for the whole word.
void appendWordPieces(const WordPieceVocab& vocab, const BasicWord& word, std::size_t maxChars,
                      std::vector<SubwordToken>& out, std::string& candidate)
{
    const std::size_t n = word.charCount();
    const auto span = [&](std::size_t first, std::size_t last) {  // characters [first, last)
        return std::pair{word.sourceBegin[first], word.sourceEnd[last - 1]};
    };
    const auto unknown = [&] {
        const auto [b, e] = span(0, n);
        out.push_back({vocab.unknownId, vocab.tokens[static_cast<std::size_t>(vocab.unknownId)],
                       vocab.tokens[static_cast<std::size_t>(vocab.unknownId)], b, e, false});
    };
    if (n > maxChars) {
        unknown();
        return;
    }
    const std::size_t firstPiece = out.size();
    for (std::size_t start = 0; start < n;) {
        const std::size_t prefix = start > 0 ? kContinuation.size() : 0;
        std::size_t end = n;
        std::optional<std::int32_t> match;
        for (; end > start; --end) {
            const std::size_t bytes = word.charOffsets[end] - word.charOffsets[start];
            if (bytes + prefix > vocab.longestTokenBytes) continue;  // no entry is that long
            candidate.assign(start > 0 ? kContinuation : std::string_view{});
            candidate.append(word.text, word.charOffsets[start], bytes);
            if ((match = vocab.id(candidate))) break;
        }
        if (!match) {
            out.resize(firstPiece);
            unknown();
            return;
        }
        const auto [b, e] = span(start, end);
        out.push_back({*match, candidate, candidate, b, e, false});
        start = end;
    }
}

SubwordToken specialToken(const WordPieceVocab& vocab, std::int32_t id, std::size_t at)
{
    const std::string& text = vocab.tokens[static_cast<std::size_t>(id)];
    return {id, text, text, at, at, true};
}

}  // namespace

Expected<SubwordTokenization> wordPieceTokenize(const WordPieceVocab& vocab, std::string_view text,
                                                const WordPieceOptions& options)
{
    if (Status s = checkSentenceBytes(text); !s) return Error{s.error()};
    if (vocab.unknownId < 0 || static_cast<std::size_t>(vocab.unknownId) >= vocab.tokens.size())
        return Error{"the vocabulary has no [UNK] token"};
    if (options.addClassAndSeparator && (vocab.classId < 0 || vocab.separatorId < 0))
        return Error{"the vocabulary has no [CLS] or no [SEP] token, which BERT's input needs"};

    SubwordTokenization result;
    std::vector<SubwordToken>& tokens = result.tokens;

    const std::size_t maxTokens = static_cast<std::size_t>(limits::maxTokens);
    const std::size_t separatorRoom = options.addClassAndSeparator ? 1 : 0;  // [SEP] comes last
    const auto tooMany = [&] { return tokens.size() + separatorRoom > maxTokens; };
    const BertBasicOptions basic{options.lowerCase, options.stripAccents.value_or(options.lowerCase),
                                 options.splitCjkIdeographs};

    if (options.addClassAndSeparator) tokens.push_back(specialToken(vocab, vocab.classId, 0));
    const std::vector<std::string> specials =
        options.keepTypedSpecialTokens ? vocab.specialTokens() : std::vector<std::string>{};
    std::string candidate;
    for (const TextSegment& segment : splitOnSpecialTokens(text, specials)) {
        if (segment.specialIndex >= 0) {
            const std::int32_t id = *vocab.id(specials[static_cast<std::size_t>(segment.specialIndex)]);
            const std::string& special = vocab.tokens[static_cast<std::size_t>(id)];
            tokens.push_back({id, special, special, segment.begin, segment.end, true});
        } else {
            // Every word gives at least one token: more words than the room left is too many.
            const std::size_t room = maxTokens - std::min(maxTokens, tokens.size() + separatorRoom);
            const auto words = bertBasicTokenize(text, segment.begin, segment.end, basic, room);
            if (words.size() > room) return tooManyTokens();
            for (const BasicWord& word : words) {
                appendWordPieces(vocab, word, options.maxInputCharsPerWord, tokens, candidate);
                if (tooMany()) return tooManyTokens();
            }
        }
        if (tooMany()) return tooManyTokens();
    }
    if (options.addClassAndSeparator) tokens.push_back(specialToken(vocab, vocab.separatorId, text.size()));
    return result;
}

}  // namespace qkv
