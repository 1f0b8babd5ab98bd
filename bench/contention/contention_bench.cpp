// Whole commands as a user runs them, on a busy machine: each alone, two at once (as `xargs -P2`
// or a script would start them), and beside one CPU-bound program (`yes > /dev/null`). The
// target: at most 3x the time alone, for every command and the app's recomputes.
//
//   qkv_contention_bench [--benchmark_filter=Preset] [--rounds=N]
//   QKV_STUDIO=/path/to/an/older/qkv-studio qkv_contention_bench   (the same runs of another build)
//
// One benchmark per command; each runs N rounds (default 5) of alone / two at once / beside
// `yes`, interleaved so that drift in the machine hits the three alike, and reports medians in
// seconds (alone_s, pair_s: the slower of the two, busy_s) and the ratios pair_x and busy_x.
// Processes write into a temporary folder; their output goes to /dev/null.
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
int rounds = 5;
std::filesystem::path scratch;

struct Running {
    pid_t pid = -1;
    Clock::time_point start;
};

// Starts `argv` with its output to /dev/null.
Running start(const std::vector<std::string>& argv)
{
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    Running running;
    running.start = Clock::now();
    const int error = posix_spawnp(&running.pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(error));
    return running;
}

// Waits for `running` and returns its wall time in seconds; throws if it failed.
double finish(const Running& running, const std::string& name)
{
    int status = 0;
    if (waitpid(running.pid, &status, 0) != running.pid) throw std::runtime_error("waitpid failed for " + name);
    const double seconds = std::chrono::duration<double>(Clock::now() - running.start).count();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error(name + " failed");
    return seconds;
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// `command(copy)` is the argv of one process; `copy` (0 or 1) keeps two copies' outputs apart.
using Command = std::vector<std::string> (*)(int copy);

void runSideBySide(benchmark::State& state, Command command)
{
    std::vector<double> alone, pair, busy;
    const std::string name = command(0).front();
    for (auto _ : state) {
        try {
            for (int round = 0; round < rounds; ++round) {
                alone.push_back(finish(start(command(0)), name));

                const Running first = start(command(0)), second = start(command(1));
                const double a = finish(first, name), b = finish(second, name);
                pair.push_back(std::max(a, b));

                const Running spinner = start({"yes"});  // its output goes to /dev/null
                busy.push_back(finish(start(command(0)), name));
                kill(spinner.pid, SIGKILL);
                waitpid(spinner.pid, nullptr, 0);
            }
        } catch (const std::exception& error) {
            state.SkipWithError(error.what());
            return;
        }
        state.SetIterationTime(median(alone));
    }
    state.counters["alone_s"] = median(alone);
    state.counters["pair_s"] = median(pair);
    state.counters["busy_s"] = median(busy);
    state.counters["pair_x"] = median(pair) / median(alone);
    state.counters["busy_x"] = median(busy) / median(alone);
}

// The executable measured: QKV_STUDIO when set (to compare builds), else this build's.
std::string studio()
{
    const char* chosen = std::getenv("QKV_STUDIO");
    return chosen && *chosen ? chosen : QKV_STUDIO_EXECUTABLE;
}

std::string out(const char* name, int copy) { return (scratch / (std::string(name) + std::to_string(copy))).string(); }

std::string words(int count)
{
    static const char* list[] = {"the", "cat", "sat", "on", "mat", "because", "it", "was", "tired", "and", "warm"};
    std::string text;
    for (int i = 0; i < count; ++i) text += std::string(i > 0 ? " " : "") + list[i % 11];
    return text;
}

// The case that was slow beside another process: a positional preset fitted (many small
// products), then a small export (~0.5 s alone).
std::vector<std::string> presetExport(int copy)
{
    return {studio(), "export",  "--preset", "previous-token", "--mode", "self",  "--d-model",
            "64",     "--heads", "4",        "--format",       "json",   "--out", out("preset.json", copy)};
}
// Large products: self-attention over 512 tokens at d_model 768, 12 heads, every map as .npy.
std::vector<std::string> largeExport(int copy)
{
    return {studio(), "export",  "--mode", "self",     "--source", words(512), "--d-model",
            "768",    "--heads", "12",     "--format", "npy",      "--out",    out("large", copy)};
}
// A figure: compute and paint the heads grid to PNG.
std::vector<std::string> headsFigure(int copy)
{
    return {studio(), "figure", "--figure", "heads", "--format", "png", "--out", out("heads.png", copy)};
}
#ifdef QKV_RECOMPUTE_WORKLOAD
// The app: 40 recomputes through the window (bench/contention/recompute_workload.cpp).
std::vector<std::string> appRecomputes(int) { return {QKV_RECOMPUTE_WORKLOAD, "40"}; }
#endif

void BM_PresetExport(benchmark::State& state) { runSideBySide(state, presetExport); }
void BM_LargeExport(benchmark::State& state) { runSideBySide(state, largeExport); }
void BM_HeadsFigure(benchmark::State& state) { runSideBySide(state, headsFigure); }
BENCHMARK(BM_PresetExport)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LargeExport)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HeadsFigure)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
#ifdef QKV_RECOMPUTE_WORKLOAD
void BM_AppRecomputes(benchmark::State& state) { runSideBySide(state, appRecomputes); }
BENCHMARK(BM_AppRecomputes)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
#endif

}  // namespace

int main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        if (std::strncmp(argv[i], "--rounds=", 9) == 0) {
            rounds = std::max(1, std::atoi(argv[i] + 9));
            std::move(argv + i + 1, argv + argc, argv + i);
            --argc;
            --i;
        }
    char folder[] = "/tmp/qkv-contention-XXXXXX";
    if (!mkdtemp(folder)) return 1;
    scratch = folder;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    std::error_code ignored;
    std::filesystem::remove_all(scratch, ignored);
    return 0;
}
