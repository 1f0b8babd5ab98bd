#include <cmath>

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
