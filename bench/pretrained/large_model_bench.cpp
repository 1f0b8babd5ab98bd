// An 8B model in the precision its file stores (large_checkpoints.hpp): how long it takes to open
// and show its first layer's attention, to run a prompt through every layer with the predictions,
// and the process's peak resident memory as the kernel counts it (VmHWM). Run by hand, one case
// per process (the peak is the process's):
//
//   qkv_large_model_bench write [--tiny]                 writes both checkpoints (~16 GB + ~4.9 GB)
//   qkv_large_model_bench run bf16|gguf [--tiny] [--tokens N] [--residency automatic|block|whole] [--ahead]
//
// --ahead sets PretrainedModel::convertAhead (block b + 1 converted on another thread while b computes).
// Checkpoints live under $QKV_BENCH_CHECKPOINTS (default: the temp directory's qkv_pretrained_bench/).
// Steps timed (wall clock):
//   open         openPretrainedModel (the headers, the embeddings, the readout, block 0's check)
//   first_layer  runPretrainedModel up to the first attention layer (RunOptions::lastLayer 0)
//   run          runPretrainedModel of N tokens (default the shape's 256) through every layer,
//                logits at every position
//   convert      every block's weights converted to float32 alone (runBlockWeights), no products:
//                the conversion's share of `run` (the rest is the products and the attention)
// Threads: computeThreads() (OMP_NUM_THREADS or every core). The product kernel is the build's
// (core/common: oneDNN, OpenBLAS or Eigen); unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE.

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "bench/pretrained/large_checkpoints.hpp"
#include "core/common/product_kernels.hpp"
#include "core/common/memory.hpp"
#include "core/common/parallelism.hpp"
#include "core/common/random.hpp"
#include "core/pretrained/model_run.hpp"

namespace {

using namespace qkv;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// A line of /proc/self/status (VmHWM, VmRSS) in GiB.
double statusGiB(const char* key)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind(key, 0) == 0) return std::stod(line.substr(std::strlen(key) + 1)) / (1024.0 * 1024.0);
    return -1.0;
}

std::string loadAverage()
{
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

// The process's CPU time so far (user + system, every thread), seconds.
double cpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// A step's wall time, the CPU time it took (on a machine others load, wall time / CPU time shows
// the share of the cores the step got), the memory, the load average.
void report(const char* step, double seconds)
{
    static double cpuBefore = 0.0;
    const double cpu = cpuSeconds();
    std::printf("%-12s %8.2f s  cpu %8.2f s  VmRSS %6.2f GiB  VmHWM %6.2f GiB  load %s\n", step, seconds,
                cpu - cpuBefore, statusGiB("VmRSS:"), statusGiB("VmHWM:"), loadAverage().c_str());
    cpuBefore = cpu;
    std::fflush(stdout);
}

int write(const bench::SyntheticShape& shape)
{
    const std::string root = bench::checkpointRoot();
    auto start = Clock::now();
    Expected<std::string> folder = bench::largeSafetensorsCheckpoint(shape, root);
    if (!folder) return std::fprintf(stderr, "%s\n", folder.error().c_str()), 1;
    report("bf16 written", secondsSince(start));
    start = Clock::now();
    Expected<std::string> gguf = bench::largeGgufCheckpoint(shape, root);
    if (!gguf) return std::fprintf(stderr, "%s\n", gguf.error().c_str()), 1;
    report("gguf written", secondsSince(start));
    std::printf("%s\n%s\n", folder->c_str(), gguf->c_str());
    return 0;
}

// Every block converted alone, as a run reaches it: the conversion's share of a run.
double conversionSeconds(const PretrainedModel& model)
{
    const auto start = Clock::now();
    std::optional<BlockWeights> storage;
    const StackWeights& stack = model.singleStack();
    for (Index b = 0; b < static_cast<Index>(stack.blocks.size()); ++b) {
        Expected<const BlockWeights*> block = runBlockWeights(model, stack, b, storage);
        if (!block) std::fprintf(stderr, "%s\n", block.error().c_str());
    }
    return secondsSince(start);
}

int run(const bench::SyntheticShape& shape, const std::string& format, Index tokens, WeightResidency residency,
        bool ahead)
{
    const std::string root = bench::checkpointRoot();
    Expected<std::string> path =
        format == "gguf" ? bench::largeGgufCheckpoint(shape, root) : bench::largeSafetensorsCheckpoint(shape, root);
    if (!path) return std::fprintf(stderr, "%s\n", path.error().c_str()), 1;
    std::printf("%s: %s, %lld tokens, %d threads, products: %s\n", format.c_str(), path->c_str(),
                static_cast<long long>(tokens), computeThreads(), productKernelName().c_str());
    report("start", 0.0);
    auto start = Clock::now();
    Expected<PretrainedModel> model = openPretrainedModel(*path, {}, residency);
    if (!model) return std::fprintf(stderr, "%s\n", model.error().c_str()), 1;
    report("open", secondsSince(start));
    model->convertAhead = ahead;
    std::printf("residency: %s%s\n", model->residency == WeightResidency::Whole ? "whole" : "one block at a time",
                ahead ? ", block b + 1 converted while b computes" : "");
    ModelTokens ids;
    SplitMix64 random(7);
    for (Index i = 0; i < tokens; ++i)
        ids.ids.push_back(static_cast<std::int32_t>(random.next() % static_cast<std::uint64_t>(model->recipe.vocabularySize)));
    RunOptions first;
    first.lastLayer = 0;
    start = Clock::now();
    Expected<ModelRun> shown = runPretrainedModel(*model, ids, first);
    if (!shown) return std::fprintf(stderr, "%s\n", shown.error().c_str()), 1;
    report("first_layer", secondsSince(start));
    start = Clock::now();
    Expected<ModelRun> whole = runPretrainedModel(*model, ids);
    if (!whole) return std::fprintf(stderr, "%s\n", whole.error().c_str()), 1;
    report("run", secondsSince(start));
    std::printf("logits %lld x %lld, finite: %s\n", static_cast<long long>(whole->logits.rows()),
                static_cast<long long>(whole->logits.cols()), whole->logits.allFinite() ? "yes" : "no");
    report("convert", conversionSeconds(*model));
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    qkv::keepLargeAllocationsForReuse();
    std::vector<std::string> args(argv + 1, argv + argc);
    bool tiny = false;
    bool ahead = false;
    qkv::Index tokens = 0;
    qkv::WeightResidency residency = qkv::WeightResidency::Automatic;
    std::vector<std::string> words;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--tiny") tiny = true;
        else if (args[i] == "--ahead") ahead = true;
        else if (args[i] == "--tokens" && i + 1 < args.size()) tokens = std::stoll(args[++i]);
        else if (args[i] == "--residency" && i + 1 < args.size()) {
            const std::string r = args[++i];
            residency = r == "whole" ? qkv::WeightResidency::Whole
                        : r == "block" ? qkv::WeightResidency::OneBlockAtATime
                                       : qkv::WeightResidency::Automatic;
        } else words.push_back(args[i]);
    }
    const qkv::bench::SyntheticShape& shape = tiny ? qkv::bench::llamaTiny : qkv::bench::llama31Large;
    if (tokens <= 0) tokens = shape.tokens;
    if (!words.empty() && words[0] == "write") return write(shape);
    if (words.size() == 2 && words[0] == "run" && (words[1] == "bf16" || words[1] == "gguf"))
        return run(shape, words[1], tokens, residency, ahead);
    std::fprintf(stderr,
                 "usage: qkv_large_model_bench write [--tiny]\n"
                 "       qkv_large_model_bench run bf16|gguf [--tiny] [--tokens N] [--residency automatic|block|whole] [--ahead]\n");
    return 2;
}
