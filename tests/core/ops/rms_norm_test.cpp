// RMSNorm on its own: the formula on a worked row, and identities that hold for any input.

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/ops/rms_norm.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

using MatrixDR = RowMajorMatrix<double>;

TEST(RmsNorm, WorkedRowDividesByTheRootMeanSquareAndScalesByGamma)
{
    // Row (3, 4): mean of squares 12.5, so y = (3, 4) / sqrt(12.5 + eps) * gamma.
    MatrixF x(1, 2);
    x << 3.0f, 4.0f;
    const std::vector<float> gamma{2.0f, -0.5f};
    MatrixF y(1, 2);
    rmsNormForward<float>(y, x, gamma.data(), 1e-5);
    const double rms = std::sqrt(12.5 + 1e-5);
    EXPECT_NEAR(y(0, 0), 3.0 / rms * 2.0, 1e-6);
    EXPECT_NEAR(y(0, 1), 4.0 / rms * -0.5, 1e-6);
}

TEST(RmsNorm, RowsGetUnitRootMeanSquareWithoutCentring)
{
    MatrixDR x = MatrixDR::Random(5, 8) * 3.0;
    x.row(2).array() += 10.0;  // a large mean: LayerNorm would remove it, RMSNorm keeps its sign
    const std::vector<double> ones(8, 1.0);
    MatrixDR y(5, 8);
    rmsNormForward<double>(y, x, ones.data(), 1e-12);
    for (Index r = 0; r < 5; ++r) {
        EXPECT_NEAR(y.row(r).squaredNorm() / 8.0, 1.0, 1e-10);
        EXPECT_NEAR(y.row(r).dot(x.row(r)) / (y.row(r).norm() * x.row(r).norm()), 1.0, 1e-12) << "same direction";
    }
    EXPECT_GT(y.row(2).minCoeff(), 0.0);
}

TEST(RmsNorm, IsScaleInvariantAndZeroRowsStayZero)
{
    MatrixF x = MatrixF::Random(4, 16);
    x.row(3).setZero();  // RMS = sqrt(epsilon): a zero row gives zeros, not NaN
    std::vector<float> gamma(16);
    for (std::size_t j = 0; j < gamma.size(); ++j) gamma[j] = 0.5f + 0.1f * static_cast<float>(j);
    MatrixF y(4, 16), scaled(4, 16);
    rmsNormForward<float>(y, x, gamma.data(), 1e-6);
    const MatrixF x7 = x * 7.0f;
    rmsNormForward<float>(scaled, x7, gamma.data(), 1e-6);
    EXPECT_MATRIX_NEAR(y.topRows(3), scaled.topRows(3), 1e-5);
    EXPECT_EQ(y.row(3).cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_TRUE(y.allFinite());
}

TEST(RmsNorm, InPlaceGivesTheSameValues)
{
    MatrixF x = MatrixF::Random(3, 10) * 4.0f;
    const std::vector<float> gamma(10, 1.5f);
    MatrixF y(3, 10);
    rmsNormForward<float>(y, x, gamma.data(), 1e-5);
    rmsNormForward<float>(x, x, gamma.data(), 1e-5);
    EXPECT_TRUE(x == y);
}

}  // namespace
}  // namespace qkv
