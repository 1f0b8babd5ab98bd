// The latest-only task (ui/background/latest_task.hpp): only the latest request is delivered, at
// most one work runs, delivery is on the GUI thread, small work runs inline, and destroying the
// task while its work runs waits for it and delivers nothing.

#include <QCoreApplication>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "tests/ui/support/wait_until.hpp"
#include "ui/background/latest_task.hpp"

namespace qkv::ui {
namespace {

using Run = LatestTaskBase::Run;
using testing::waitUntil;

// A work that blocks until open() (so a test decides when it ends).
class Gate {
public:
    std::function<void()> waiter() const
    {
        return [future = future_] { future.wait(); };
    }
    void open() { promise_.set_value(); }

private:
    std::promise<void> promise_;
    std::shared_future<void> future_ = promise_.get_future().share();
};

TEST(LatestTask, OnlyTheLastOfManyRapidRequestsIsDelivered)
{
    std::vector<int> delivered;
    std::atomic<int> ran{0};
    Gate gate;
    {
        LatestTask<int> task([&](int value) { delivered.push_back(value); });
        task.request([wait = gate.waiter(), &ran] {
            wait();
            ++ran;
            return 0;
        });
        for (int i = 1; i <= 20; ++i) {
            task.request([i, &ran] {
                ++ran;
                return i;
            });
        }
        EXPECT_TRUE(task.isBusy());
        gate.open();
        ASSERT_TRUE(waitUntil([&] { return !task.isBusy(); }));
    }
    EXPECT_EQ(delivered, std::vector<int>{20});
    // The running work and the last request ran; the 19 that waited in between never did.
    EXPECT_EQ(ran.load(), 2);
}

TEST(LatestTask, CancelDropsTheRunningResult)
{
    int delivered = 0;
    Gate gate;
    LatestTask<int> task([&](int) { ++delivered; });
    task.request([wait = gate.waiter()] {
        wait();
        return 1;
    });
    const quint64 before = task.generation();
    task.cancel();
    EXPECT_GT(task.generation(), before);
    gate.open();
    ASSERT_TRUE(waitUntil([&] { return !task.isBusy(); }));
    QCoreApplication::processEvents();
    EXPECT_EQ(delivered, 0);
}

TEST(LatestTask, ASlowWorkIsSupersededByAFastRequestAndNeverOverlapsIt)
{
    std::vector<QString> delivered;
    std::atomic<int> running{0}, mostAtOnce{0};
    const auto tracked = [&](std::function<void()> body, QString name) {
        return [&running, &mostAtOnce, body = std::move(body), name] {
            const int now = ++running;
            int seen = mostAtOnce.load();
            while (now > seen && !mostAtOnce.compare_exchange_weak(seen, now)) {}
            body();
            QThread::msleep(5);
            --running;
            return name;
        };
    };
    Gate gate;
    LatestTask<QString> task([&](const QString& name) { delivered.push_back(name); });
    task.request(tracked(gate.waiter(), QStringLiteral("slow")));
    // Small work asked for while the slow one runs waits its turn (never two at once)...
    task.request(tracked([] {}, QStringLiteral("fast")), Run::InlineWhenIdle);
    EXPECT_TRUE(delivered.empty());
    gate.open();
    ASSERT_TRUE(waitUntil([&] { return !task.isBusy(); }));
    // ...and the slow result, finished after the fast request was made, is dropped.
    EXPECT_EQ(delivered, std::vector<QString>{QStringLiteral("fast")});
    EXPECT_EQ(mostAtOnce.load(), 1);
}

TEST(LatestTask, BackgroundWorkRunsOnThePoolAndIsDeliveredOnTheGuiThread)
{
    QThread* gui = QThread::currentThread();
    std::atomic<QThread*> workThread{nullptr};
    QThread* deliveryThread = nullptr;
    std::vector<bool> busy;
    LatestTask<int> task([&](int) { deliveryThread = QThread::currentThread(); });
    task.setBusyCallback([&](bool b) { busy.push_back(b); });
    task.request([&workThread] {
        workThread = QThread::currentThread();
        return 7;
    });
    EXPECT_EQ(deliveryThread, nullptr);  // not before request() returns
    ASSERT_TRUE(waitUntil([&] { return deliveryThread != nullptr; }));
    EXPECT_NE(workThread.load(), gui);
    EXPECT_EQ(deliveryThread, gui);
    EXPECT_EQ(busy, (std::vector<bool>{true, false}));
    EXPECT_FALSE(task.isBusy());
}

TEST(LatestTask, SmallWorkRunsInlineAndIsDeliveredBeforeRequestReturns)
{
    QThread* workThread = nullptr;
    std::vector<int> delivered;
    std::vector<bool> busy;
    LatestTask<int> task([&](int value) { delivered.push_back(value); });
    task.setBusyCallback([&](bool b) { busy.push_back(b); });
    task.request(
        [&workThread] {
            workThread = QThread::currentThread();
            return 3;
        },
        Run::InlineWhenIdle);
    EXPECT_EQ(delivered, std::vector<int>{3});
    EXPECT_EQ(workThread, QThread::currentThread());
    EXPECT_TRUE(busy.empty());  // nothing went to the pool
    EXPECT_FALSE(task.isBusy());
}

TEST(LatestTask, TheCallbackMayRequestAgain)
{
    std::vector<int> delivered;
    LatestTask<int>* self = nullptr;
    LatestTask<int> task([&](int value) {
        delivered.push_back(value);
        if (value < 3) self->request([value] { return value + 1; });
    });
    self = &task;
    task.request([] { return 1; });
    ASSERT_TRUE(waitUntil([&] { return delivered.size() == 3 && !task.isBusy(); }));
    EXPECT_EQ(delivered, (std::vector<int>{1, 2, 3}));
}

TEST(LatestTask, AThrowingWorkLosesItsResultNotTheProcess)
{
    std::vector<int> delivered;
    LatestTask<int> task([&](int value) { delivered.push_back(value); });
    task.request([]() -> int { throw std::runtime_error("inline failure"); }, Run::InlineWhenIdle);
    task.request([]() -> int { throw std::runtime_error("pool failure"); });
    ASSERT_TRUE(waitUntil([&] { return !task.isBusy(); }));
    EXPECT_TRUE(delivered.empty());
    task.request([] { return 5; });
    ASSERT_TRUE(waitUntil([&] { return !task.isBusy(); }));
    EXPECT_EQ(delivered, std::vector<int>{5});
}

// An owner as views hold it: its task is declared after the data its work reads. Its
// destructor's body runs before its members are destroyed: it opens `destroying` then.
class Owner : public QObject {
public:
    Owner(int* delivered, Gate* destroying)
        : data_(1000, 1.0), task_([delivered](double) { ++*delivered; }), destroying_(destroying)
    {
    }
    ~Owner() override { destroying_->open(); }
    void start(std::atomic<bool>* started, std::atomic<bool>* finished)
    {
        task_.request([this, started, finished, until = destroying_->waiter()] {
            *started = true;
            until();  // runs on until the owner is being destroyed
            // Reads the owner: a use after free if the owner's destruction did not wait.
            const double sum = std::accumulate(data_.begin(), data_.end(), 0.0);
            *finished = true;
            return sum;
        });
    }

private:
    std::vector<double> data_;
    LatestTask<double> task_;
    Gate* destroying_;
};

TEST(LatestTask, DestroyingTheOwnerWhileItsWorkRunsWaitsAndDeliversNothing)
{
    int delivered = 0;
    std::atomic<bool> started{false}, finished{false};
    Gate destroying;
    auto* owner = new Owner(&delivered, &destroying);
    owner->start(&started, &finished);
    ASSERT_TRUE(waitUntil([&] { return started.load(); }));
    EXPECT_FALSE(finished);  // it waits for the destruction to begin
    delete owner;
    EXPECT_TRUE(finished);  // the task waited for its work before the data went
    QCoreApplication::processEvents();
    EXPECT_EQ(delivered, 0);
}

TEST(LatestTask, DestroyingATaskWithAWaitingRequestNeverRunsIt)
{
    std::atomic<int> ran{0};
    int delivered = 0;
    Gate gate;
    {
        LatestTask<int> task([&](int) { ++delivered; });
        task.request([wait = gate.waiter(), &ran] {
            wait();
            ++ran;
            return 1;
        });
        task.request([&ran] {
            ++ran;
            return 2;
        });
        gate.open();
    }  // waits for the first; the waiting one is dropped
    QCoreApplication::processEvents();
    EXPECT_EQ(ran.load(), 1);
    EXPECT_EQ(delivered, 0);
}

}  // namespace
}  // namespace qkv::ui
