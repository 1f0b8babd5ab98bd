#include <cmath>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "core/embedding/embeddings.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

TEST(PositionalEncoding, MatchesThePaperFormula)
{
    const Index n = 50, d_model = 16;
    const MatrixF pe = positionalEncoding(n, d_model);
    ASSERT_EQ(pe.rows(), n);
    ASSERT_EQ(pe.cols(), d_model);
    for (Index pos = 0; pos < n; ++pos) {
        for (Index i = 0; 2 * i < d_model; ++i) {
            const double angle = pos / std::pow(10000.0, 2.0 * i / d_model);
            EXPECT_NEAR(pe(pos, 2 * i), std::sin(angle), 1e-6);
            EXPECT_NEAR(pe(pos, 2 * i + 1), std::cos(angle), 1e-6);
        }
    }
    // Position 0: sin 0 = 0 in even columns, cos 0 = 1 in odd columns.
    EXPECT_EQ(pe(0, 0), 0.0f);
    EXPECT_EQ(pe(0, 1), 1.0f);
}

TEST(PositionalEncoding, OddDModelEndsWithASine)
{
    const MatrixF pe = positionalEncoding(3, 5);
    EXPECT_NEAR(pe(2, 4), std::sin(2.0 / std::pow(10000.0, 4.0 / 5.0)), 1e-6);
}

// A table is kept between calls (a seed change does not recompute it): a shorter sentence reads
// the kept rows, a longer one or another d_model computes its own. Every call has the bits of a
// table computed afresh.
TEST(PositionalEncoding, KeptTableGivesTheBitsOfAFreshOne)
{
    const MatrixF other = positionalEncoding(40, 64);  // the kept table is another d_model's
    const MatrixF fresh40 = positionalEncoding(40, 96);
    const MatrixF fresh700 = positionalEncoding(700, 96);
    const MatrixF kept40 = positionalEncoding(40, 96);  // the first rows of the 700
    EXPECT_EQ(kept40, fresh40);
    EXPECT_EQ(MatrixF(fresh700.topRows(40)), fresh40);
    EXPECT_EQ(positionalEncoding(40, 64), other);
    const double angle = 650.0 / std::pow(10000.0, 10.0 / 96.0);
    EXPECT_NEAR(fresh700(650, 10), std::sin(angle), 1e-6);
    EXPECT_NEAR(fresh700(650, 11), std::cos(angle), 1e-6);
}

// Each distinct word's vector is drawn once (side by side on a team when large) and copied to its
// repeats: the rows are those of the word's own stream, whatever else the sentence holds.
TEST(TokenEmbeddings, RepeatedWordsAndLongSentencesDrawEachWordFromItsOwnStream)
{
    std::string text;
    for (int i = 0; i < 400; ++i) text += (i % 7 == 0 ? "The " : "w" + std::to_string(i % 97) + " ");
    const std::vector<Token> tokens = tokenize(text);
    const Index d_model = 256;
    const MatrixF table = tokenEmbeddings(tokens, d_model, 5);
    for (Index row : {0, 1, 7, 14, 96, 97, 98, 399}) {
        const MatrixF alone = tokenEmbeddings({tokens[static_cast<std::size_t>(row)]}, d_model, 5);
        EXPECT_EQ(MatrixF(table.row(row)), alone) << "row " << row;
    }
    EXPECT_EQ(MatrixF(table.row(0)), MatrixF(table.row(392)));  // "The" every seventh
}

TEST(TokenEmbeddings, SameWordSameVectorAcrossSentencesAndCase)
{
    const std::vector<Token> source = tokenize("The cat sat");
    const std::vector<Token> target = tokenize("a CAT the");
    const MatrixF s = tokenEmbeddings(source, 32, 9);
    const MatrixF t = tokenEmbeddings(target, 32, 9);
    EXPECT_MATRIX_NEAR(s.row(1), t.row(1), 0.0);  // cat == CAT
    EXPECT_MATRIX_NEAR(s.row(0), t.row(2), 0.0);  // The == the
    EXPECT_GT((s.row(0) - s.row(1)).norm(), 1.0f);
}

TEST(TokenEmbeddings, DeterministicPerSeedAndDifferentAcrossSeeds)
{
    const std::vector<Token> tokens = tokenize("attention is all you need");
    const MatrixF a = tokenEmbeddings(tokens, 64, 1);
    const MatrixF b = tokenEmbeddings(tokens, 64, 1);
    const MatrixF c = tokenEmbeddings(tokens, 64, 2);
    EXPECT_EQ(a, b);  // same bits
    EXPECT_GT((a - c).norm(), 10.0f);
    // Roughly standard normal entries.
    const double mean = a.mean();
    const double variance = (a.array() - static_cast<float>(mean)).square().mean();
    EXPECT_NEAR(mean, 0.0, 0.15);
    EXPECT_NEAR(variance, 1.0, 0.2);
}

TEST(EmbedSentence, AddsPositionalEncodingOnlyWhenAsked)
{
    const std::vector<Token> tokens = tokenize("a b a");
    const MatrixF plain = embedSentence(tokens, 8, 3, false);
    const MatrixF positioned = embedSentence(tokens, 8, 3, true);
    EXPECT_MATRIX_NEAR(plain.row(0), plain.row(2), 0.0);  // same word, no position: same vector
    EXPECT_MATRIX_NEAR(positioned - plain, positionalEncoding(3, 8), 1e-6);
}

TEST(EmbedSentence, NoTokensGivesAnEmptyMatrix)
{
    const MatrixF x = embedSentence({}, 8, 0, true);
    EXPECT_EQ(x.rows(), 0);
    EXPECT_EQ(x.cols(), 8);
}

}  // namespace
}  // namespace qkv
