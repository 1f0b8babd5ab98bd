#pragma once
// Runs a file read or write on the thread pool and waits for it, while the window keeps
// painting (user input is held back meanwhile, so nothing edits the document under it). For
// session files, which can be hundreds of MB (loaded weights at d_model 4096).

#include <QEventLoop>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <utility>

#include "ui/background/work_pool.hpp"

namespace qkv::ui {

// `work` must not touch widgets; its result type must be default-constructible.
template <class Work>
auto runOffGuiThread(Work work) -> decltype(work())
{
    using Result = decltype(work());
    QFutureWatcher<Result> watcher;
    QEventLoop loop;
    QObject::connect(&watcher, &QFutureWatcherBase::finished, &loop, &QEventLoop::quit);
    watcher.setFuture(QtConcurrent::run(std::move(work)));
    if (!watcher.isFinished()) loop.exec(QEventLoop::ExcludeUserInputEvents);
    return watcher.result();
}

}  // namespace qkv::ui
