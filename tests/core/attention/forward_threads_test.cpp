// The forward pass shares its heads among at most Eigen::nbThreads() threads: the app sets one
// thread per computation (ui/document/compute_threads.cpp), and a team of our own on two cores
// would fight the GUI thread (design.md section 5). The export keeps Eigen's default and uses
// every core.

#include <dirent.h>

#include <cstdlib>

#include <gtest/gtest.h>

#include "core/attention/multi_head_attention.hpp"

namespace qkv {
namespace {

// Threads of this process now (an OpenMP team, once started, stays as idle threads).
int threadCount()
{
    int count = 0;
    if (DIR* tasks = ::opendir("/proc/self/task")) {
        while (const dirent* entry = ::readdir(tasks)) count += entry->d_name[0] != '.' ? 1 : 0;
        ::closedir(tasks);
    }
    return count;
}

// In a fresh process (no team started yet): a forward pass with enough work for the parallel
// loop over heads, with Eigen limited to `threads`; exits 0 when the process gained exactly
// `expectedNew` threads and the result is a distribution.
[[noreturn]] void forwardWithEigenThreads(int threads, int expectedNew)
{
    Eigen::setNbThreads(threads);
    const Index n = 256, d_model = 64, h = 8;
    const MatrixF x = MatrixF::Random(n, d_model);  // n x d_model
    const AttentionWeights weights = initialiseWeights(d_model, d_model, 1, WeightInit::XavierUniform, false);
    const int before = threadCount();
    const AttentionResult r = multiHeadAttentionForward(x, x, weights, h, {});
    const bool rowsSumToOne = std::abs(r.heads[7].attention.row(0).sum() - 1.0f) < 1e-5f;
    std::exit(rowsSumToOne && threadCount() - before == expectedNew ? 0 : 1);
}

TEST(ForwardThreads, OneEigenThreadMeansNoTeam)
{
#ifndef _OPENMP
    GTEST_SKIP() << "built without OpenMP (QKV_OPENMP=OFF): the forward pass is serial anyway";
#endif
    // Each case in a process of its own: the first team a process starts stays.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(forwardWithEigenThreads(1, 0), ::testing::ExitedWithCode(0), "");
    // The control: allowed two, the heads do run on a second thread, so the check can fail.
    EXPECT_EXIT(forwardWithEigenThreads(2, 1), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace qkv
