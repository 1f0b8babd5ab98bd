// GPT-2's byte-level BPE: bytes_to_unicode, the pre-token pattern, BPE merges (against GPT-2's
// own merge loop on random merge tables), chip labels, limits, and what vocab.json /
// merges.txt files are refused with.

#include <chrono>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "core/common/limits.hpp"
#include "core/text/byte_level_bpe_tokenizer.hpp"
#include "core/text/gpt2_pretokenizer.hpp"
#include "core/text/utf8.hpp"

namespace qkv {
namespace {

using Strings = std::vector<std::string>;
using Merges = std::vector<std::pair<std::string, std::string>>;

std::string symbolOf(unsigned byte)
{
    std::string out;
    utf8::append(out, byteToSymbol(static_cast<std::uint8_t>(byte)));
    return out;
}

std::string jsonString(const std::string& text)
{
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

// vocab.json with the 256 byte symbols, then each merge's result, then <|endoftext|>.
std::string vocabJsonFor(const Merges& merges, bool endOfText = true)
{
    Strings tokens;
    std::set<std::string> seen;
    for (unsigned b = 0; b < 256; ++b)
        if (seen.insert(symbolOf(b)).second) tokens.push_back(symbolOf(b));
    for (const auto& [l, r] : merges)
        if (seen.insert(l + r).second) tokens.push_back(l + r);
    if (endOfText) tokens.push_back("<|endoftext|>");
    std::string json = "{";
    for (std::size_t i = 0; i < tokens.size(); ++i)
        json += (i ? ", " : "") + jsonString(tokens[i]) + ": " + std::to_string(i);
    return json + "}";
}

std::string mergesTextFor(const Merges& merges)
{
    std::string text = "#version: 0.2\n";
    for (const auto& [l, r] : merges) text += l + " " + r + "\n";
    return text;
}

ByteLevelBpe bpeOf(const Merges& merges)
{
    auto bpe = parseByteLevelBpe(vocabJsonFor(merges), mergesTextFor(merges), "vocab.json", "merges.txt");
    EXPECT_TRUE(bpe.ok()) << bpe.error();
    return bpe.ok() ? std::move(*bpe) : ByteLevelBpe{};
}

Strings pieces(const ByteLevelBpe& bpe, std::string_view text)
{
    auto got = byteLevelBpeTokenize(bpe, text);
    EXPECT_TRUE(got.ok()) << got.error();
    Strings out;
    if (got.ok())
        for (const SubwordToken& token : got->tokens) out.push_back(token.piece);
    return out;
}

const std::string G = "\u0120";  // Ġ, the symbol of a space

const Merges kHelloWorld = {{"H", "e"}, {"l", "l"}, {"He", "ll"}, {"Hell", "o"}, {G, "Hello"},
                            {"w", "o"}, {"r", "l"}, {"rl", "d"}, {"wo", "rld"}, {G, "world"}};

TEST(ByteLevelBpe, BytesToUnicodeIsGpt2s)
{
    EXPECT_EQ(byteToSymbol(' '), char32_t{0x120});   // Ġ
    EXPECT_EQ(byteToSymbol('\n'), char32_t{0x10A});  // Ċ
    EXPECT_EQ(byteToSymbol('\t'), char32_t{0x109});  // ĉ
    EXPECT_EQ(byteToSymbol(0x00), char32_t{0x100});
    EXPECT_EQ(byteToSymbol(0x7F), char32_t{0x121});
    EXPECT_EQ(byteToSymbol(0xAD), char32_t{0x143});  // the soft hyphen byte is not printable
    EXPECT_EQ(byteToSymbol('A'), char32_t{'A'});
    EXPECT_EQ(byteToSymbol(0xE9), char32_t{0xE9});
    std::set<char32_t> symbols;
    for (unsigned b = 0; b < 256; ++b) {
        const char32_t s = byteToSymbol(static_cast<std::uint8_t>(b));
        symbols.insert(s);
        ASSERT_EQ(symbolToByte(s), std::optional<std::uint8_t>(static_cast<std::uint8_t>(b)));
    }
    EXPECT_EQ(symbols.size(), 256u);
    EXPECT_EQ(*symbols.rbegin(), char32_t{0x143});
    EXPECT_FALSE(symbolToByte(0x144).has_value());
    EXPECT_FALSE(symbolToByte(' ').has_value());
}

TEST(ByteLevelBpe, HelloWorldAsGpt2SplitsIt)
{
    const ByteLevelBpe bpe = bpeOf(kHelloWorld);
    EXPECT_EQ(pieces(bpe, " Hello world"), (Strings{G + "Hello", G + "world"}));
    EXPECT_EQ(pieces(bpe, "Hello world"), (Strings{"Hello", G + "world"}));
    auto got = byteLevelBpeTokenize(bpe, " Hello world");
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->tokens[0].id, *bpe.id(G + "Hello"));
    EXPECT_EQ(got->tokens[0].display, "\u00B7Hello");
    EXPECT_FALSE(got->tokens[0].special);
}

TEST(ByteLevelBpe, PreTokenPatternCases)
{
    const auto split = [](std::string_view text) {
        const auto chars = utf8::decodeWithSpans(text);
        Strings out;
        for (const CharRange& r : gpt2PreTokenize(chars))
            out.emplace_back(text.substr(chars[r.first].byteBegin, chars[r.last - 1].byteEnd - chars[r.first].byteBegin));
        return out;
    };
    EXPECT_EQ(split("Hello world"), (Strings{"Hello", " world"}));
    EXPECT_EQ(split("don't I'M they'll we've"), (Strings{"don", "'t", " I", "'", "M", " they", "'ll", " we", "'ve"}));
    EXPECT_EQ(split("a  b"), (Strings{"a", " ", " b"}));
    EXPECT_EQ(split("x   "), (Strings{"x", "   "}));
    EXPECT_EQ(split("\tx"), (Strings{"\t", "x"}));
    EXPECT_EQ(split("a\n\nb"), (Strings{"a", "\n", "\n", "b"}));
    EXPECT_EQ(split("hello123 world!!"), (Strings{"hello", "123", " world", "!!"}));
    EXPECT_EQ(split(" ?! 42"), (Strings{" ?!", " 42"}));
    EXPECT_EQ(split("caf\u00E9 \u00FCber \u03B1\u03B2 \u0434\u0430"), (Strings{"caf\u00E9", " \u00FCber", " \u03B1\u03B2", " \u0434\u0430"}));
    EXPECT_EQ(split("\u6211\u7231 \u00BD\u2167"), (Strings{"\u6211\u7231", " \u00BD\u2167"}));  // Lo; No and Nl
    EXPECT_EQ(split("a \U0001F355!"), (Strings{"a", " \U0001F355!"}));
    EXPECT_EQ(split("a\u00A0b"), (Strings{"a", "\u00A0", "b"}));  // no-break space is \s, not " "
    EXPECT_EQ(split("'"), (Strings{"'"}));
    EXPECT_EQ(split(""), Strings{});
}

TEST(ByteLevelBpe, TypedEndOfTextStaysWhole)
{
    const ByteLevelBpe bpe = bpeOf(kHelloWorld);
    auto got = byteLevelBpeTokenize(bpe, "Hello<|endoftext|> world");
    ASSERT_TRUE(got.ok());
    ASSERT_EQ(got->tokens.size(), 3u);
    EXPECT_EQ(got->tokens[1].piece, "<|endoftext|>");
    EXPECT_TRUE(got->tokens[1].special);
    EXPECT_EQ(got->tokens[1].byteBegin, 5u);
    EXPECT_EQ(got->tokens[1].byteEnd, 18u);
    auto plain = byteLevelBpeTokenize(bpe, "<|endoftext|>", ByteLevelBpeOptions{false});
    ASSERT_TRUE(plain.ok());
    EXPECT_GT(plain->tokens.size(), 1u);
}

TEST(ByteLevelBpe, LaterListingOfAPairSetsItsRank)
{
    // "abc": (a b) against (b c). Listed a b, b c: "ab" wins. Listed again after b c: "bc" wins,
    // as Python's dict(zip(merges, range(len(merges)))) keeps the later rank.
    EXPECT_EQ(pieces(bpeOf({{"a", "b"}, {"b", "c"}}), "abc"), (Strings{"ab", "c"}));
    EXPECT_EQ(pieces(bpeOf({{"a", "b"}, {"b", "c"}, {"a", "b"}}), "abc"), (Strings{"a", "bc"}));
}

TEST(ByteLevelBpe, MergesNamingUnknownSymbolsAreAccepted)
{
    // "x y" names symbols that are not tokens but whose join is; "q r" joins into nothing
    // vocab.json has, so it is never applied (counted as unusable).
    Merges merges = {{"a", "b"}};
    std::string vocab = vocabJsonFor(merges);
    vocab.back() = ',';
    vocab += " \"XYZ\": 9000}";
    auto bpe = parseByteLevelBpe(vocab, "#version: 0.2\na b\nXY Z\nq r\n", "vocab.json", "merges.txt");
    ASSERT_TRUE(bpe.ok()) << bpe.error();
    EXPECT_EQ(bpe->mergeLines, 3u);
    EXPECT_EQ(bpe->unusableMerges, 1u);
    EXPECT_EQ(bpe->idCount, 9001u);  // ids may leave gaps; the table needs the largest + 1 rows
    EXPECT_EQ(pieces(*bpe, "abqr"), (Strings{"ab", "q", "r"}));
}

// GPT-2's bpe() loop, on strings: merge every occurrence of the lowest-ranked pair.
Strings naiveBpe(Strings word, const std::map<std::pair<std::string, std::string>, int>& ranks)
{
    while (word.size() > 1) {
        int best = -1;
        std::pair<std::string, std::string> bestPair;
        for (std::size_t i = 0; i + 1 < word.size(); ++i) {
            const auto it = ranks.find({word[i], word[i + 1]});
            if (it != ranks.end() && (best < 0 || it->second < best)) {
                best = it->second;
                bestPair = it->first;
            }
        }
        if (best < 0) break;
        Strings merged;
        for (std::size_t i = 0; i < word.size();) {
            if (i + 1 < word.size() && word[i] == bestPair.first && word[i + 1] == bestPair.second) {
                merged.push_back(word[i] + word[i + 1]);
                i += 2;
            } else {
                merged.push_back(word[i++]);
            }
        }
        word = merged;
    }
    return word;
}

TEST(ByteLevelBpe, MergesAgreeWithGpt2sLoopOnRandomTables)
{
    // Random merge tables over a four-letter alphabet, in any order (also orders no training
    // would produce, where a merge uses a symbol that a later merge creates), and random words.
    std::mt19937 rng(12345);
    int words = 0;
    for (int table = 0; table < 200; ++table) {
        Strings symbols = {"a", "b", "c", "d"};
        Merges merges;
        const int count = 1 + static_cast<int>(rng() % 25);
        for (int m = 0; m < count; ++m) {
            const std::string l = symbols[rng() % symbols.size()];
            const std::string r = symbols[rng() % symbols.size()];
            merges.emplace_back(l, r);
            if (std::find(symbols.begin(), symbols.end(), l + r) == symbols.end()) symbols.push_back(l + r);
        }
        std::shuffle(merges.begin(), merges.end(), rng);
        std::map<std::pair<std::string, std::string>, int> ranks;
        for (std::size_t i = 0; i < merges.size(); ++i) ranks[merges[i]] = static_cast<int>(i);
        const ByteLevelBpe bpe = bpeOf(merges);
        for (int w = 0; w < 20; ++w, ++words) {
            std::string word;
            const int length = 1 + static_cast<int>(rng() % 24);
            for (int i = 0; i < length; ++i) word += static_cast<char>('a' + rng() % 4);
            Strings letters;
            for (char c : word) letters.emplace_back(1, c);
            ASSERT_EQ(pieces(bpe, word), naiveBpe(letters, ranks)) << "word " << word << ", table " << table;
        }
    }
    EXPECT_EQ(words, 4000);
}

TEST(ByteLevelBpe, ChipLabelsDecodeTheBytes)
{
    EXPECT_EQ(displayPiece(G + "cat"), "\u00B7cat");
    EXPECT_EQ(displayPiece("\u010A"), "\u21B5");      // newline
    EXPECT_EQ(displayPiece("\u0109x"), "\u2192x");    // tab
    EXPECT_EQ(displayPiece("\u010D"), "<0x0D>");      // carriage return
    EXPECT_EQ(displayPiece("\u00F0\u0141\u012F\u0137"), "\U0001F355");  // the pizza's four bytes
    EXPECT_EQ(displayPiece("\u00F0\u0141"), "<0xF0><0x9F>");             // half of it
    EXPECT_EQ(displayPiece("\u00C3\u00A9t\u00C3\u00A9"), "\u00E9t\u00E9");  // été
    EXPECT_EQ(displayPiece("caf\u00C3"), "caf<0xC3>");
    EXPECT_EQ(displayPiece("\u4E00"), "\u4E00");  // not byte symbols: shown as is
}

TEST(ByteLevelBpe, MalformedBytesReadAsReplacementCharacters)
{
    const ByteLevelBpe bpe = bpeOf({});
    auto got = byteLevelBpeTokenize(bpe, "a\xFF" "b");
    ASSERT_TRUE(got.ok());
    // a | EF BF BD (U+FFFD) | b
    ASSERT_EQ(got->tokens.size(), 5u);
    for (int i = 1; i <= 3; ++i) {
        EXPECT_EQ(got->tokens[static_cast<std::size_t>(i)].byteBegin, 1u);
        EXPECT_EQ(got->tokens[static_cast<std::size_t>(i)].byteEnd, 2u);
    }
    EXPECT_EQ(got->tokens[4].byteBegin, 2u);
}

TEST(ByteLevelBpe, LimitsGiveErrorsNotTruncation)
{
    const ByteLevelBpe bpe = bpeOf({});
    EXPECT_TRUE(byteLevelBpeTokenize(bpe, std::string(static_cast<std::size_t>(limits::maxTokens), 'a')).ok());
    auto over = byteLevelBpeTokenize(bpe, std::string(static_cast<std::size_t>(limits::maxTokens) + 1, 'a'));
    ASSERT_FALSE(over.ok());
    EXPECT_NE(over.error().find(std::to_string(limits::maxTokens)), std::string::npos);
    EXPECT_FALSE(byteLevelBpeTokenize(bpe, std::string(limits::maxSentenceBytes + 1, 'a')).ok());
}

TEST(ByteLevelBpe, AOneMegabyteWordMergesQuickly)
{
    // Doubling merges a a, aa aa, ... up to 1024 letters: 1 MiB of "a" is 1024 tokens.
    Merges merges;
    for (std::string s = "a"; s.size() < 1024; s += s) merges.emplace_back(s, s);
    const ByteLevelBpe bpe = bpeOf(merges);
    const auto start = std::chrono::steady_clock::now();
    auto got = byteLevelBpeTokenize(bpe, std::string(limits::maxSentenceBytes, 'a'));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(got.ok()) << got.error();
    EXPECT_EQ(got->tokens.size(), 1024u);
    EXPECT_EQ(got->tokens.back().piece, std::string(1024, 'a'));
    EXPECT_LT(seconds, 5.0);
}

// ---- vocab.json and merges.txt ----

std::string refusal(std::string_view vocab, std::string_view merges)
{
    auto bpe = parseByteLevelBpe(vocab, merges, "vocab.json", "merges.txt");
    EXPECT_FALSE(bpe.ok());
    return bpe.ok() ? "" : bpe.error();
}

TEST(ByteLevelBpeFiles, BadVocabularyFilesAreRefusedWithTheReason)
{
    const std::string merges = mergesTextFor({{"a", "b"}});
    const auto startsWithVocab = [](const std::string& m) { return m.rfind("vocab.json: ", 0) == 0; };
    for (const std::string& bad : {std::string(""), std::string("{"), std::string("[1, 2]"), std::string("{\"a\": [1]}"),
                                   std::string("{\"a\": {\"b\": 1}}"), std::string("{\"a\": 1.5}"), std::string("{\"a\": -1}"),
                                   std::string("{\"a\": \"1\"}"), std::string("{\"a\": 99999999999}"), std::string("{}"),
                                   std::string("{\"a\": 1, \"b\": 1}"), std::string("{\"a\": 1, \"a\": 2}"),
                                   std::string("{\"a\": 1} {}"), std::string("{\"a\": 1}"), std::string("17"),
                                   std::string("{\"\": 1}"), std::string("{\"a\": 1, \"b\": null}")}) {
        const std::string message = refusal(bad, merges);
        EXPECT_TRUE(startsWithVocab(message)) << "vocab " << bad << " gave: " << message;
    }
    EXPECT_NE(refusal("{\"a\": 1, \"b\": 1}", merges).find("id 1"), std::string::npos);
    EXPECT_NE(refusal("{\"a\": 1}", merges).find("byte 0x00"), std::string::npos);
    EXPECT_NE(refusal("{\"a\": 1.5}", merges).find("whole number"), std::string::npos);
    EXPECT_NE(refusal("{\"a\":", merges).find("JSON"), std::string::npos);
}

TEST(ByteLevelBpeFiles, BadMergesFilesAreRefusedWithTheLine)
{
    const std::string vocab = vocabJsonFor({{"a", "b"}});
    for (const std::string& bad : {std::string(""), std::string("a\n"),
                                   std::string("#version: 0.2\na b c\n"), std::string(" a\n"), std::string("a  b\n"),
                                   std::string("a \n"), std::string("a b\n\xFF b\n"), std::string("a b\n" + std::string(5000, 'x') + " y\n")}) {
        const std::string message = refusal(vocab, bad);
        EXPECT_EQ(message.rfind("merges.txt: ", 0), 0u) << "merges " << bad << " gave: " << message;
    }
    EXPECT_NE(refusal(vocab, "#version: 0.2\na b\na b c\n").find("line 3"), std::string::npos);
    auto headerOnly = parseByteLevelBpe(vocab, "#version: 0.2\n", "vocab.json", "merges.txt");
    ASSERT_TRUE(headerOnly.ok()) << headerOnly.error();
    EXPECT_EQ(headerOnly->mergeLines, 0u);
    EXPECT_FALSE(byteLevelBpeTokenize(ByteLevelBpe{}, "a").ok());  // nothing loaded: an error, not a crash
    // A first line that is a merge is a merge (only "#version" lines are skipped).
    auto noHeader = parseByteLevelBpe(vocab, "a b\r\n", "vocab.json", "merges.txt");
    ASSERT_TRUE(noHeader.ok()) << noHeader.error();
    EXPECT_EQ(noHeader->mergeLines, 1u);
}

}  // namespace
}  // namespace qkv
