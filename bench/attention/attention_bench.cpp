// Attention forward (all heads, output projection included) in GFLOP/s, beside the float GEMM
// rate Eigen reaches on the same machine in the same run (the ceiling the forward pass is
// measured against: the target is at least 70% of it at (2048, 1024, 16)).
//
//   qkv_attention_bench --benchmark_min_time=1
//
// Variants (docs/benchmarks.md):
//   BM_AttentionForward             what the export computes: scores kept, every core
//   BM_AttentionForwardWeightsOnly  keepScores = false: attention weights and outputs only,
//                                   what PyTorch's nn.MultiheadAttention returns
//   BM_AttentionForwardOneThread    the app's policy (ui/document/compute_threads.cpp): one thread
//   BM_EigenGemm, BM_EigenGemmOneThread  the ceilings for the two thread settings: Eigen's GEMM,
//                                   in row blocks of one team as the projections run it (Eigen
//                                   starts no threads itself: core/common/parallelism.hpp)
//   BM_StreamedHead/n               one causal head of d_k 64 over n tokens streamed
//                                   (streamed_attention.hpp): its 512 x 512 pooled map and row
//                                   statistics, never its n x n map; weights_per_s counts n^2 / 2
//   BM_StreamedLayer/n/d/h          a whole causal layer streamed (streamed_layer.hpp): every
//                                   head's 512 x 512 pooled map, statistics and the output;
//                                   peak_MiB the process's peak resident memory
//   BM_HeadRegion/n/side            one head's exact side x side region near the end of n tokens
//   BM_AttendBlockRows              steps 2-4 alone at (2048, 1024, 16) for query-row blocks of
//                                   64 to 1024 rows (a block of 128 rows x 2048 keys is the
//                                   1 MiB that head_blocks.cpp uses)
// bench/compare_pytorch.py runs this program beside PyTorch and prints the same-run table.

#include <sys/resource.h>

#include <benchmark/benchmark.h>
#include <Eigen/Core>

#include "bench/product_context.hpp"
#include "core/attention/head_blocks.hpp"
#include "core/attention/multi_head_attention.hpp"
#include "core/attention/projections.hpp"
#include "core/attention/streamed_attention.hpp"
#include "core/attention/streamed_layer.hpp"
#include "core/common/memory.hpp"
#include "core/common/parallelism.hpp"
#include "core/cost/cost_model.hpp"
#include "core/weights/attention_weights.hpp"

namespace {

using qkv::Index;
using qkv::MatrixF;

// The threads of one benchmark's computations, restored afterwards. 0 keeps the default.
class ComputeThreads {
public:
    explicit ComputeThreads(int threads) : saved_(qkv::computeThreads())
    {
        if (threads > 0) qkv::setComputeThreads(threads);
    }
    ~ComputeThreads() { qkv::setComputeThreads(saved_); }
    ComputeThreads(const ComputeThreads&) = delete;
    ComputeThreads& operator=(const ComputeThreads&) = delete;

private:
    int saved_;
};

// Args: n (queries = keys), d_model, h. Self-attention, no mask, with biases: as PyTorch's
// nn.MultiheadAttention is measured (bench/compare_pytorch.py).
void runAttentionForward(benchmark::State& state, bool keepScores, int threads)
{
    const ComputeThreads computeThreads(threads);
    const Index n = state.range(0), d_model = state.range(1), h = state.range(2);
    const MatrixF x = MatrixF::Random(n, d_model);  // n x d_model
    const qkv::AttentionWeights weights = qkv::initialiseWeights(d_model, 1, qkv::WeightInit::XavierUniform, true);
    qkv::AttentionOptions options;
    options.keepScores = keepScores;
    for (auto _ : state) {
        qkv::AttentionResult result = qkv::multiHeadAttentionForward(x, x, weights, weights.grouping(h), options);
        benchmark::DoNotOptimize(result.output.data());
    }
    const double flops = static_cast<double>(qkv::attentionForwardFlops(n, n, d_model, h));
    state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["threads"] = qkv::computeThreads();
}

void BM_AttentionForward(benchmark::State& state) { runAttentionForward(state, true, 0); }
void BM_AttentionForwardWeightsOnly(benchmark::State& state) { runAttentionForward(state, false, 0); }
void BM_AttentionForwardOneThread(benchmark::State& state) { runAttentionForward(state, true, 1); }

// Args: rows per block. Steps 2-4 (scores, softmax, A_i V_j) of every head over a result whose
// projections are done, scores kept, every core.
void BM_AttendBlockRows(benchmark::State& state)
{
    const Index n = 2048, d_model = 1024, h = 16;
    const MatrixF x = MatrixF::Random(n, d_model);  // n x d_model
    const qkv::AttentionWeights weights = qkv::initialiseWeights(d_model, 1, qkv::WeightInit::XavierUniform, true);
    qkv::AttentionResult result = qkv::multiHeadAttentionForward(x, x, weights, weights.grouping(h), {});
    for (auto _ : state) {
        qkv::attendHeadsInRowBlocks(result, true, state.range(0));
        benchmark::DoNotOptimize(result.headOutputs.data());
    }
    state.counters["block_MiB"] = static_cast<double>(state.range(0) * n) * 4.0 / (1024.0 * 1024.0);
}
BENCHMARK(BM_AttendBlockRows)
    ->ArgName("rows")
    ->Arg(64)
    ->Arg(128)
    ->Arg(256)
    ->Arg(512)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void attentionSizes(benchmark::internal::Benchmark* b)
{
    b->ArgNames({"n", "d_model", "h"})
        ->Args({16, 64, 4})
        ->Args({128, 512, 8})
        ->Args({512, 768, 12})
        ->Args({2048, 1024, 16})
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
}
BENCHMARK(BM_AttentionForward)->Apply(attentionSizes);
BENCHMARK(BM_AttentionForwardWeightsOnly)->Apply(attentionSizes);
BENCHMARK(BM_AttentionForwardOneThread)->Apply(attentionSizes);

// The reference: one float GEMM of the projection's shape, (n x d_model)(d_model x d_model).
void runEigenGemm(benchmark::State& state, int threads)
{
    const ComputeThreads computeThreads(threads);
    const Index n = state.range(0), d_model = state.range(1);
    const MatrixF a = MatrixF::Random(n, d_model), b = MatrixF::Random(d_model, d_model);
    MatrixF c(n, d_model);
    for (auto _ : state) {
        qkv::projectTogether({{a, b, c}});
        benchmark::DoNotOptimize(c.data());
    }
    const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(d_model) * static_cast<double>(d_model);
    state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["threads"] = qkv::computeThreads();
}
void BM_EigenGemm(benchmark::State& state) { runEigenGemm(state, 0); }
void BM_EigenGemmOneThread(benchmark::State& state) { runEigenGemm(state, 1); }
BENCHMARK(BM_EigenGemm)
    ->ArgNames({"n", "d_model"})
    ->Args({2048, 1024})
    ->Args({512, 768})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_EigenGemmOneThread)
    ->ArgNames({"n", "d_model"})
    ->Args({2048, 1024})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

void BM_StreamedHead(benchmark::State& state)
{
    const Index n = state.range(0), d_k = 64;
    const MatrixF query = MatrixF::Random(n, d_k), key = MatrixF::Random(n, d_k);  // n x d_k each
    qkv::AttentionMask mask;
    mask.causal = true;
    const qkv::HeadScoresInput head{query, key, 0.125f, 0.0, mask};
    for (auto _ : state) {
        qkv::Expected<qkv::StreamedAttention> streamed = qkv::streamHeadAttention(head, 512, 512);
        if (!streamed) return state.SkipWithError(streamed.error().c_str());
        benchmark::DoNotOptimize(streamed->pooled.mean.data());
    }
    state.counters["weights_per_s"] =
        benchmark::Counter(static_cast<double>(n) * static_cast<double>(n) / 2.0, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_StreamedHead)->Arg(2048)->Arg(8192)->Unit(benchmark::kMillisecond)->UseRealTime();

// A long causal layer of generated weights and inputs: n tokens, d_model, h (args).
struct LongLayer {
    MatrixF input;  // n x d_model
    qkv::AttentionWeights weights;
    qkv::AttentionOptions options;
    LongLayer(Index n, Index d_model, Index h)
        : input(MatrixF::Random(n, d_model)), weights(qkv::initialiseWeights(d_model, qkv::HeadGrouping{h, h, d_model / h}, 1, qkv::WeightInit::XavierUniform, false))
    {
        options.mask.causal = true;
    }
};

double peakResidentMiB()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
}

// Args: n, d_model, h. Every head's 512 x 512 pooled map, its row statistics and the layer's
// output, streamed (streamed_layer.hpp). peak_MiB: the process's peak so far (run this
// benchmark alone, --benchmark_filter, for the layer's own).
void BM_StreamedLayer(benchmark::State& state)
{
    const LongLayer layer(state.range(0), state.range(1), state.range(2));
    const qkv::HeadGrouping grouping = layer.weights.grouping(state.range(2));
    for (auto _ : state) {
        qkv::Expected<qkv::StreamedLayer> streamed =
            qkv::streamedMultiHeadAttention(layer.input, layer.input, layer.weights, grouping, layer.options);
        if (!streamed) return state.SkipWithError(streamed.error().c_str());
        benchmark::DoNotOptimize(streamed->attention.output.data());
    }
    state.counters["peak_MiB"] = peakResidentMiB();
    state.counters["threads"] = qkv::computeThreads();
}
BENCHMARK(BM_StreamedLayer)->Args({32768, 512, 8})->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

// Args: n, region side. The exact region of one head near the end of a causal n-token layer
// (its rows' normalisers over every key, then the region's weights): what a zoom computes.
void BM_HeadRegion(benchmark::State& state)
{
    const Index n = state.range(0), side = state.range(1), d_k = 64;
    const MatrixF query = MatrixF::Random(n, d_k), key = MatrixF::Random(n, d_k);  // n x d_k each
    qkv::AttentionMask mask;
    mask.causal = true;
    const qkv::HeadScoresInput head{query, key, 0.125f, 0.0, mask};
    for (auto _ : state) {
        qkv::Expected<MatrixF> region = qkv::attentionRegion(head, n - side, n, n - 2 * side, n - side);
        if (!region) return state.SkipWithError(region.error().c_str());
        benchmark::DoNotOptimize(region->data());
    }
}
BENCHMARK(BM_HeadRegion)->Args({32768, 1024})->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char** argv)
{
    // As the app does: steady-state recomputes reuse memory instead of faulting in new pages.
    qkv::keepLargeAllocationsForReuse();
    qkv::bench::addProductContext();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
