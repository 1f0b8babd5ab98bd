#include "core/text/byte_level_bpe_vocab.hpp"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/io/file_bytes.hpp"
#include "core/text/utf8.hpp"
#include "core/text/vocabulary_files.hpp"

namespace qkv {

namespace {

constexpr std::string_view kEndOfText = "<|endoftext|>";

bool isPrintableByte(unsigned b)
{
    return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

// Reads vocab.json as SAX events straight into the token map: one flat object, no DOM.
class VocabReader final : public nlohmann::json_sax<nlohmann::json> {
public:
    explicit VocabReader(ByteLevelBpe& bpe) : bpe_(bpe) {}

    std::string error;  // empty while all is well
    bool sawObject = false;

    bool null() override { return notAnId("null"); }
    bool boolean(bool) override { return notAnId("true or false"); }
    bool number_integer(number_integer_t value) override
    {
        if (value < 0) return fail("the id of " + quotedToken(key_) + " is negative (" + std::to_string(value) + ")");
        return add(static_cast<std::uint64_t>(value));
    }
    bool number_unsigned(number_unsigned_t value) override { return add(value); }
    bool number_float(number_float_t, const string_t& text) override { return notAnId(text); }
    bool string(string_t&) override { return notAnId("a string"); }
    bool binary(binary_t&) override { return notAnId("binary data"); }
    bool start_object(std::size_t) override
    {
        if (depth_++ > 0 || sawObject) return notFlat();
        sawObject = true;
        return true;
    }
    bool key(string_t& key) override
    {
        key_ = std::move(key);
        return true;
    }
    bool end_object() override
    {
        --depth_;
        return true;
    }
    bool start_array(std::size_t) override { return notFlat(); }
    bool end_array() override { return notFlat(); }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override
    {
        return fail("is not valid JSON near byte " + std::to_string(position) + " (" + ex.what() + ")");
    }

private:
    bool fail(std::string message)
    {
        if (error.empty()) error = std::move(message);
        return false;
    }
    bool notFlat() { return fail("must be one object of \"token\": id pairs, with nothing nested"); }
    bool notAnId(std::string_view what)
    {
        if (depth_ == 0) return notFlat();
        return fail("the id of " + quotedToken(key_) + " is " + std::string(what) + ", not a whole number");
    }
    bool add(std::uint64_t id)
    {
        if (depth_ == 0) return notFlat();
        if (id >= limits::maxVocabularyEntries)
            return fail("the id of " + quotedToken(key_) + " is " + std::to_string(id) + "; ids must be below " +
                        std::to_string(limits::maxVocabularyEntries));
        if (bpe_.ids.size() >= limits::maxVocabularyEntries)
            return fail("has more than " + std::to_string(limits::maxVocabularyEntries) + " tokens");
        if (key_.size() > limits::maxVocabularyTokenBytes)
            return fail("a token is " + std::to_string(key_.size()) + " bytes long; the limit is " +
                        std::to_string(limits::maxVocabularyTokenBytes));
        if (key_.empty()) return fail("has an empty token (with id " + std::to_string(id) + ")");
        const auto tokenId = static_cast<std::int32_t>(id);
        if (const auto [it, inserted] = owners_.emplace(tokenId, key_); !inserted)
            return fail("gives the id " + std::to_string(id) + " to both " + quotedToken(it->second) + " and " +
                        quotedToken(key_));
        if (!bpe_.ids.emplace(key_, tokenId).second) return fail("lists the token " + quotedToken(key_) + " twice");
        bpe_.idCount = std::max(bpe_.idCount, static_cast<std::size_t>(id) + 1);
        return true;
    }

    ByteLevelBpe& bpe_;
    std::unordered_map<std::int32_t, std::string> owners_;
    std::string key_;
    int depth_ = 0;
};

Status parseVocabJson(std::string_view json, const std::string& source, ByteLevelBpe& bpe)
{
    if (json.empty()) return Error{source + ": is empty; vocab.json maps each token to its id"};
    VocabReader reader(bpe);
    bool ok = false;
    try {
        ok = nlohmann::json::sax_parse(json.begin(), json.end(), &reader);
    } catch (const std::exception& e) {  // the parser reports through the reader; this is a backstop
        return Error{source + ": cannot be read as JSON (" + e.what() + ")"};
    }
    if (!reader.error.empty()) return Error{source + ": " + reader.error};
    if (!ok || !reader.sawObject) return Error{source + ": must be one object of \"token\": id pairs"};
    if (bpe.ids.empty()) return Error{source + ": has no tokens"};
    return {};
}

// Interns a symbol; returns its index.
std::int32_t intern(ByteLevelBpe& bpe, TokenIdMap& symbolIndex, std::string_view symbol)
{
    if (const auto it = symbolIndex.find(symbol); it != symbolIndex.end()) return it->second;
    const auto index = static_cast<std::int32_t>(bpe.symbols.size());
    bpe.symbols.emplace_back(symbol);
    const auto id = bpe.id(symbol);
    bpe.symbolTokenIds.push_back(id ? *id : -1);
    symbolIndex.emplace(std::string(symbol), index);
    return index;
}

Status parseMerges(std::string_view text, const std::string& source, ByteLevelBpe& bpe, TokenIdMap& symbolIndex)
{
    if (text.empty()) return Error{source + ": is empty; merges.txt lists one merge \"left right\" per line"};
    std::size_t at = 0;
    std::size_t lineNumber = 0;
    std::string merged;
    while (at < text.size()) {
        ++lineNumber;
        const std::size_t newline = text.find('\n', at);
        std::string_view line =
            text.substr(at, newline == std::string_view::npos ? std::string_view::npos : newline - at);
        at = newline == std::string_view::npos ? text.size() : newline + 1;
        if (line.ends_with('\r')) line.remove_suffix(1);
        if (line.empty() || (lineNumber == 1 && line.starts_with("#version"))) continue;

        const std::string where = source + ": line " + std::to_string(lineNumber);
        if (line.size() > 2 * limits::maxVocabularyTokenBytes) return Error{where + " is too long"};
        if (utf8::firstInvalidByte(line) != line.size()) return Error{where + " is not UTF-8 text"};
        const std::size_t space = line.find(' ');
        if (space == 0 || space == std::string_view::npos || space + 1 == line.size() ||
            line.find(' ', space + 1) != std::string_view::npos)
            return Error{where + " (" + quotedToken(line) + ") is not two symbols separated by one space"};
        if (++bpe.mergeLines > limits::maxVocabularyEntries)
            return Error{source + ": has more than " + std::to_string(limits::maxVocabularyEntries) + " merges"};

        const std::string_view left = line.substr(0, space);
        const std::string_view right = line.substr(space + 1);
        merged.assign(left).append(right);
        if (!bpe.ids.contains(std::string_view(merged))) {
            ++bpe.unusableMerges;
            continue;
        }
        const std::int32_t l = intern(bpe, symbolIndex, left);
        const std::int32_t r = intern(bpe, symbolIndex, right);
        const std::int32_t result = intern(bpe, symbolIndex, merged);
        const std::uint64_t key = (static_cast<std::uint64_t>(l) << 32) | static_cast<std::uint32_t>(r);
        bpe.merges[key] = {static_cast<std::int32_t>(bpe.mergeLines - 1), result};
    }
    return {};  // a header alone is a valid, if degenerate, tokenizer: bytes only
}

}  // namespace

char32_t byteToSymbol(std::uint8_t byte)
{
    if (isPrintableByte(byte)) return byte;
    // The n-th non-printable byte (in increasing order) becomes U+0100 + n.
    char32_t n = 0;
    for (unsigned b = 0; b < byte; ++b)
        if (!isPrintableByte(b)) ++n;
    return 0x100 + n;
}

std::optional<std::uint8_t> symbolToByte(char32_t symbol)
{
    if (symbol < 0x100) {
        if (isPrintableByte(symbol)) return static_cast<std::uint8_t>(symbol);
        return std::nullopt;
    }
    char32_t n = 0;
    for (unsigned b = 0; b < 256; ++b) {
        if (isPrintableByte(b)) continue;
        if (0x100 + n == symbol) return static_cast<std::uint8_t>(b);
        ++n;
    }
    return std::nullopt;
}

std::optional<std::int32_t> ByteLevelBpe::id(std::string_view token) const
{
    const auto it = ids.find(token);
    if (it == ids.end()) return std::nullopt;
    return it->second;
}

std::vector<std::string> ByteLevelBpe::specialTokens() const
{
    if (ids.contains(kEndOfText)) return {std::string(kEndOfText)};
    return {};
}

Expected<ByteLevelBpe> parseByteLevelBpe(std::string_view vocabJson, std::string_view mergesText,
                                         std::string_view vocabName, std::string_view mergesName)
{
    const std::string vocabSource(vocabName);
    ByteLevelBpe bpe;
    if (Status s = parseVocabJson(vocabJson, vocabSource, bpe); !s) return Error{s.error()};

    TokenIdMap symbolIndex;
    for (unsigned b = 0; b < 256; ++b) {
        std::string symbol;
        utf8::append(symbol, byteToSymbol(static_cast<std::uint8_t>(b)));
        if (!bpe.ids.contains(std::string_view(symbol))) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02X", b);
            return Error{vocabSource + ": has no token for the byte " + hex + " (" + quotedToken(symbol) +
                         "); a byte-level BPE vocabulary has all 256"};
        }
        bpe.byteSymbols[b] = intern(bpe, symbolIndex, symbol);
    }
    if (Status s = parseMerges(mergesText, std::string(mergesName), bpe, symbolIndex); !s) return Error{s.error()};
    return bpe;
}

Expected<ByteLevelBpe> loadByteLevelBpe(const std::string& vocabPath, const std::string& mergesPath)
{
    auto vocab = readFileBytes(vocabPath, limits::maxTokenizerFileBytes, "a vocabulary");
    if (!vocab) return Error{vocab.error()};
    auto merges = readFileBytes(mergesPath, limits::maxTokenizerFileBytes, "a merges file");
    if (!merges) return Error{merges.error()};
    return parseByteLevelBpe(*vocab, *merges, vocabPath, mergesPath);
}

}  // namespace qkv
