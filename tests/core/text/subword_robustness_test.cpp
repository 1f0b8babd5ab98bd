// Robustness of the tokenizer file parsers and of the tokenizers: a deterministic mutation fuzz
// (fixed seed, bounded in time) of the fixture files, and random text (valid UTF-8 from many
// scripts, and raw bytes). Never a crash, a hang or an out-of-range id; a refused file gives a
// message that starts with its name; every token's span lies inside the text, in order.

#include <chrono>
#include <iostream>
#include <random>

#include <gtest/gtest.h>

#include "core/text/byte_level_bpe_tokenizer.hpp"
#include "core/text/utf8.hpp"
#include "core/text/wordpiece_tokenizer.hpp"
#include "tokenizer_test_support.hpp"

namespace qkv {
namespace {

using testing::readText;
using testing::tokenizerFixture;

constexpr std::chrono::seconds kBudget{2};

// Whether a fuzz loop goes on: always up to `minimum` cases, whatever the machine's load (a
// sanitizer build on a busy machine ran 704 of 1000 in the budget), then while the time budget
// lasts (looked at every 64 cases), up to `maximum`.
bool keepFuzzing(int cases, int minimum, int maximum, std::chrono::steady_clock::time_point deadline)
{
    if (cases >= maximum) return false;
    return cases < minimum || cases % 64 != 0 || std::chrono::steady_clock::now() < deadline;
}

std::string mutate(std::string bytes, std::mt19937_64& rng)
{
    const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1)); };
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
        switch (rng() % 9) {
        case 0:
            if (!bytes.empty()) bytes[pick(bytes.size())] ^= static_cast<char>(1u << (rng() % 8));
            break;
        case 1:
            if (!bytes.empty()) bytes[pick(bytes.size())] = static_cast<char>(rng());
            break;
        case 2:
            bytes.resize(pick(bytes.size() + 1));
            break;
        case 3: {
            const std::size_t at = pick(bytes.size() + 1);
            for (std::size_t i = 0, n = 1 + pick(8); i < n; ++i) bytes.insert(bytes.begin() + static_cast<long>(at), static_cast<char>(rng()));
            break;
        }
        case 4: {
            if (bytes.empty()) break;
            const std::size_t at = pick(bytes.size());
            bytes.erase(at, 1 + pick(8));
            break;
        }
        case 5: {  // copy a line elsewhere (duplicates, reordered merges)
            const std::size_t from = bytes.find('\n', pick(bytes.size()));
            if (from == std::string::npos) break;
            const std::size_t to = bytes.find('\n', from + 1);
            const std::string line = bytes.substr(from, to == std::string::npos ? std::string::npos : to - from);
            bytes.insert(pick(bytes.size() + 1), line);
            break;
        }
        case 6: {  // interesting bytes for the formats
            static const char values[] = {'\n', '\r', ' ', '"', ':', ',', '{', '}', '[', ']', '#', '\\', '-', '9', '\0', '\x80', '\xff'};
            if (!bytes.empty()) bytes[pick(bytes.size())] = values[pick(std::size(values))];
            break;
        }
        case 7: {  // a number becomes another one
            const std::size_t at = bytes.find_first_of("0123456789", pick(bytes.size()));
            if (at == std::string::npos) break;
            static const char* replacements[] = {"0", "1", "-1", "1.5", "99999999999999999999", "2097152", "1e3", "642"};
            bytes.replace(at, 1, replacements[pick(std::size(replacements))]);
            break;
        }
        default:  // an empty line
            bytes.insert(pick(bytes.size() + 1), "\n");
            break;
        }
    }
    return bytes;
}

void expectSaneTokens(const SubwordTokenization& tokens, std::string_view text, std::size_t vocabularySize)
{
    std::size_t lastBegin = 0;
    for (const SubwordToken& token : tokens.tokens) {
        ASSERT_GE(token.id, 0);
        ASSERT_LT(static_cast<std::size_t>(token.id), vocabularySize);
        ASSERT_LE(token.byteBegin, token.byteEnd);
        ASSERT_LE(token.byteEnd, text.size());
        ASSERT_GE(token.byteBegin, lastBegin) << "spans out of order";
        lastBegin = token.byteBegin;
        ASSERT_FALSE(token.piece.empty());
        ASSERT_FALSE(token.display.empty());
        ASSERT_EQ(utf8::firstInvalidByte(token.display), token.display.size()) << "a chip label must be UTF-8";
    }
}

const char* const kSentences[] = {"The cat sat on the mat.", " Hello world", "L'\xC3\xA9l\xC3\xA8ve a mang\xC3\xA9.",
                                  "unaffable [MASK] <|endoftext|>", "a\xFF\xFE b"};

TEST(SubwordRobustness, MutatedVocabTxtFiles)
{
    std::mt19937_64 rng(0x5eed0001);
    const std::string seed = readText(tokenizerFixture("wordpiece_vocab.txt"));
    const auto deadline = std::chrono::steady_clock::now() + kBudget;
    int cases = 0, accepted = 0;
    for (; keepFuzzing(cases, 1000, 20000, deadline); ++cases) {
        const std::string bytes = mutate(seed, rng);
        auto vocab = parseWordPieceVocab(bytes, "vocab.txt");
        if (!vocab.ok()) {
            ASSERT_EQ(vocab.error().rfind("vocab.txt: ", 0), 0u) << vocab.error();
            continue;
        }
        ++accepted;
        for (const char* sentence : kSentences) {
            auto tokens = wordPieceTokenize(*vocab, sentence);
            ASSERT_TRUE(tokens.ok()) << tokens.error();
            expectSaneTokens(*tokens, sentence, vocab->tokens.size());
        }
    }
    std::cout << "[ fuzz     ] " << cases << " mutated vocab.txt files, " << accepted << " accepted\n";
    EXPECT_GE(cases, 1000);
}

TEST(SubwordRobustness, MutatedVocabJsonAndMergesFiles)
{
    std::mt19937_64 rng(0x5eed0002);
    const std::string vocabSeed = readText(tokenizerFixture("bpe_vocab.json"));
    const std::string mergesSeed = readText(tokenizerFixture("bpe_merges.txt"));
    const auto deadline = std::chrono::steady_clock::now() + kBudget;
    int cases = 0, accepted = 0;
    for (; keepFuzzing(cases, 1000, 20000, deadline); ++cases) {
        const bool mutateVocab = cases % 2 == 0;
        const std::string vocab = mutateVocab ? mutate(vocabSeed, rng) : vocabSeed;
        const std::string merges = mutateVocab ? mergesSeed : mutate(mergesSeed, rng);
        auto bpe = parseByteLevelBpe(vocab, merges, "vocab.json", "merges.txt");
        if (!bpe.ok()) {
            const std::string expected = mutateVocab ? "vocab.json: " : "merges.txt: ";
            ASSERT_EQ(bpe.error().rfind(expected, 0), 0u) << bpe.error();
            continue;
        }
        ++accepted;
        for (const char* sentence : kSentences) {
            auto tokens = byteLevelBpeTokenize(*bpe, sentence);
            ASSERT_TRUE(tokens.ok()) << tokens.error();
            expectSaneTokens(*tokens, sentence, bpe->idCount);
        }
    }
    std::cout << "[ fuzz     ] " << cases << " mutated vocab.json / merges.txt pairs, " << accepted << " accepted\n";
    EXPECT_GE(cases, 1000);
    EXPECT_GT(accepted, 0);
}

// Random text: characters from many scripts and classes, or raw bytes.
std::string randomText(std::mt19937_64& rng)
{
    static const char32_t pool[] = {'a', 'Z', ' ', ' ', '\t', '\n', '\'', 's', '.', '!', '7', '#', '[', ']',
                                    0xE9, 0xDF, 0x301, 0x308, 0xA0, 0x3B1, 0x416, 0x4E00, 0x3042, 0xAC00,
                                    0x1F355, 0x200B, 0x200D, 0xFEFF, 0x2028, 0x0660, 0x00BD, 0x130, 0xFFFD,
                                    0x10FFFF, 0x7F, 0x0};
    std::string text;
    const int length = static_cast<int>(rng() % 80);
    if (rng() % 4 == 0) {
        for (int i = 0; i < length; ++i) text += static_cast<char>(rng());
        return text;
    }
    for (int i = 0; i < length; ++i) {
        if (rng() % 10 == 0) utf8::append(text, static_cast<char32_t>(rng() % 0x110000 & ~0x800u));
        else utf8::append(text, pool[rng() % std::size(pool)]);
    }
    if (rng() % 8 == 0) text.insert(rng() % (text.size() + 1), rng() % 2 ? "[MASK]" : "<|endoftext|>");
    return text;
}

TEST(SubwordRobustness, RandomTextThroughBothTokenizers)
{
    auto vocab = loadWordPieceVocab(tokenizerFixture("wordpiece_vocab.txt"));
    ASSERT_TRUE(vocab.ok()) << vocab.error();
    auto bpe = loadByteLevelBpe(tokenizerFixture("bpe_vocab.json"), tokenizerFixture("bpe_merges.txt"));
    ASSERT_TRUE(bpe.ok()) << bpe.error();
    std::mt19937_64 rng(0x5eed0003);
    const auto deadline = std::chrono::steady_clock::now() + kBudget;
    int cases = 0;
    for (; keepFuzzing(cases, 2000, 50000, deadline); ++cases) {
        const std::string text = randomText(rng);
        WordPieceOptions options;
        options.lowerCase = rng() % 2 == 0;
        auto wordPiece = wordPieceTokenize(*vocab, text, options);
        ASSERT_TRUE(wordPiece.ok()) << wordPiece.error();
        expectSaneTokens(*wordPiece, text, vocab->tokens.size());
        ASSERT_GE(wordPiece->tokens.size(), 2u);

        auto bytes = byteLevelBpeTokenize(*bpe, text);
        ASSERT_TRUE(bytes.ok()) << bytes.error();
        expectSaneTokens(*bytes, text, bpe->idCount);
        // Byte-level BPE loses nothing: the pieces spell the (sanitised) text.
        if (text.find("<|endoftext|>") == std::string::npos) {
            std::string spelled;
            for (const SubwordToken& token : bytes->tokens)
                for (const utf8::SpannedChar& ch : utf8::decodeWithSpans(token.piece)) spelled += static_cast<char>(*symbolToByte(ch.codePoint));
            std::string sanitised;
            for (const utf8::SpannedChar& ch : utf8::decodeWithSpans(text)) utf8::append(sanitised, ch.codePoint);
            ASSERT_EQ(spelled, sanitised);
        }
        if (::testing::Test::HasFailure()) {
            ADD_FAILURE() << "random text case " << cases;
            break;
        }
    }
    std::cout << "[ fuzz     ] " << cases << " random texts through WordPiece and byte-level BPE\n";
    EXPECT_GE(cases, 2000);
}

}  // namespace
}  // namespace qkv
