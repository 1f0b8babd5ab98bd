// The forward pass shares its heads among at most computeThreads() threads
// (core/common/parallelism.hpp): the app sets one thread per computation
// (ui/document/compute_threads.cpp), and a team of our own on two cores would fight the GUI thread
// (docs/architecture.md, "Rules learned on this machine"). The export keeps the default and uses every core for large work.

#include <cmath>

#include <gtest/gtest.h>

#include "core/attention/multi_head_attention.hpp"
#include "core/common/parallelism.hpp"
#include "support/thread_count.hpp"

namespace qkv {
namespace {

// In a fresh process (no team started yet): a forward pass with enough work for the parallel
// loop over heads, with computations limited to `threads`; exits 0 when the process gained exactly
// `expectedNew` threads and the result is a distribution.
[[noreturn]] void forwardWithComputeThreads(int threads, int expectedNew)
{
    setComputeThreads(threads);
    const Index n = 256, d_model = 64, h = 8;
    const MatrixF x = MatrixF::Random(n, d_model);  // n x d_model
    const AttentionWeights weights = initialiseWeights(d_model, d_model, 1, WeightInit::XavierUniform, false);
    testing::exitWhenWorkGainsThreads(expectedNew, [&] {
        const AttentionResult r = multiHeadAttentionForward(x, x, weights, h, {});
        return std::abs(r.heads[7].attention.row(0).sum() - 1.0f) < 1e-5f;
    });
}

TEST(ForwardThreads, OneComputeThreadMeansNoTeam)
{
#ifndef _OPENMP
    GTEST_SKIP() << "built without OpenMP (QKV_OPENMP=OFF): the forward pass is serial anyway";
#endif
    // The control (two threads) holds because the heads do run on a second thread then.
    testing::expectNewThreadsOnlyWhenAllowed(forwardWithComputeThreads);
}

}  // namespace
}  // namespace qkv
