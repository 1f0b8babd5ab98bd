// Block means of a matrix at the resolution it is drawn (core/factored/matrix_pooling.hpp): the
// pooled product of W_i's factors equals the dense matrix pooled, and the bins cover the window.

#include "core/factored/matrix_pooling.hpp"

#include <gtest/gtest.h>

namespace qkv {
namespace {

TEST(MatrixPooling, PooledProductEqualsBlockMeansOfTheDenseMatrix)
{
    for (int trial = 0; trial < 20; ++trial) {
        const Index d_model = 30 + trial, d_k = 1 + trial % 7;
        const FactoredMatrix f(MatrixD::Random(d_model, d_k), MatrixD::Random(d_model, d_k));
        const MatrixD dense = f.dense();
        const MatrixWindow window{trial % 5, (trial * 3) % 7, d_model - 8, d_model - 8};
        const Index bins = 3 + trial % 9;
        const MatrixD pooled = pooledProduct(f, window, bins, bins);
        const MatrixD reference = poolMatrix(dense, window, bins, bins);
        ASSERT_EQ(pooled.rows(), bins);
        ASSERT_EQ(pooled.cols(), bins);
        EXPECT_LE((pooled - reference).cwiseAbs().maxCoeff(), 1e-12) << "trial " << trial;
        // The first cell really is the mean of its block.
        const auto rowEdges = binEdges(window.row0, window.rows, bins);
        const auto colEdges = binEdges(window.col0, window.cols, bins);
        const double mean =
            dense.block(rowEdges[0], colEdges[0], rowEdges[1] - rowEdges[0], colEdges[1] - colEdges[0]).mean();
        EXPECT_NEAR(pooled(0, 0), mean, 1e-12);
    }
}

TEST(MatrixPooling, BinEdgesCoverEveryIndexOnce)
{
    const auto edges = binEdges(5, 17, 4);
    ASSERT_EQ(edges.size(), 5u);
    EXPECT_EQ(edges.front(), 5);
    EXPECT_EQ(edges.back(), 22);
    for (std::size_t i = 1; i < edges.size(); ++i) {
        EXPECT_GT(edges[i], edges[i - 1]);
    }
    EXPECT_EQ(binEdges(0, 3, 10).size(), 4u);  // never more bins than indices
}

}  // namespace
}  // namespace qkv
