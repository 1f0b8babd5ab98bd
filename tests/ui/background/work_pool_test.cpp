// Pieces of one job side by side (ui/background/work_pool.hpp, forEachOnIdleThreads): every piece
// runs once, and a job already on the work pool finishes on its own thread when every other pool
// thread is busy (no piece waits in the pool's queue for the job that started it).

#include <QThread>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <future>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "ui/background/work_pool.hpp"

namespace qkv::ui {
namespace {

TEST(WorkPool, EveryPieceRunsOnce)
{
    for (const int count : {0, 1, 2, 13, 200}) {
        std::vector<std::atomic<int>> runs(static_cast<std::size_t>(count));
        forEachOnIdleThreads(count, [&](int piece) { ++runs[static_cast<std::size_t>(piece)]; });
        for (int piece = 0; piece < count; ++piece) EXPECT_EQ(runs[static_cast<std::size_t>(piece)].load(), 1) << piece;
    }
}

TEST(WorkPool, APieceThatThrowsIsRethrownToTheCaller)
{
    std::atomic<int> runs{0};
    EXPECT_THROW(forEachOnIdleThreads(40,
                                      [&runs](int piece) {
                                          ++runs;
                                          if (piece == 17) throw std::runtime_error("piece 17");
                                      }),
                 std::runtime_error);
    EXPECT_EQ(runs.load(), 40) << "the other pieces still run";
}

TEST(WorkPool, AJobOnThePoolFinishesWhileEveryOtherPoolThreadIsBusy)
{
    // Hold every pool thread but one, which then starts a job of many pieces.
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    const int others = workPool()->maxThreadCount() - 1;
    std::atomic<int> holding{0};
    std::vector<QFuture<void>> held;
    for (int i = 0; i < others; ++i)
        held.push_back(QtConcurrent::run(workPool(), [&holding, released] {
            ++holding;
            released.wait();
        }));
    while (holding.load() < others) QThread::msleep(1);
    std::atomic<int> pieces{0};
    QFuture<void> job = QtConcurrent::run(workPool(), [&pieces] {
        forEachOnIdleThreads(64, [&pieces](int) { ++pieces; });
    });
    const bool finished = [&] {
        for (int waited = 0; waited < 10000; ++waited) {
            if (job.isFinished()) return true;
            QThread::msleep(1);
        }
        return false;
    }();
    release.set_value();
    for (QFuture<void>& f : held) f.waitForFinished();
    job.waitForFinished();
    EXPECT_TRUE(finished) << "the job waited for a pool thread";
    EXPECT_EQ(pieces.load(), 64);
}

}  // namespace
}  // namespace qkv::ui
