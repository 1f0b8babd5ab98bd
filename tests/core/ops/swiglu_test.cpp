// SiLU and the SwiGLU product on their own.

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "core/ops/swiglu.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

using MatrixDR = RowMajorMatrix<double>;

TEST(Silu, KnownValuesAndExtremesStayFinite)
{
    MatrixF a(1, 6);
    a << 0.0f, 1.0f, -1.0f, -1000.0f, 1000.0f, 2.5f;
    MatrixF h(1, 6);
    siluForward<float>(h, a);
    EXPECT_EQ(h(0, 0), 0.0f);
    EXPECT_NEAR(h(0, 1), 1.0 / (1.0 + std::exp(-1.0)), 1e-7);
    EXPECT_NEAR(h(0, 2), -1.0 / (1.0 + std::exp(1.0)), 1e-7);
    EXPECT_EQ(h(0, 3), 0.0f) << "exp(1000) overflows to inf: a / inf = -0, not NaN";
    EXPECT_EQ(h(0, 4), 1000.0f);
    EXPECT_NEAR(h(0, 5), 2.5 / (1.0 + std::exp(-2.5)), 1e-6);
    EXPECT_TRUE(h.allFinite());
}

TEST(Silu, SiluOfAMinusSiluOfMinusAIsA)
{
    // a sigmoid(a) - (-a) sigmoid(-a) = a (sigmoid(a) + sigmoid(-a)) = a, for any a.
    const MatrixDR a = MatrixDR::Random(6, 9) * 8.0;
    MatrixDR plus(6, 9), minus(6, 9);
    siluForward<double>(plus, a);
    const MatrixDR negated = -a;
    siluForward<double>(minus, negated);
    EXPECT_MATRIX_NEAR(plus - minus, a, 1e-12);
}

TEST(Swiglu, IsSiluOfTheGateTimesUpAlsoInPlace)
{
    const MatrixF gate = MatrixF::Random(4, 12) * 3.0f;
    const MatrixF up = MatrixF::Random(4, 12) * 2.0f;
    MatrixF silu(4, 12), hidden(4, 12);
    siluForward<float>(silu, gate);
    swigluForward<float>(hidden, gate, up);
    EXPECT_MATRIX_NEAR(hidden, MatrixF(silu.cwiseProduct(up)), 1e-6);
    MatrixF inPlace = gate;
    swigluForward<float>(inPlace, inPlace, up);
    EXPECT_TRUE(inPlace == hidden);
    // Not symmetric: the gate goes through SiLU, the up projection does not.
    MatrixF swapped(4, 12);
    swigluForward<float>(swapped, up, gate);
    EXPECT_GT((swapped - hidden).cwiseAbs().maxCoeff(), 0.1f);
}

}  // namespace
}  // namespace qkv
