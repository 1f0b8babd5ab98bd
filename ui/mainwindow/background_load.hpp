#pragma once
// Reading a file the user chose (weights, a checkpoint's headers, a layer) without holding the
// GUI thread: a large layer takes seconds. The window stays usable meanwhile, unlike
// ui/document/off_thread.hpp, which holds input back for session files.

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>

#include <utility>

#include "ui/mainwindow/status_summary.hpp"
#include "ui/views/work_pool.hpp"

namespace qkv::ui {

// Runs `work` on the thread pool and hands its Result to `done` on `context`'s (the GUI)
// thread, with the status bar busy meanwhile. `work` must not touch widgets; Result must be
// default-constructible and copyable. Nothing runs `done` if `context` is destroyed first.
template <class Result, class Work, class Done>
void loadInBackground(QObject* context, StatusSummary* status, Work work, Done done)
{
    auto* watcher = new QFutureWatcher<Result>(context);
    QObject::connect(watcher, &QFutureWatcher<Result>::finished, context, [watcher, status, done] {
        const Result result = watcher->result();
        watcher->deleteLater();
        status->setBusy(false);
        done(result);
    });
    status->setBusy(true);
    watcher->setFuture(QtConcurrent::run(workPool(), std::move(work)));
}

}  // namespace qkv::ui
