#include "core/text/byte_level_bpe_tokenizer.hpp"

#include <cstdio>
#include <functional>
#include <queue>

#include "core/common/limits.hpp"
#include "core/text/gpt2_pretokenizer.hpp"
#include "core/text/utf8.hpp"

namespace qkv {

namespace {

// Symbols of one pre-token as a linked list over positions, so a merge is O(1) and positions keep
// their order (a merged symbol lives at its left part's position).
struct MergeWorkspace {
    std::string bytes;                  // the pre-token's UTF-8 bytes
    std::vector<std::size_t> byteChar;  // for each byte, the index of its character
    std::vector<std::int32_t> symbol;  // symbol index at each position
    std::vector<std::int32_t> next;    // next live position, or -1
    std::vector<std::int32_t> prev;    // previous live position, or -1
    std::vector<bool> alive;
    std::vector<std::uint32_t> byteEnd;  // one past the last byte the position's symbol covers

    struct Candidate {
        std::int32_t rank;
        std::int32_t position;
        std::int32_t left;   // the symbols the pair had when it was queued
        std::int32_t right;
        bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : position > o.position; }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
    std::vector<Candidate> deferred;
};

const ByteLevelBpe::Merge* findMerge(const ByteLevelBpe& bpe, std::int32_t left, std::int32_t right)
{
    const std::uint64_t key = (static_cast<std::uint64_t>(left) << 32) | static_cast<std::uint32_t>(right);
    const auto it = bpe.merges.find(key);
    return it == bpe.merges.end() ? nullptr : &it->second;
}

void queuePair(const ByteLevelBpe& bpe, MergeWorkspace& w, std::int32_t position, std::vector<MergeWorkspace::Candidate>& into)
{
    if (position < 0) return;
    const std::int32_t right = w.next[static_cast<std::size_t>(position)];
    if (right < 0) return;
    const std::int32_t l = w.symbol[static_cast<std::size_t>(position)];
    const std::int32_t r = w.symbol[static_cast<std::size_t>(right)];
    if (const auto* merge = findMerge(bpe, l, r)) into.push_back({merge->rank, position, l, r});
}

// Step 2, GPT-2's bpe(): while some adjacent pair has a merge, take the pair with the lowest rank and
// merge all its occurrences, left to right. Done with a queue ordered by (rank, position):
// the occurrences of one rank are merged together, and pairs they create wait until that rank
// is done, which gives exactly the sweep's result in O(L log L) for a piece of L bytes.
void applyMerges(const ByteLevelBpe& bpe, MergeWorkspace& w)
{
    std::vector<MergeWorkspace::Candidate> initial;
    for (std::int32_t p = 0; p < static_cast<std::int32_t>(w.symbol.size()); ++p) queuePair(bpe, w, p, initial);
    for (const auto& c : initial) w.queue.push(c);

    while (!w.queue.empty()) {
        const std::int32_t rank = w.queue.top().rank;
        w.deferred.clear();
        while (!w.queue.empty() && w.queue.top().rank == rank) {
            const MergeWorkspace::Candidate c = w.queue.top();
            w.queue.pop();
            const auto p = static_cast<std::size_t>(c.position);
            // Stale when either side has merged since: a symbol only ever grows, so equality
            // of both symbols with a live right neighbour means the pair is still there.
            if (!w.alive[p] || w.symbol[p] != c.left) continue;
            const std::int32_t q = w.next[p];
            if (q < 0 || w.symbol[static_cast<std::size_t>(q)] != c.right) continue;

            const auto qs = static_cast<std::size_t>(q);
            w.symbol[p] = findMerge(bpe, c.left, c.right)->result;
            w.byteEnd[p] = w.byteEnd[qs];
            w.alive[qs] = false;
            w.next[p] = w.next[qs];
            if (w.next[qs] >= 0) w.prev[static_cast<std::size_t>(w.next[qs])] = c.position;
            queuePair(bpe, w, w.prev[p], w.deferred);
            queuePair(bpe, w, c.position, w.deferred);
        }
        for (const auto& c : w.deferred) w.queue.push(c);
    }
}

void appendHexByte(std::string& out, unsigned byte)
{
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", byte & 0xFFu);
    out += hex;
}

// Step 1 for one pre-token: its UTF-8 bytes as byte symbols, one position per byte.
void loadPiece(const ByteLevelBpe& bpe, const std::vector<utf8::SpannedChar>& chars, const CharRange& range,
               MergeWorkspace& w)
{
    w.bytes.clear();
    w.byteChar.clear();
    for (std::size_t c = range.first; c < range.last; ++c) {
        utf8::append(w.bytes, chars[c].codePoint);  // a malformed byte was read as U+FFFD
        w.byteChar.resize(w.bytes.size(), c);
    }
    const std::size_t n = w.bytes.size();
    w.symbol.resize(n);
    w.next.resize(n);
    w.prev.resize(n);
    w.alive.assign(n, true);
    w.byteEnd.resize(n);
    for (std::size_t b = 0; b < n; ++b) {
        w.symbol[b] = bpe.byteSymbols[static_cast<unsigned char>(w.bytes[b])];
        w.next[b] = b + 1 < n ? static_cast<std::int32_t>(b + 1) : -1;
        w.prev[b] = static_cast<std::int32_t>(b) - 1;
        w.byteEnd[b] = static_cast<std::uint32_t>(b + 1);
    }
}

// Step 3: one token per symbol left, spanning the characters its bytes belong to. False when
// the tokens would exceed maxTokens.
bool appendPieceTokens(const ByteLevelBpe& bpe, const std::vector<utf8::SpannedChar>& chars,
                       const MergeWorkspace& w, std::size_t maxTokens, std::vector<SubwordToken>& tokens)
{
    for (std::int32_t p = 0; p >= 0; p = w.next[static_cast<std::size_t>(p)]) {
        const auto first = static_cast<std::size_t>(p);
        const auto symbol = static_cast<std::size_t>(w.symbol[first]);
        const std::string& piece = bpe.symbols[symbol];
        tokens.push_back({bpe.symbolTokenIds[symbol], piece, displayPiece(piece), chars[w.byteChar[first]].byteBegin,
                          chars[w.byteChar[w.byteEnd[first] - 1]].byteEnd, false});
        if (tokens.size() > maxTokens) return false;
    }
    return true;
}

}  // namespace

namespace {

// The bytes of a piece of byte symbols; false (bytes unspecified) when a character is none.
bool symbolBytes(std::string_view piece, std::string& bytes)
{
    for (const utf8::SpannedChar& ch : utf8::decodeWithSpans(piece)) {
        const auto byte = symbolToByte(ch.codePoint);
        if (!byte) return false;
        bytes += static_cast<char>(*byte);
    }
    return true;
}

}  // namespace

std::string pieceBytes(std::string_view piece)
{
    std::string bytes;
    return symbolBytes(piece, bytes) ? bytes : std::string(piece);
}

std::string displayPiece(std::string_view piece)
{
    // Back from byte symbols to bytes; a piece with a character that is no byte symbol is shown as is.
    std::string bytes;
    return symbolBytes(piece, bytes) ? visibleText(bytes) : std::string(piece);
}

std::string visibleText(std::string_view text)
{
    std::string out;
    for (std::size_t at = 0; at < text.size();) {
        const utf8::Decoded d = utf8::decodeAt(text, at);
        if (!d.valid) appendHexByte(out, static_cast<unsigned char>(text[at]));
        else if (d.codePoint == ' ') out += "\u00B7";
        else if (d.codePoint == '\n') out += "\u21B5";
        else if (d.codePoint == '\t') out += "\u2192";
        else if (d.codePoint < 0x20 || d.codePoint == 0x7F) appendHexByte(out, d.codePoint);
        else out.append(text, at, d.bytes);
        at += d.bytes;
    }
    return out;
}

Expected<SubwordTokenization> byteLevelBpeTokenize(const ByteLevelBpe& bpe, std::string_view text,
                                                   const ByteLevelBpeOptions& options)
{
    if (Status s = checkSentenceBytes(text); !s) return Error{s.error()};
    if (bpe.symbols.size() < 256 || bpe.symbolTokenIds.size() != bpe.symbols.size())
        return Error{"the byte-level BPE tokenizer has no vocabulary loaded"};
    const std::size_t maxTokens = static_cast<std::size_t>(limits::maxTokens);
    SubwordTokenization result;
    std::vector<SubwordToken>& tokens = result.tokens;

    const std::vector<std::string> specials =
        options.keepTypedSpecialTokens ? bpe.specialTokens() : std::vector<std::string>{};
    MergeWorkspace workspace;
    // An added mark spans nothing: <s> at the start of the text, </s> at its end.
    if (options.beginId >= 0) tokens.push_back({options.beginId, "<s>", "<s>", 0, 0, true});
    for (const TextSegment& segment : splitOnSpecialTokens(text, specials)) {
        if (segment.specialIndex >= 0) {
            const std::string& special = specials[static_cast<std::size_t>(segment.specialIndex)];
            tokens.push_back({*bpe.id(special), special, special, segment.begin, segment.end, true});
            if (tokens.size() > maxTokens) return tooManyTokens();
            continue;
        }
        std::vector<utf8::SpannedChar> chars = utf8::decodeWithSpans(text.substr(0, segment.end).substr(segment.begin));
        for (auto& ch : chars) {
            ch.byteBegin += segment.begin;
            ch.byteEnd += segment.begin;
        }
        for (const CharRange& range : gpt2PreTokenize(chars)) {
            loadPiece(bpe, chars, range, workspace);
            applyMerges(bpe, workspace);
            if (!appendPieceTokens(bpe, chars, workspace, maxTokens, tokens)) return tooManyTokens();
        }
    }
    if (options.endId >= 0) tokens.push_back({options.endId, "</s>", "</s>", text.size(), text.size(), true});
    if (tokens.size() > maxTokens) return tooManyTokens();
    return result;
}

}  // namespace qkv
