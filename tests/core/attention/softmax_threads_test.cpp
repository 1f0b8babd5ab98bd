// The softmax's OpenMP loop obeys the thread policy Eigen is given: the app sets one thread per
// computation (ui/document/compute_threads.cpp), and a loop of our own that starts a team of its
// own on two cores fights the GUI thread (design.md section 5).

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

// In a fresh process (no team started yet): runs a softmax large enough for the parallel loop
// with Eigen limited to `threads`, and exits 0 when the process gained exactly `expectedNew`.
[[noreturn]] void softmaxWithEigenThreads(int threads, int expectedNew)
{
    Eigen::setNbThreads(threads);
    const int before = threadCount();
    std::vector<bool> fullyMasked;
    const MatrixF attention = softmaxForward(MatrixF::Random(1024, 1024), AttentionMask{}, fullyMasked);
    const bool rowsSumToOne = std::abs(attention.row(0).sum() - 1.0f) < 1e-5f;
    std::exit(rowsSumToOne && threadCount() - before == expectedNew ? 0 : 1);
}

TEST(SoftmaxThreads, OneEigenThreadMeansNoTeam)
{
#ifndef _OPENMP
    GTEST_SKIP() << "built without OpenMP (QKV_OPENMP=OFF): the loop is serial anyway";
#endif
    // Each case in a process of its own: the first team a process starts stays.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(softmaxWithEigenThreads(1, 0), ::testing::ExitedWithCode(0), "");
    // The control: allowed two, the loop does start a second thread, so the check can fail.
    EXPECT_EXIT(softmaxWithEigenThreads(2, 1), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace qkv
