#include "core/text/bert_basic_tokenizer.hpp"

#include "core/text/unicode_properties.hpp"
#include "core/text/utf8.hpp"

namespace qkv {

namespace {

bool isKeptControl(char32_t c) { return c == '\t' || c == '\n' || c == '\r'; }

// Step 1: what the cleaning drops.
bool isDropped(char32_t c)
{
    return c == 0 || c == utf8::kReplacementCharacter || (unicode::isOther(c) && !isKeptControl(c));
}

// Steps 1 and 3: BERT's _is_whitespace (\t \n \r and Zs, which the cleaning turns into spaces),
// then the split on White_Space, which also breaks at U+2028 and U+2029.
bool isWordBreak(char32_t c) { return unicode::isWhiteSpace(c) || unicode::isSpaceSeparator(c); }

class WordBuilder {
public:
    WordBuilder(std::vector<BasicWord>& words, std::size_t maxWords) : words_(words), maxWords_(maxWords) {}

    bool full() const { return words_.size() > maxWords_; }

    void add(char32_t c, std::size_t sourceBegin, std::size_t sourceEnd)
    {
        if (!open_) {
            words_.emplace_back();
            open_ = true;
        }
        BasicWord& word = words_.back();
        word.charOffsets.push_back(word.text.size());
        utf8::append(word.text, c);
        word.sourceBegin.push_back(sourceBegin);
        word.sourceEnd.push_back(sourceEnd);
        lastWord_ = words_.size() - 1;
        hasLast_ = true;
    }

    // A character that normalisation removed (a combining accent): its bytes join the last
    // character added since the last whitespace, so the spans still cover everything typed.
    void absorb(std::size_t sourceEnd)
    {
        if (hasLast_) words_[lastWord_].sourceEnd.back() = sourceEnd;
    }

    // Ends the current word (punctuation stands alone; a removed accent may still join it).
    void close()
    {
        if (open_) words_.back().charOffsets.push_back(words_.back().text.size());
        open_ = false;
    }

    // Whitespace: ends the word, and nothing after it joins what came before.
    void breakAtWhitespace()
    {
        close();
        hasLast_ = false;
    }

private:
    std::vector<BasicWord>& words_;
    std::size_t maxWords_;
    bool open_ = false;
    bool hasLast_ = false;
    std::size_t lastWord_ = 0;
};

// Steps 4 and 5 for one character of a word.
void addNormalised(WordBuilder& builder, const utf8::SpannedChar& ch, const BertBasicOptions& options)
{
    char32_t lowered[3];
    const int loweredCount = options.lowerCase ? unicode::appendLowerCase(ch.codePoint, lowered) : 1;
    if (!options.lowerCase) lowered[0] = ch.codePoint;

    bool anyKept = false;
    for (int i = 0; i < loweredCount; ++i) {
        char32_t stripped[3];
        const int strippedCount =
            options.stripAccents ? unicode::appendAccentStripped(lowered[i], stripped) : 1;
        if (!options.stripAccents) stripped[0] = lowered[i];
        for (int k = 0; k < strippedCount; ++k) {
            anyKept = true;
            if (isBertPunctuation(stripped[k])) {
                builder.close();
                builder.add(stripped[k], ch.byteBegin, ch.byteEnd);
                builder.close();
            } else {
                builder.add(stripped[k], ch.byteBegin, ch.byteEnd);
            }
        }
    }
    if (!anyKept) builder.absorb(ch.byteEnd);
}

}  // namespace

bool isBertPunctuation(char32_t c)
{
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126))
        return true;
    return unicode::isPunctuation(c);
}

std::vector<BasicWord> bertBasicTokenize(std::string_view text, std::size_t begin, std::size_t end,
                                         const BertBasicOptions& options, std::size_t maxWords)
{
    std::vector<BasicWord> words;
    WordBuilder builder(words, maxWords);
    for (std::size_t at = begin; at < end && !builder.full();) {
        const utf8::Decoded d = utf8::decodeAt(text.substr(0, end), at);
        const utf8::SpannedChar ch{d.codePoint, at, at + d.bytes};
        at += d.bytes;
        if (isDropped(ch.codePoint)) continue;
        if (isWordBreak(ch.codePoint)) {
            builder.breakAtWhitespace();
        } else if (options.splitCjkIdeographs && unicode::isCjkIdeograph(ch.codePoint)) {
            // Step 2 puts spaces around the ideograph.
            builder.breakAtWhitespace();
            addNormalised(builder, ch, options);
            builder.breakAtWhitespace();
        } else {
            addNormalised(builder, ch, options);
        }
    }
    builder.breakAtWhitespace();
    return words;
}

}  // namespace qkv
