#include "ui/background/latest_task.hpp"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <QtDebug>

#include <exception>

#include "ui/background/work_pool.hpp"

namespace qkv::ui {

namespace {

// A work that throws loses its result, never the process (the destructor's wait would rethrow).
std::function<void()> guarded(std::function<void()> work)
{
    return [work = std::move(work)] {
        try {
            work();
        } catch (const std::exception& error) {
            qWarning("LatestTask: work failed, result dropped: %s", error.what());
        } catch (...) {
            qWarning("LatestTask: work failed, result dropped");
        }
    };
}

}  // namespace

LatestTaskBase::LatestTaskBase() = default;

LatestTaskBase::~LatestTaskBase()
{
    cancel();
    // The work may read its owner's members: it must end before they go. Nothing is delivered:
    // the watchers are the anchor's children and go with it, their queued signals unsent.
    if (running_) running_->waitForFinished();
}

void LatestTaskBase::cancel()
{
    ++generation_;
    waiting_.reset();
}

void LatestTaskBase::submit(Job job, Run run)
{
    ++generation_;
    job.work = guarded(std::move(job.work));
    if (running_) {
        waiting_ = std::move(job);  // replaces an older waiting request, which never runs
        return;
    }
    if (run == Run::InlineWhenIdle) {
        job.work();
        job.deliver();
        return;
    }
    start(std::move(job));
    setBusy(true);
}

void LatestTaskBase::start(Job job)
{
    auto* watcher = new QFutureWatcher<void>(&anchor_);
    running_ = watcher;
    QObject::connect(watcher, &QFutureWatcherBase::finished, &anchor_,
                     [this, watcher, generation = generation_, deliver = std::move(job.deliver)] {
                         finished(watcher, generation, deliver);
                     });
    watcher->setFuture(QtConcurrent::run(workPool(), std::move(job.work)));
}

// `deliver` is a copy: the callback may destroy the task, and the connection with it.
void LatestTaskBase::finished(QFutureWatcher<void>* watcher, quint64 generation, std::function<void()> deliver)
{
    watcher->deleteLater();
    running_ = nullptr;
    if (waiting_) {
        Job next = std::move(*waiting_);
        waiting_.reset();
        start(std::move(next));  // still busy: no busy signal in between
    } else {
        setBusy(false);
    }
    // Last, so that the callback sees the task's new state and may request again.
    if (generation == generation_) deliver();
}

void LatestTaskBase::setBusy(bool busy)
{
    if (busyChanged_) busyChanged_(busy);
}

}  // namespace qkv::ui
