#pragma once
// When a computation opens a team of threads: decided here, once, for the whole project.
//
// Eigen never starts threads of its own (EIGEN_DONT_PARALLELIZE is defined for every target that
// uses qkv_core). Left to itself, Eigen forks and joins an OpenMP team for every product above
// ~1e5 multiply-adds; a preset fit runs thousands of those, and with a second process on this
// 2-core machine each join waits for a descheduled thread (measured: a 0.5 s export took 3-92 s
// with two at once). Instead, the code that has large independent work (the projections' row
// blocks, the heads' row blocks, softmax rows, statistics rows) opens one team itself, and only
// when threadsFor(work) says the work pays for it. Everything else runs on one thread.

namespace qkv {

// Multiply-adds (or comparable per-element steps) below which one thread is faster than a team:
// starting and joining one costs ~10-50 us on an idle machine and far more on a busy one.
inline constexpr double parallelWorkThreshold = 2.0e6;

// A pass over attention weights that takes an exp or a log of each (softmax, entropy) costs about
// as much per weight as this many multiply-adds: such passes go parallel from ~2.6e5 weights.
inline constexpr double workPerWeightWithExp = 8.0;

// The threads one computation may use: OpenMP's default (every core, or OMP_NUM_THREADS) until
// setComputeThreads() says otherwise. The desktop app sets one: it computes off the GUI thread
// already, and a team would compete with the GUI thread for two cores.
int computeThreads();
// threads <= 0 restores the default. Affects computations started afterwards.
void setComputeThreads(int threads);

// Threads for one parallel region doing `work` multiply-adds: 1 below parallelWorkThreshold,
// else computeThreads().
int threadsFor(double work);

// The calling thread's number in its team, 0 to threads - 1 (0 outside a parallel region or
// without OpenMP): which per-thread buffer a thread of a team works in.
int threadNumber();

}  // namespace qkv
