// Activation patching on GPT-2 small (synthetic weights, bench/pretrained/synthetic_checkpoints.hpp):
// 64 tokens, the corrupted prompt differing from the clean one from position 32 on, the full heads
// grid (12 x 12 patches) and the residual grid (12 layers x 64 positions), one thread.
//
//   qkv_patching_bench [--threads T] [--full-sample K]
//
// Prints one JSON object: the two runs, both grids the fast way (each patched run reuses the
// corrupted run's layers below the patch and rows before it: core/pipeline/patching.hpp), and for
// comparison the same patches each as a full forward pass (every K-th patch timed, the mean times
// the patch count). The checkpoint is written once under $QKV_BENCH_CHECKPOINTS (default: the temp
// directory's qkv_pretrained_bench, shared with qkv_pretrained_bench). Kernel: productKernelName().

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/pretrained/synthetic_checkpoints.hpp"
#include "core/common/product_kernels.hpp"
#include "core/common/memory.hpp"
#include "core/common/parallelism.hpp"
#include "core/common/random.hpp"
#include "core/pipeline/patching.hpp"

namespace {

using qkv::Index;
using Clock = std::chrono::steady_clock;

constexpr qkv::bench::SyntheticShape gpt2Small64{
    "gpt2-small", qkv::bench::SyntheticFamily::Gpt2, 12, 768, 12, 3072, 50257, 1024, 64};
constexpr Index kSplit = 32;  // the prompts differ from this position on

double seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

// Every K-th patch of both grids as a full forward pass (no previous run), seconds per patch.
double fullForwardPerPatch(const qkv::PretrainedModel& model, const qkv::PatchingRuns& runs, Index every, Index& timed)
{
    std::vector<qkv::ActivationPatch> patches;
    for (Index l = 0; l < model.layerCount(); ++l) {
        for (Index i = 0; i < 12; ++i) patches.push_back({runs.clean, {qkv::ModelHead{l, i}}, -1, -1});
        for (Index p = 0; p < gpt2Small64.tokens; ++p) patches.push_back({runs.clean, {}, l, p});
    }
    qkv::RunOptions options;
    options.keepScores = options.keepWeights = false;
    options.logitRows = qkv::LogitRows::Chosen;  // the last position's logits, as a hooked forward reads them
    options.logitPositions = {gpt2Small64.tokens - 1};
    timed = 0;
    const auto start = Clock::now();
    for (std::size_t k = 0; k < patches.size(); k += static_cast<std::size_t>(every)) {
        options.patch = patches[k];
        if (!qkv::runPretrainedModel(model, runs.corrupt->tokens, options)) return -1.0;
        ++timed;
    }
    return seconds(start) / static_cast<double>(timed);
}

}  // namespace

int main(int argc, char** argv)
{
    int threads = 1;
    Index every = 16;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string option = argv[i];
        if (option == "--threads")
            threads = std::atoi(argv[i + 1]);
        else if (option == "--full-sample")
            every = std::atoi(argv[i + 1]);
    }
    qkv::keepLargeAllocationsForReuse();
    qkv::setComputeThreads(threads);
    const qkv::Expected<std::string> folder =
        qkv::bench::syntheticCheckpoint(gpt2Small64, qkv::bench::checkpointRoot());
    if (!folder) return std::fprintf(stderr, "%s\n", folder.error().c_str()), 1;
    qkv::Expected<qkv::PretrainedModel> model = qkv::openPretrainedModel(*folder, {}, qkv::WeightResidency::Whole);
    if (!model) return std::fprintf(stderr, "%s\n", model.error().c_str()), 1;
    qkv::SplitMix64 stream(52);
    std::vector<std::int32_t> clean(static_cast<std::size_t>(gpt2Small64.tokens));
    for (std::int32_t& id : clean) id = static_cast<std::int32_t>(stream.uniform(0.0, 50257.0));
    std::vector<std::int32_t> corrupt = clean;
    for (std::size_t p = kSplit; p < corrupt.size(); ++p)
        corrupt[p] = static_cast<std::int32_t>(stream.uniform(0.0, 50257.0));

    auto start = Clock::now();
    qkv::Expected<qkv::PatchingRuns> runs = qkv::patchingRuns(*model, clean, corrupt);
    if (!runs) return std::fprintf(stderr, "%s\n", runs.error().c_str()), 1;
    const double runsSeconds = seconds(start);
    start = Clock::now();
    const std::clock_t cpuStart = std::clock();  // this process's CPU time: what a busy machine does not inflate
    Index patchedRuns = 0;
    qkv::Expected<qkv::PatchingReadouts> readouts =
        qkv::patchingReadouts(*model, *runs, [&](Index done, Index) { return (patchedRuns = done, true); });
    if (!readouts) return std::fprintf(stderr, "%s\n", readouts.error().c_str()), 1;
    const double gridsSeconds = seconds(start);
    const double gridsCpuSeconds = static_cast<double>(std::clock() - cpuStart) / CLOCKS_PER_SEC;
    // The metric from the readouts (what changing A or B recomputes): the clean run's top token
    // against the corrupted run's is not needed for timing; tokens 0 and 1 will do.
    start = Clock::now();
    qkv::Expected<qkv::PatchingGrids> grids = qkv::patchingGrids(*model, *readouts, 0, 1);
    const double metricSeconds = seconds(start);
    Index timed = 0;
    const double perFull = every > 0 ? fullForwardPerPatch(*model, *runs, every, timed) : 0.0;
    const Index patches = 12 * 12 + 12 * gpt2Small64.tokens;
    std::printf(
        "{\"model\": \"gpt2-small synthetic\", \"tokens\": %lld, \"split\": %lld, \"threads\": %d, "
        "\"kernel\": \"%s\", \"runs_seconds\": %.3f, \"grids_seconds\": %.3f, \"grids_cpu_seconds\": %.3f, "
        "\"metric_seconds\": %.4f, "
        "\"patches\": %lld, \"total_seconds\": %.3f, \"full_forward_seconds_per_patch\": %.4f, "
        "\"full_forward_patches_timed\": %lld, \"full_forward_estimate_seconds\": %.1f, \"grids_ok\": %s}\n",
        static_cast<long long>(gpt2Small64.tokens), static_cast<long long>(kSplit), threads,
        qkv::productKernelName().c_str(), runsSeconds, gridsSeconds, gridsCpuSeconds, metricSeconds,
        static_cast<long long>(patches), runsSeconds + gridsSeconds + metricSeconds, perFull,
        static_cast<long long>(timed), perFull * static_cast<double>(patches), grids ? "true" : "false");
    return 0;
}
