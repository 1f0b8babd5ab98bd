// Every product kernel this binary carries that keeps rows' bits on this CPU (core/common/
// product_kernels.hpp), on the forward pass's x W and x W^T shapes, one thread, timed on the
// thread's CPU clock (a busy machine's other processes do not count; its shared caches still do).
// Weights are read from memory as in a forward pass: each iteration takes the next of twelve
// copies (a layer stack's worth), so no kernel finds them in cache.
//
//   build/bench/kernels/qkv_product_kernels_bench
//   OPENBLAS_CORETYPE=Haswell ONEDNN_MAX_CPU_ISA=AVX2 build/bench/kernels/qkv_product_kernels_bench
//     (the second: the libraries' AVX2 kernels, which an AVX2-only machine runs; they do not keep
//     rows, so only Eigen and the packed kernels are offered there)
//
// Reports GFLOP/s per kernel and shape and the CPU's vector extensions; docs/benchmarks.md,
// "Which kernel runs where".

#include <ctime>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/product_context.hpp"
#include "core/common/product_kernels.hpp"
#include "core/common/random.hpp"
#include "core/common/row_products.hpp"

namespace {

using qkv::Index;
using qkv::MatrixF;

constexpr int kWeightCopies = 12;

double threadSeconds()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

MatrixF randomMatrix(Index rows, Index cols, qkv::SplitMix64& stream)
{
    MatrixF m(rows, cols);
    for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(stream.normal());
    return m;
}

// rows x depth times a depth x width weight (stored width x depth when transposed).
void BM_Product(benchmark::State& state, qkv::ProductKernel kernel, bool transposed)
{
    const Index rows = state.range(0), depth = state.range(1), width = state.range(2);
    if (!qkv::forceProductKernel(kernel)) {
        state.SkipWithError("this kernel is not available here");
        return;
    }
    qkv::SplitMix64 stream(5);
    const MatrixF x = randomMatrix(rows, depth, stream);
    std::vector<MatrixF> weights;
    for (int c = 0; c < kWeightCopies; ++c)
        weights.push_back(transposed ? randomMatrix(width, depth, stream) : randomMatrix(depth, width, stream));
    MatrixF out(rows, width);
    int copy = 0;
    for (auto _ : state) {
        const double start = threadSeconds();
        if (transposed) qkv::multiplyRowsStable(x, weights[copy].transpose(), out);
        else qkv::multiplyRowsStable(x, weights[copy], out);
        state.SetIterationTime(threadSeconds() - start);
        benchmark::DoNotOptimize(out.data());
        copy = (copy + 1) % kWeightCopies;
    }
    qkv::forceProductKernel(std::nullopt);
    state.counters["GFLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(rows * depth * width),
                                                   benchmark::Counter::kIsIterationInvariantRate);
}

// BERT-base and GPT-2 small's products on one thread's rows (128 or 64 of 128 tokens, 256 or 128
// of 256), Llama-3.1-8B's width, and a tied readout's vocabulary block.
void shapes(benchmark::internal::Benchmark* b)
{
    for (const Index rows : {64, 128, 256})
        for (const auto& [depth, width] : std::vector<std::pair<Index, Index>>{{768, 2304}, {768, 768}, {768, 3072}, {3072, 768}})
            b->Args({rows, depth, width});
    b->Args({128, 4096, 1024})->Args({128, 4096, 14336})->Args({256, 768, 4096});
    b->ArgNames({"rows", "depth", "width"});
}

void registerKernels()
{
    for (const qkv::ProductKernel kernel : qkv::rowKeepingProductKernels())
        for (const bool transposed : {false, true}) {
            if (kernel == qkv::ProductKernel::OneDnn && transposed) continue;  // x W only (onednn_products.hpp)
            const std::string name = std::string("BM_Product/") + std::string(qkv::productKernelSpelling(kernel)) +
                                     (transposed ? "/w^T" : "/w");
            benchmark::RegisterBenchmark(name.c_str(), BM_Product, kernel, transposed)
                ->Apply(shapes)
                ->UseManualTime()
                ->Unit(benchmark::kMillisecond);
        }
}

}  // namespace

int main(int argc, char** argv)
{
    qkv::bench::addProductContext();
    registerKernels();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
