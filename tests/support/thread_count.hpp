#pragma once
// Test support for the thread-policy tests (forward, softmax, preset fits): does a
// parallel loop start threads beyond what setComputeThreads allows? An OpenMP team, once
// started, stays as idle threads, so each case runs in a fresh process (a death test) and
// counts the threads the process gains.

#include <dirent.h>

#include <cstdlib>

#include <gtest/gtest.h>

namespace qkv::testing {

// Threads of this process now (an OpenMP team, once started, stays as idle threads).
inline int threadCount()
{
    int count = 0;
    if (DIR* tasks = ::opendir("/proc/self/task")) {
        while (const dirent* entry = ::readdir(tasks)) count += entry->d_name[0] != '.' ? 1 : 0;
        ::closedir(tasks);
    }
    return count;
}

// Ends the (death-test) process: runs `work`, which returns whether its result is sane, and
// exits 0 when it is and the process gained exactly `expectedNew` threads while it ran.
template <class Work>
[[noreturn]] void exitWhenWorkGainsThreads(int expectedNew, Work work)
{
    const int before = threadCount();
    const bool resultSane = work();
    std::exit(resultSane && threadCount() - before == expectedNew ? 0 : 1);
}

// `runWithThreads(threads, expectedNew)` ends its process through exitWhenWorkGainsThreads
// after setting setComputeThreads(threads). Each case runs in a process of its own: the first
// team a process starts stays. With one Eigen thread no thread may be gained; the control, two
// Eigen threads, must gain one, so the check can fail.
inline void expectNewThreadsOnlyWhenAllowed(void (*runWithThreads)(int threads, int expectedNew))
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(runWithThreads(1, 0), ::testing::ExitedWithCode(0), "")
        << "one compute thread: the work must start no thread (or its result was wrong)";
    EXPECT_EXIT(runWithThreads(2, 1), ::testing::ExitedWithCode(0), "")
        << "control, two compute threads: the work must start exactly one thread (or its result was wrong)";
}

}  // namespace qkv::testing
