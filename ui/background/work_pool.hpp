#pragma once
// The thread pool the app's own background work runs on: the views' latest-only tasks, the
// document's computation and file loads.
//
// Not Qt's global pool: Qt's raster engine splits large fills and line drawing across
// QThreadPool::globalInstance() and the GUI thread waits for those pieces, so a long computation
// queued there held painting until it ended (measured: one frame of the Comparison tab took
// 2.1 s at d_model 4096 while its score timing ran).

class QThreadPool;

namespace qkv::ui {

// As many threads as cores; created on first use, lives as long as the application.
QThreadPool* workPool();

}  // namespace qkv::ui
