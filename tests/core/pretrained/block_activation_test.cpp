// The MLP activations of a pretrained block against their formulas in double.

#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include "core/pretrained/block_steps.hpp"

namespace qkv {
namespace {

TEST(BlockActivation, GeluTanhMatchesItsFormulaInDoubleFromMinus12To12)
{
    // Every 1/64 from -12 to 12, with the tails where tanh saturates (beyond the vectorised
    // tanh's clamp) and the values near 0 where GELU is about a / 2.
    const Index count = 24 * 64 + 1;
    MatrixF a(1, count);
    for (Index i = 0; i < count; ++i) a(0, i) = -12.0f + static_cast<float>(i) / 64.0f;
    MatrixF h = a;
    blockActivationForward(h, BlockActivation::GeluTanh);
    const double c = std::sqrt(2.0 / std::numbers::pi);
    for (Index i = 0; i < count; ++i) {
        const double x = a(0, i);
        const double expected = 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
        EXPECT_NEAR(h(0, i), expected, 2e-6 * std::max(1.0, std::abs(x))) << "at a = " << x;
    }
    EXPECT_EQ(h(0, 0), 0.0f) << "GELU(-12) is -0 in float";
    EXPECT_EQ(h(0, count - 1), 12.0f);
}

TEST(BlockActivation, GeluErfMatchesItsFormulaInDouble)
{
    MatrixF a(1, 5);
    a << -3.0f, -0.5f, 0.0f, 0.7f, 4.0f;
    MatrixF h = a;
    blockActivationForward(h, BlockActivation::GeluErf);
    for (Index i = 0; i < a.cols(); ++i) {
        const double x = a(0, i);
        EXPECT_NEAR(h(0, i), 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2)), 1e-6) << "at a = " << x;
    }
}

}  // namespace
}  // namespace qkv
