// Singular values of W_i = W_i^Q (W_i^K)^T through its thin factors vs a dense SVD of W_i.
//
// Symbols: d_model (side of W_i), d_k = 64 (columns of each factor).
// Through the factors (FactoredMatrix): two thin QRs of d_model x d_k, an SVD of d_k x d_k,
// O(d_model d_k^2). Dense: Eigen::BDCSVD (values only) of the d_model x d_model double
// matrix, O(d_model^3). Target: >= 50x faster at d_model = 768, same values to 1e-6
// relative; main() checks the values before timing and exits 1 if they disagree.
//
// Also: the cost of drawing W_i at d_model = 1024 (the full dense matrix vs a 256 x 256
// sampled view), which keeps the factored view interactive.
//
// Run: qkv_factored_bench --benchmark_min_time=0.2

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <benchmark/benchmark.h>

#include "core/common/decompositions.hpp"
#include "core/common/random.hpp"
#include "core/factored/factored_matrix.hpp"

namespace {

using qkv::Index;
using qkv::MatrixD;
using qkv::VectorD;

constexpr Index kDk = 64;

MatrixD randomMatrix(Index rows, Index cols, std::uint64_t seed)
{
    qkv::SplitMix64 rng(seed);
    MatrixD m(rows, cols);  // rows x cols, uniform in [-1, 1)
    for (Index r = 0; r < rows; ++r) {
        for (Index c = 0; c < cols; ++c) {
            m(r, c) = rng.uniform(-1.0, 1.0);
        }
    }
    return m;
}

struct Factors {
    MatrixD left;   // W_i^Q, d_model x d_k
    MatrixD right;  // W_i^K, d_model x d_k
};

Factors factorsFor(Index d_model)
{
    return {randomMatrix(d_model, kDk, 1000 + static_cast<std::uint64_t>(d_model)),
            randomMatrix(d_model, kDk, 2000 + static_cast<std::uint64_t>(d_model))};
}

VectorD denseSingularValues(const Eigen::MatrixXd& dense)
{
    Eigen::BDCSVD<Eigen::MatrixXd> svd(dense);  // values only
    return svd.singularValues();
}

void BM_SingularValuesThroughFactors(benchmark::State& state)
{
    const Index d_model = state.range(0);
    const Factors f = factorsFor(d_model);
    for (auto _ : state) {
        // A fresh object each time: the spectrum is cached per object.
        const qkv::FactoredMatrix w(f.left, f.right);
        benchmark::DoNotOptimize(w.singularValues().data());
    }
    state.counters["d_model"] = static_cast<double>(d_model);
    state.counters["d_k"] = static_cast<double>(kDk);
}

void BM_SingularValuesDenseBdcsvd(benchmark::State& state)
{
    const Index d_model = state.range(0);
    const Factors f = factorsFor(d_model);
    const Eigen::MatrixXd dense = f.left * f.right.transpose();  // W_i, d_model x d_model
    for (auto _ : state) {
        const VectorD sigma = denseSingularValues(dense);
        benchmark::DoNotOptimize(sigma.data());
    }
    state.counters["d_model"] = static_cast<double>(d_model);
    state.counters["d_k"] = static_cast<double>(kDk);
}

void BM_DenseWi(benchmark::State& state)
{
    const Factors f = factorsFor(state.range(0));
    const qkv::FactoredMatrix w(f.left, f.right);
    for (auto _ : state) {
        const MatrixD dense = w.dense();  // d_model x d_model
        benchmark::DoNotOptimize(dense.data());
    }
}

void BM_DenseSampledWi256(benchmark::State& state)
{
    const Index d_model = state.range(0);
    const Factors f = factorsFor(d_model);
    const qkv::FactoredMatrix w(f.left, f.right);
    std::vector<Index> picks;  // 256 evenly spaced rows/columns, as a 256-pixel heatmap draws
    for (Index i = 0; i < 256; ++i) {
        picks.push_back(i * d_model / 256);
    }
    for (auto _ : state) {
        const MatrixD sampled = w.denseSampled(picks, picks);  // 256 x 256
        benchmark::DoNotOptimize(sampled.data());
    }
}

// The two ways must agree before their times mean anything: all d_k values from the factors
// against the top d_k dense values, relative to each value.
bool valuesAgree()
{
    bool ok = true;
    for (const Index d_model : {512, 768, 1024}) {
        const Factors f = factorsFor(d_model);
        const qkv::FactoredMatrix w(f.left, f.right);
        const VectorD dense = denseSingularValues(Eigen::MatrixXd(w.dense()));
        const VectorD& thin = w.singularValues();
        double worst = 0.0;
        for (Index i = 0; i < kDk; ++i) {
            worst = std::max(worst, std::abs(thin(i) - dense(i)) / dense(i));
        }
        const bool agree = thin.size() == kDk && worst <= 1e-6;
        std::printf(
            "check d_model=%ld d_k=%ld: max relative difference %.3e (tolerance 1e-6) %s; "
            "dense value %ld / sigma_max = %.3e\n",
            static_cast<long>(d_model), static_cast<long>(kDk), worst, agree ? "OK" : "FAILED",
            static_cast<long>(kDk + 1), dense(kDk) / dense(0));
        ok = ok && agree;
    }
    return ok;
}

}  // namespace

BENCHMARK(BM_SingularValuesThroughFactors)->Arg(512)->Arg(768)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SingularValuesDenseBdcsvd)->Arg(512)->Arg(768)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DenseWi)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DenseSampledWi256)->Arg(1024)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv)
{
    if (!valuesAgree()) {
        std::fprintf(stderr, "singular values through the factors disagree with the dense SVD\n");
        return 1;
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
        return 1;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
