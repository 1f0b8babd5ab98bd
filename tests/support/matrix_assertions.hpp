#pragma once
// EXPECT_MATRIX_NEAR(a, b, tolerance): sizes first, then every entry; on failure prints both
// matrices and their difference (the manif convention).

#include <sstream>

#include <Eigen/Core>
#include <gtest/gtest.h>

namespace qkv::testing {

template <class A, class B>
::testing::AssertionResult matricesNear(const char* aExpr, const char* bExpr, const char*,
                                        const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b,
                                        double tolerance)
{
    if (a.rows() != b.rows() || a.cols() != b.cols()) {
        return ::testing::AssertionFailure()
               << aExpr << " is " << a.rows() << "x" << a.cols() << " but " << bExpr << " is "
               << b.rows() << "x" << b.cols();
    }
    const auto ad = a.template cast<double>().eval();
    const auto bd = b.template cast<double>().eval();
    const double worst = a.size() == 0 ? 0.0 : (ad - bd).cwiseAbs().maxCoeff();
    if (!(worst <= tolerance)) {  // also fails on NaN
        std::ostringstream out;
        Eigen::IOFormat format(6, 0, ", ", "\n", "  [", "]");
        out << aExpr << " and " << bExpr << " differ by up to " << worst << " (tolerance "
            << tolerance << ")\n"
            << aExpr << " =\n" << ad.format(format) << "\n"
            << bExpr << " =\n" << bd.format(format) << "\ndifference =\n"
            << (ad - bd).format(format);
        return ::testing::AssertionFailure() << out.str();
    }
    return ::testing::AssertionSuccess();
}

}  // namespace qkv::testing

#define EXPECT_MATRIX_NEAR(a, b, tolerance) \
    EXPECT_PRED_FORMAT3(::qkv::testing::matricesNear, a, b, tolerance)
#define ASSERT_MATRIX_NEAR(a, b, tolerance) \
    ASSERT_PRED_FORMAT3(::qkv::testing::matricesNear, a, b, tolerance)
