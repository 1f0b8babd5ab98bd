// The one thread policy (core/common/parallelism.hpp): Eigen starts no team of its own, and a
// region is parallel only for work above the one threshold.

#include <vector>

#include <Eigen/Core>
#include <gtest/gtest.h>

#include "core/common/parallelism.hpp"

namespace qkv {
namespace {

class ComputeThreadsRestored : public ::testing::Test {
protected:
    void TearDown() override { setComputeThreads(0); }
};

TEST_F(ComputeThreadsRestored, EigenNeverStartsThreadsOfItsOwn)
{
    // A product of Eigen's own would fork a team for every product above ~1e5 multiply-adds.
    EXPECT_EQ(Eigen::nbThreads(), 1);
    setComputeThreads(2);
    EXPECT_EQ(Eigen::nbThreads(), 1);
}

TEST_F(ComputeThreadsRestored, SmallWorkRunsOnOneThreadLargeWorkOnTheComputeThreads)
{
    setComputeThreads(2);
    EXPECT_EQ(computeThreads(), 2);
    EXPECT_EQ(threadsFor(0.0), 1);
    EXPECT_EQ(threadsFor(parallelWorkThreshold * 0.999), 1);
    EXPECT_EQ(threadsFor(parallelWorkThreshold), 2);
    EXPECT_EQ(threadsFor(1e12), 2);
    setComputeThreads(1);  // the desktop app's policy
    EXPECT_EQ(threadsFor(1e12), 1);
}

TEST_F(ComputeThreadsRestored, ZeroOrLessRestoresTheDefault)
{
    const int defaultThreads = computeThreads();
    EXPECT_GE(defaultThreads, 1);
    setComputeThreads(3);
    EXPECT_EQ(computeThreads(), 3);
    setComputeThreads(-1);
    EXPECT_EQ(computeThreads(), defaultThreads);
    setComputeThreads(3);
    setComputeThreads(0);
    EXPECT_EQ(computeThreads(), defaultThreads);
}

// Each thread of a team finds its own buffer: numbers 0 to threads - 1, each once; 0 outside.
TEST(ThreadNumber, NumbersTheThreadsOfATeamFromZero)
{
    EXPECT_EQ(threadNumber(), 0);
    std::vector<int> seen(2, 0);
#pragma omp parallel num_threads(2)
    {
        const int number = threadNumber();
        if (number >= 0 && number < 2) {
#pragma omp atomic
            ++seen[static_cast<std::size_t>(number)];
        }
    }
    EXPECT_EQ(seen[0], 1);
#ifdef _OPENMP
    EXPECT_EQ(seen[1], 1);
#endif
}

}  // namespace
}  // namespace qkv
