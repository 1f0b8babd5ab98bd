// Reading and writing the files users exchange, at sizes the app allows (d_model up to 4096).
// Run: build/bench/io/qkv_io_benchmark   (writes scratch files to the temp folder)

#include <filesystem>
#include <string>

#include <benchmark/benchmark.h>

#include "core/io/npy.hpp"
#include "core/io/weights_file.hpp"

namespace {

std::string scratch(const std::string& name)
{
    return (std::filesystem::temp_directory_path() / ("qkv-io-bench-" + name)).string();
}

qkv::AttentionWeights weightsOf(qkv::Index d)
{
    qkv::AttentionWeights w;
    w.queryProjection = qkv::MatrixF::Random(d, d);
    w.keyProjection = qkv::MatrixF::Random(d, d);
    w.valueProjection = qkv::MatrixF::Random(d, d);
    w.outputProjection = qkv::MatrixF::Random(d, d);
    return w;
}

// Bytes processed = the file's tensor bytes (4 d^2 floats).
void BM_LoadAttentionWeights(benchmark::State& state, bool pytorch)
{
    const auto d = static_cast<qkv::Index>(state.range(0));
    const std::string path = scratch(pytorch ? "torch.safetensors" : "ours.safetensors");
    const auto w = weightsOf(d);
    const auto saved = pytorch ? qkv::savePyTorchMultiheadAttention(path, w, "layer")
                               : qkv::saveAttentionWeights(path, w);
    if (!saved) state.SkipWithError(saved.error().c_str());
    for (auto _ : state) {
        auto loaded = qkv::loadAttentionWeights(path);
        if (!loaded) state.SkipWithError(loaded.error().c_str());
        benchmark::DoNotOptimize(loaded);
    }
    state.SetBytesProcessed(state.iterations() * 4 * d * d * 4);
    std::filesystem::remove(path);
}
BENCHMARK_CAPTURE(BM_LoadAttentionWeights, ours, false)->Arg(512)->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LoadAttentionWeights, pytorch, true)->Arg(512)->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond);

void BM_SaveAttentionWeights(benchmark::State& state)
{
    const auto d = static_cast<qkv::Index>(state.range(0));
    const std::string path = scratch("save.safetensors");
    const auto w = weightsOf(d);
    for (auto _ : state) {
        auto saved = qkv::saveAttentionWeights(path, w);
        if (!saved) state.SkipWithError(saved.error().c_str());
    }
    state.SetBytesProcessed(state.iterations() * 4 * d * d * 4);
    std::filesystem::remove(path);
}
BENCHMARK(BM_SaveAttentionWeights)->Arg(1024)->Unit(benchmark::kMillisecond);

// An embeddings file of n tokens x d_model.
void BM_ReadNpyMatrix(benchmark::State& state)
{
    const auto n = static_cast<qkv::Index>(state.range(0));
    const auto d = static_cast<qkv::Index>(state.range(1));
    const std::string path = scratch("x.npy");
    const auto written = qkv::writeNpy(path, qkv::MatrixF(qkv::MatrixF::Random(n, d)));
    if (!written) state.SkipWithError(written.error().c_str());
    for (auto _ : state) {
        auto m = qkv::readNpyMatrix(path);
        if (!m) state.SkipWithError(m.error().c_str());
        benchmark::DoNotOptimize(m);
    }
    state.SetBytesProcessed(state.iterations() * n * d * 4);
    std::filesystem::remove(path);
}
BENCHMARK(BM_ReadNpyMatrix)->Args({2048, 1024})->Args({4096, 4096})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
