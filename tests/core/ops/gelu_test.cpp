// GELU and ReLU on their own: each backward against finite differences of its forward, and the
// two evaluations of the erf form within a few float ulps of each other.

#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include "core/ops/gelu.hpp"
#include "core/ops/relu.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

using MatrixDR = RowMajorMatrix<double>;

// The pre-activations: a grid from -6 to 6 that avoids 0 (ReLU's kink).
MatrixDR grid()
{
    MatrixDR a(3, 16);
    for (Index i = 0; i < a.size(); ++i) a.data()[i] = -6.0 + 12.0 * (static_cast<double>(i) + 0.5) / 48.0;
    return a;
}

template <class Forward, class Backward>
void expectBackwardMatchesFiniteDifferences(Forward forward, Backward backward, double tolerance)
{
    const MatrixDR a = grid();
    const MatrixDR dHidden = MatrixDR::Random(a.rows(), a.cols());
    MatrixDR dA(a.rows(), a.cols());
    backward(dA, dHidden, a);
    const double h = 1e-6;
    MatrixDR plus = a, minus = a, hp(a.rows(), a.cols()), hm(a.rows(), a.cols());
    plus.array() += h;
    minus.array() -= h;
    forward(hp, plus);
    forward(hm, minus);
    // Elementwise: dL/da = dh * (f(a + h) - f(a - h)) / 2h.
    const MatrixDR expected = (dHidden.array() * (hp - hm).array() / (2 * h)).matrix();
    EXPECT_MATRIX_NEAR(dA, expected, tolerance);
}

TEST(Gelu, BackwardMatchesFiniteDifferences)
{
    expectBackwardMatchesFiniteDifferences([](MatrixDR& y, const MatrixDR& x) { geluForward<double>(y, x); },
                                           [](MatrixDR& d, const MatrixDR& dh, const MatrixDR& x) {
                                               geluBackward<double>(d, dh, x);
                                           },
                                           1e-8);
}

TEST(Relu, BackwardMatchesFiniteDifferences)
{
    expectBackwardMatchesFiniteDifferences([](MatrixDR& y, const MatrixDR& x) { reluForward<double>(y, x); },
                                           [](MatrixDR& d, const MatrixDR& dh, const MatrixDR& x) {
                                               reluBackward<double>(d, dh, x);
                                           },
                                           1e-8);
}

TEST(Gelu, BothErfEvaluationsAgreeWithinAFewUlps)
{
    MatrixF a(1, 401);
    for (Index i = 0; i < a.cols(); ++i) a(0, i) = -10.0f + static_cast<float>(i) / 20.0f;
    RowMajorMatrix<float> exact(1, a.cols());
    geluForward<float>(exact, RowMajorMatrix<float>(a));
    MatrixF vectorised = a;
    geluErfInPlace(vectorised);
    for (Index i = 0; i < a.cols(); ++i)
        EXPECT_NEAR(vectorised(0, i), exact(0, i), 4e-7f * std::max(1.0f, std::abs(a(0, i)))) << "at a = " << a(0, i);
}

TEST(Relu, InPlaceFormTurnsNaNAndMinusZeroIntoZero)
{
    float a[] = {-1.0f, -0.0f, std::nanf(""), 2.5f};
    reluInPlace(a, 4);
    EXPECT_EQ(a[0], 0.0f);
    EXPECT_FALSE(std::signbit(a[1]));
    EXPECT_EQ(a[2], 0.0f);
    EXPECT_EQ(a[3], 2.5f);
}

}  // namespace
}  // namespace qkv
