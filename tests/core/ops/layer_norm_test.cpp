// LayerNorm on its own: the model's rows, its backward against finite differences, and the two
// evaluations (the model's Scalar one and layerNormRows in double) agreeing.

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/ops/layer_norm.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

using MatrixDR = RowMajorMatrix<double>;

TEST(LayerNorm, ModelRowsHaveZeroMeanAndUnitVariance)
{
    MatrixDR x = MatrixDR::Random(4, 6) * 3.0;
    x.row(1).setConstant(2.0);  // a constant row: variance 0, epsilon keeps it finite
    MatrixDR y(4, 6);
    std::vector<double> mean(4), rstd(4), gamma(6, 1.0), beta(6, 0.0);
    layerNormForward<double>(y, mean.data(), rstd.data(), x, gamma.data(), beta.data(), 1e-5);
    for (Index r : {0, 2, 3}) {
        EXPECT_NEAR(y.row(r).mean(), 0.0, 1e-14);
        EXPECT_NEAR(y.row(r).squaredNorm() / 6.0, 1.0, 1e-5);
    }
    EXPECT_EQ(y.row(1).cwiseAbs().maxCoeff(), 0.0);
}

// L = sum dy * LayerNorm(x): the backward's dx, dgamma and dbeta are its central differences.
TEST(LayerNorm, BackwardMatchesFiniteDifferences)
{
    const Index R = 3, d = 5;
    MatrixDR x = MatrixDR::Random(R, d) * 2.0;
    const MatrixDR dy = MatrixDR::Random(R, d);
    std::vector<double> gamma{1.5, -0.5, 0.7, 2.0, 1.0}, beta{0.1, 0.2, -0.3, 0.0, 0.5};
    const auto loss = [&](const MatrixDR& in, const std::vector<double>& g, const std::vector<double>& b) {
        MatrixDR y(R, d);
        std::vector<double> mean(R), rstd(R);
        layerNormForward<double>(y, mean.data(), rstd.data(), in, g.data(), b.data(), 1e-5);
        return (y.array() * dy.array()).sum();
    };
    MatrixDR y(R, d), dx = MatrixDR::Zero(R, d);
    std::vector<double> mean(R), rstd(R), dGamma(d, 0.0), dBeta(d, 0.0);
    layerNormForward<double>(y, mean.data(), rstd.data(), x, gamma.data(), beta.data(), 1e-5);
    layerNormBackward<double>(dx, dGamma.data(), dBeta.data(), dy, x, mean.data(), rstd.data(), gamma.data());
    const double h = 1e-6;
    for (Index r = 0; r < R; ++r)
        for (Index c = 0; c < d; ++c) {
            MatrixDR plus = x, minus = x;
            plus(r, c) += h;
            minus(r, c) -= h;
            EXPECT_NEAR(dx(r, c), (loss(plus, gamma, beta) - loss(minus, gamma, beta)) / (2 * h), 1e-7);
        }
    for (Index c = 0; c < d; ++c) {
        auto gp = gamma, gm = gamma, bp = beta, bm = beta;
        gp[static_cast<std::size_t>(c)] += h;
        gm[static_cast<std::size_t>(c)] -= h;
        bp[static_cast<std::size_t>(c)] += h;
        bm[static_cast<std::size_t>(c)] -= h;
        EXPECT_NEAR(dGamma[static_cast<std::size_t>(c)], (loss(x, gp, beta) - loss(x, gm, beta)) / (2 * h), 1e-7);
        EXPECT_NEAR(dBeta[static_cast<std::size_t>(c)], (loss(x, gamma, bp) - loss(x, gamma, bm)) / (2 * h), 1e-7);
    }
}

TEST(LayerNorm, BothEvaluationsAgree)
{
    const MatrixD x = MatrixD::Random(4, 7) * 3.0;
    LayerNormParameters norm{RowVectorF::Random(7), RowVectorF::Random(7), 1e-5};
    const MatrixF rows = layerNormRows(x, norm);
    MatrixDR y(4, 7);
    std::vector<double> mean(4), rstd(4);
    const std::vector<double> gamma(norm.gamma.data(), norm.gamma.data() + 7), beta(norm.beta.data(), norm.beta.data() + 7);
    layerNormForward<double>(y, mean.data(), rstd.data(), MatrixDR(x), gamma.data(), beta.data(), norm.epsilon);
    EXPECT_MATRIX_NEAR(rows, MatrixF(y.cast<float>()), 1e-6);
}

}  // namespace
}  // namespace qkv
