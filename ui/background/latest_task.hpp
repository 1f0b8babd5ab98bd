#pragma once
// The one "latest request wins" background task (docs/architecture.md, "Layers"): every view that computes
// something heavy goes through one of these, never a hand-rolled scheme.
//
//   - request(work) runs `work` on the thread pool (QtConcurrent). At most one work of a task
//     runs at a time and at most one waits: a newer request replaces the waiting one.
//   - Each request supersedes every earlier one: only the latest request's result is delivered;
//     the results of superseded requests are dropped (a generation counter).
//   - Delivery is on the thread that made the task (the GUI thread), through its callback.
//   - Small work can run inline (Run::InlineWhenIdle): on the calling thread and delivered
//     before request() returns, when no work of this task is running; otherwise it waits its
//     turn like any request. So two works of one task never run at the same time, and they may
//     share state (e.g. a weights cache).
//   - Destruction drops everything not yet delivered and waits for the running work to end, so
//     a work may read its owner's members: declare the task after those members (members are
//     destroyed in reverse order). Work captures its inputs by value, must not wait for the GUI
//     thread (the destructor would deadlock) and should not throw (a throwing work is logged
//     and its result dropped).
//
// Usage, as a member of the widget that owns the work:
//     LatestTask<ScoreTiming> timing_{[this](ScoreTiming t) { showTiming(t); }};
//     timing_.request([xq, wq] { return timeScoresBothWays(xq, ...); });

#include <QObject>

#include <functional>
#include <memory>
#include <optional>
#include <utility>

template <typename T>
class QFutureWatcher;

namespace qkv::ui {

// The scheduling, free of the result type (latest_task.cpp).
class LatestTaskBase {
public:
    enum class Run {
        InBackground,    // on the thread pool
        InlineWhenIdle,  // now on the calling thread if nothing runs, else in the background
    };

    LatestTaskBase(const LatestTaskBase&) = delete;
    LatestTaskBase& operator=(const LatestTaskBase&) = delete;

    // A work is running on the pool (a waiting one always has a running one before it).
    bool isBusy() const { return running_ != nullptr; }
    // Counts requests (and cancels); a result is delivered only if its request is the latest.
    quint64 generation() const { return generation_; }
    // Drops the waiting request and the running work's result; does not wait.
    void cancel();
    // Called with true when work starts on the pool and false when none is left running.
    void setBusyCallback(std::function<void(bool busy)> callback) { busyChanged_ = std::move(callback); }

protected:
    struct Job {
        std::function<void()> work;     // any thread: computes and keeps the result
        std::function<void()> deliver;  // the owner's thread, only if still the latest
    };
    LatestTaskBase();
    ~LatestTaskBase();  // cancels, then waits for the running work
    void submit(Job job, Run run);

private:
    void start(Job job);
    void finished(QFutureWatcher<void>* watcher, quint64 generation, std::function<void()> deliver);
    void setBusy(bool busy);

    QObject anchor_;  // parent of the watchers: none outlives the task, so none delivers late
    QFutureWatcher<void>* running_ = nullptr;
    std::optional<Job> waiting_;
    quint64 generation_ = 0;
    std::function<void(bool)> busyChanged_;
};

template <typename T>
class LatestTask : public LatestTaskBase {
public:
    using Work = std::function<T()>;
    using Deliver = std::function<void(T)>;

    explicit LatestTask(Deliver deliver) : deliver_(std::move(deliver)) {}

    // Supersedes every earlier request (see the top of this file).
    void request(Work work, Run run = Run::InBackground)
    {
        // The worker writes the slot; the owner's thread reads it after the work has finished.
        auto slot = std::make_shared<std::optional<T>>();
        submit(Job{[work = std::move(work), slot] { slot->emplace(work()); },
                   [deliver = deliver_, slot] {
                       if (slot->has_value()) deliver(std::move(**slot));
                   }},
               run);
    }

private:
    Deliver deliver_;
};

}  // namespace qkv::ui
