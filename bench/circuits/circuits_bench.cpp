// A head's QK and OV circuits (core/circuits/head_circuits.hpp) on synthetic checkpoints of real
// shape (bench/pretrained/synthetic_checkpoints.hpp: random weights, the Hub's names and sizes).
//
//   qkv_circuits_bench --benchmark_min_time=1
//
//   BM_CircuitBasis/<model>        W_U W_E (both tied: the Gram matrix W_E^T W_E, upper panels)
//   BM_ExportCircuits/gpt2-small   what `export --layer all --circuits 10` adds on a 16-token prompt
//                                  of 4 distinct tokens: the basis, then modelCircuits (every head's
//                                  spectrum, and its QK and OV top 10 as two large products)
//   BM_CopyingScoreGrid/qwen3-0.6b the basis and every head's copying score, on one thread
//   BM_TokenCircuits/qwen3-0.6b/qk|ov[/one_thread]  one token's top 10 of one head (layer 13,
//                                  head 5): the whole of W_E (or W_U) read once, 622 MB in float
//
// Counters: process_cpu_s, the CPU seconds of every thread of the process per iteration
// (getrusage): on this shared 2-core machine the wall time grows with the others' load, this less.
// Threads: computeThreads() (OMP_NUM_THREADS or every core, as the export), except where a name
// says one thread (the app's computations: setComputeThreads(1)). The checkpoints are written
// once under $QKV_BENCH_CHECKPOINTS (default: the temp directory's qkv_pretrained_bench/, shared
// with qkv_pretrained_bench) and reused.

#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/product_context.hpp"
#include "bench/pretrained/synthetic_checkpoints.hpp"
#include "core/circuits/head_circuits.hpp"
#include "core/common/memory.hpp"
#include "core/common/parallelism.hpp"

namespace {

using qkv::Index;
using qkv::bench::SyntheticShape;

// User and system CPU seconds of every thread of this process so far.
double processCpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
    };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The process's CPU seconds per iteration, from `start` (processCpuSeconds before the loop).
void setCpuCounter(benchmark::State& state, double start)
{
    state.counters["process_cpu_s"] = (processCpuSeconds() - start) / static_cast<double>(state.iterations());
}

// One thread for the benchmark's body when `oneThread`, the default afterwards.
struct Threads {
    explicit Threads(bool oneThread) { qkv::setComputeThreads(oneThread ? 1 : 0); }
    ~Threads() { qkv::setComputeThreads(0); }
};

void BM_CircuitBasis(benchmark::State& state, const SyntheticShape& shape, bool oneThread)
{
    const qkv::PretrainedModel* m = qkv::bench::syntheticModel(shape);
    if (!m) return state.SkipWithError("could not write or open the synthetic checkpoint");
    const Threads threads(oneThread);
    const double start = processCpuSeconds();
    for (auto _ : state) {
        qkv::Expected<qkv::CircuitBasis> basis = qkv::circuitBasis(*m);
        if (!basis) return state.SkipWithError(basis.error().c_str());
        benchmark::DoNotOptimize(basis->readoutTimesEmbedding.data());
    }
    setCpuCounter(state, start);
    state.counters["threads"] = qkv::computeThreads();
}

// A 16-token prompt of 4 distinct tokens (a BOS-like first id among them): as export reads it.
std::vector<std::int32_t> prompt16()
{
    const std::vector<std::int32_t> four{50256, 464, 3797, 3332};
    std::vector<std::int32_t> ids;
    for (int i = 0; i < 16; ++i) ids.push_back(four[static_cast<std::size_t>(i % 4)]);
    return ids;
}

void BM_ExportCircuits(benchmark::State& state, const SyntheticShape& shape)
{
    const qkv::PretrainedModel* m = qkv::bench::syntheticModel(shape);
    if (!m) return state.SkipWithError("could not write or open the synthetic checkpoint");
    const std::vector<std::int32_t> distinct = qkv::distinctTokenIds(prompt16());
    const double start = processCpuSeconds();
    for (auto _ : state) {
        qkv::Expected<qkv::CircuitBasis> basis = qkv::circuitBasis(*m);
        if (!basis) return state.SkipWithError(basis.error().c_str());
        qkv::Expected<std::vector<qkv::HeadCircuits>> all = qkv::modelCircuits(*m, *basis, distinct, 10);
        if (!all) return state.SkipWithError(all.error().c_str());
        benchmark::DoNotOptimize(all->data());
    }
    setCpuCounter(state, start);
    state.counters["threads"] = qkv::computeThreads();
}

void BM_CopyingScoreGrid(benchmark::State& state, const SyntheticShape& shape)
{
    const qkv::PretrainedModel* m = qkv::bench::syntheticModel(shape);
    if (!m) return state.SkipWithError("could not write or open the synthetic checkpoint");
    const Threads threads(true);
    const double start = processCpuSeconds();
    for (auto _ : state) {
        qkv::Expected<qkv::CircuitBasis> basis = qkv::circuitBasis(*m);
        if (!basis) return state.SkipWithError(basis.error().c_str());
        qkv::Expected<qkv::MatrixD> grid = qkv::copyingScoreGrid(*m, *basis);
        if (!grid) return state.SkipWithError(grid.error().c_str());
        benchmark::DoNotOptimize(grid->data());
    }
    setCpuCounter(state, start);
}

void BM_TokenCircuits(benchmark::State& state, const SyntheticShape& shape, qkv::CircuitSide side, bool oneThread)
{
    const qkv::PretrainedModel* m = qkv::bench::syntheticModel(shape);
    if (!m) return state.SkipWithError("could not write or open the synthetic checkpoint");
    const Threads threads(oneThread);
    const double start = processCpuSeconds();
    for (auto _ : state) {
        auto top = qkv::tokenCircuits(*m, {13, 5}, side, {9707}, 10);
        if (!top) return state.SkipWithError(top.error().c_str());
        benchmark::DoNotOptimize(top->data());
    }
    setCpuCounter(state, start);
}

void registerAll()
{
    std::vector<benchmark::internal::Benchmark*> all;
    const SyntheticShape& gpt2 = qkv::bench::gpt2Small;
    const SyntheticShape& qwen3 = qkv::bench::qwen3Small;
    all.push_back(benchmark::RegisterBenchmark("BM_CircuitBasis/gpt2-small", BM_CircuitBasis, gpt2, false));
    all.push_back(benchmark::RegisterBenchmark("BM_ExportCircuits/gpt2-small", BM_ExportCircuits, gpt2));
    all.push_back(benchmark::RegisterBenchmark("BM_CircuitBasis/qwen3-0.6b/one_thread", BM_CircuitBasis, qwen3, true));
    all.push_back(benchmark::RegisterBenchmark("BM_CopyingScoreGrid/qwen3-0.6b", BM_CopyingScoreGrid, qwen3));
    for (const bool oneThread : {true, false}) {
        const std::string threads = oneThread ? "/one_thread" : "";
        all.push_back(benchmark::RegisterBenchmark(("BM_TokenCircuits/qwen3-0.6b/qk" + threads).c_str(),
                                                   BM_TokenCircuits, qwen3, qkv::CircuitSide::QK, oneThread));
        all.push_back(benchmark::RegisterBenchmark(("BM_TokenCircuits/qwen3-0.6b/ov" + threads).c_str(),
                                                   BM_TokenCircuits, qwen3, qkv::CircuitSide::OV, oneThread));
    }
    for (benchmark::internal::Benchmark* b : all) b->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

int main(int argc, char** argv)
{
    qkv::keepLargeAllocationsForReuse();
    registerAll();
    qkv::bench::addProductContext();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
