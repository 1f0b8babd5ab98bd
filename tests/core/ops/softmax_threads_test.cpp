// The softmax's OpenMP loop obeys the one thread policy (core/common/parallelism.hpp): the app
// sets one thread per computation (ui/document/compute_threads.cpp), and a loop of our own that
// starts a team of its own on two cores fights the GUI thread (docs/architecture.md, "Rules learned on this machine").

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/ops/softmax.hpp"
#include "core/common/parallelism.hpp"
#include "support/thread_count.hpp"

namespace qkv {
namespace {

// In a fresh process (no team started yet): runs a softmax large enough for the parallel loop
// with computations limited to `threads`, and exits 0 when the process gained exactly `expectedNew`.
[[noreturn]] void softmaxWithComputeThreads(int threads, int expectedNew)
{
    setComputeThreads(threads);
    testing::exitWhenWorkGainsThreads(expectedNew, [] {
        std::vector<bool> fullyMasked;
        const MatrixF attention = softmaxForward(MatrixF::Random(1024, 1024), AttentionMask{}, fullyMasked);
        return std::abs(attention.row(0).sum() - 1.0f) < 1e-5f;
    });
}

TEST(SoftmaxThreads, OneComputeThreadMeansNoTeam)
{
#ifndef _OPENMP
    GTEST_SKIP() << "built without OpenMP (QKV_OPENMP=OFF): the loop is serial anyway";
#endif
    // The control (two threads) holds because the loop does start a second thread then.
    testing::expectNewThreadsOnlyWhenAllowed(softmaxWithComputeThreads);
}

}  // namespace
}  // namespace qkv
