// The sanitizer suite is built with assertions on (QKV_ASSERTIONS, scripts/test.sh --sanitize):
// Release and RelWithDebInfo define NDEBUG, which would silence every assert and eigen_assert.

#include <cassert>

#include <Eigen/Core>
#include <gtest/gtest.h>

namespace {

TEST(Assertions, RunWhenTheBuildAsksForThem)
{
#ifndef QKV_ASSERTIONS_ON
    GTEST_SKIP() << "built without QKV_ASSERTIONS (the sanitizer suite turns them on)";
#else
#ifdef NDEBUG
    ADD_FAILURE() << "QKV_ASSERTIONS is on but NDEBUG is still defined";
#endif
#ifdef EIGEN_NO_DEBUG
    ADD_FAILURE() << "QKV_ASSERTIONS is on but Eigen's assertions are off (EIGEN_NO_DEBUG)";
#endif
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    volatile int zero = 0;  // not a constant the compiler could fold
    EXPECT_DEATH(assert(zero == 1), "");
    Eigen::VectorXf v(2);
    EXPECT_DEATH(v(2 + zero) = 1.0f, "");  // out of range: eigen_assert
#endif
}

}  // namespace
