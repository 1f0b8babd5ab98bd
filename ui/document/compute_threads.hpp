#pragma once
// How many threads one computation may use inside the desktop app.

namespace qkv::ui {

// One. The app already computes off the GUI thread (ComputeRunner), so a team would compete
// with the GUI thread for this machine's two cores: measured with bench/ui/qkv_ui_latency_bench,
// control change to painted frame at (128 tokens, 512, 8) took ~100 ms with a two-thread team
// and ~18 ms without (docs/benchmarks.md). The headless commands keep every core for large work
// (core/common/parallelism.hpp). Call once at start-up, before any result is computed.
void useOneThreadPerComputation();

}  // namespace qkv::ui
