#pragma once
// How many threads Eigen's products may use inside the desktop app.

namespace qkv::ui {

// One. The app already computes off the GUI thread (ComputeRunner), so a parallel GEMM team
// would compete with the GUI thread for this machine's two cores: measured with
// bench/ui/qkv_ui_latency_bench, control change to painted frame at (128 tokens, 512, 8) took
// ~100 ms with Eigen's OpenMP team and ~18 ms without (docs/benchmarks.md). The headless
// export keeps every core. Call once at start-up, before any result is computed.
void useOneEigenThreadPerComputation();

}  // namespace qkv::ui
