#pragma once
// The thread pool the app's own background work runs on: the views' latest-only tasks, the
// document's computation and file loads.
//
// Not Qt's global pool: Qt's raster engine splits large fills and line drawing across
// QThreadPool::globalInstance() and the GUI thread waits for those pieces, so a long computation
// queued there held painting until it ended (measured: one frame of the Comparison tab took
// 2.1 s at d_model 4096 while its score timing ran).

#include <functional>

class QThreadPool;

namespace qkv::ui {

// As many threads as cores; created on first use, lives as long as the application.
QThreadPool* workPool();

// work(0), ..., work(count - 1), independent pieces of one job, on the calling thread and on
// whichever threads of the work pool are idle now (none is waited for: with every pool thread busy,
// the caller does them all). Returns when every piece has run; a piece that throws is rethrown
// here. For a task already on the pool whose pieces may use the other core while it is free (a
// heads figure's panels).
void forEachOnIdleThreads(int count, const std::function<void(int)>& work);

}  // namespace qkv::ui
