// Marian's sinusoidal table: Hugging Face's layout (sines then cosines), checked against the
// table the fixture script builds as MarianSinusoidalPositionalEmbedding does.

#include <cmath>

#include <gtest/gtest.h>

#include "core/io/npy.hpp"
#include "core/trainable/model_steps.hpp"
#include "core/pretrained/marian_positions.hpp"
#include "support/matrix_assertions.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

TEST(MarianPositions, MatchHuggingFacesTable)
{
    const auto expected = readNpyMatrixD(std::string(qkv::testDataDir()) + "/pretrained/marian/sinusoidal_positions.npy");
    ASSERT_TRUE(expected) << expected.error();
    const MatrixF table = marianSinusoidalPositions(expected->rows(), expected->cols());
    EXPECT_MATRIX_NEAR(table, *expected, 1e-7);
}

TEST(MarianPositions, AreThePapersColumnsSplitIntoHalves)
{
    // The paper's PE(pos, 2j) is Marian's column j and PE(pos, 2j + 1) its column d/2 + j.
    const Index d = 16;
    const MatrixF marian = marianSinusoidalPositions(30, d);
    const RowMajorMatrix<float> paper = sinusoidalPositions<float>(30, d);
    for (Index j = 0; j < d / 2; ++j) {
        EXPECT_MATRIX_NEAR(marian.col(j), paper.col(2 * j), 1e-7);
        EXPECT_MATRIX_NEAR(marian.col(d / 2 + j), paper.col(2 * j + 1), 1e-7);
    }
    EXPECT_EQ(marian.row(0).head(d / 2).cwiseAbs().maxCoeff(), 0.0f);  // sin 0
    EXPECT_EQ(marian.row(0).tail(d / 2).minCoeff(), 1.0f);             // cos 0
    EXPECT_FALSE(marian.isApprox(MatrixF(paper))) << "not interleaved";
}

TEST(MarianPositions, OddWidthHasOneMoreSineColumn)
{
    // d = 5: columns 0..2 are sines (frequencies j = 0, 1, 2), columns 3..4 cosines (j = 0, 1).
    const MatrixF table = marianSinusoidalPositions(4, 5);
    EXPECT_FLOAT_EQ(table(3, 0), static_cast<float>(std::sin(3.0)));
    EXPECT_FLOAT_EQ(table(3, 2), static_cast<float>(std::sin(3.0 / std::pow(10000.0, 4.0 / 5.0))));
    EXPECT_FLOAT_EQ(table(3, 3), static_cast<float>(std::cos(3.0)));
    EXPECT_FLOAT_EQ(table(3, 4), static_cast<float>(std::cos(3.0 / std::pow(10000.0, 2.0 / 5.0))));
}

}  // namespace
}  // namespace qkv
