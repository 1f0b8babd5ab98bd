// Latency from a control change (the seed spin box) to the painted frame: validation, compute
// (on the GUI thread or the pool, as the app decides), rebuilding the heads figure, and a
// synchronous repaint of the whole window. Offscreen platform, window 1400 x 900.
//
//   qkv_ui_latency_bench [--benchmark_repetitions=N]
//
// Targets: < 16 ms at (10 tokens, d_model 64, h 4), < 50 ms at (128, 512, 8),
// < 150 ms at (512, 768, 12); and at (512, 768, 12) the frame within 1.7x of CoreCompute, which
// is compute() alone at the same sizes in the same run (its product kernel: the "products" line
// of the context). The frame's counters say where its time went: start_ms (control change to
// the computation starting on the pool; 0 on the GUI thread), result_ms (to the result handed to
// every view), figure_ms (from there to the heads figure delivered), paint_ms (the repaint), and
// statistics_ms (control change to the statistics table's numbers, waited for untimed after each
// frame).
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>

#include <chrono>
#include <memory>
#include <string>

#include "bench/product_context.hpp"
#include "core/common/memory.hpp"
#include "core/pipeline/compute.hpp"
#include "ui/controls/controls_panel.hpp"
#include "ui/document/compute_runner.hpp"
#include "ui/document/compute_threads.hpp"
#include "ui/document/document.hpp"
#include "ui/heads/head_statistics_table.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/main_window.hpp"

namespace {

qkv::Config configFor(int tokens, int dModel, int heads)
{
    static const char* words[] = {"the", "cat", "sat", "on", "mat", "because", "it", "was", "tired", "and", "warm"};
    qkv::Config config;
    for (int i = 0; i < tokens; ++i) config.sourceText += std::string(words[i % 11]) + " ";
    config.targetText = "le chat";
    config.mode = qkv::AttentionMode::EncoderSelf;
    config.d_model = dModel;
    config.headCount = heads;
    config.seed = 1;
    return config;
}

void ControlChangeToPaintedFrame(benchmark::State& state)
{
    qkv::ui::MainWindow window;
    window.resize(1400, 900);
    window.show();
    window.document()->reset(configFor(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)),
                                       static_cast<int>(state.range(2))));
    qkv::ui::HeadStatisticsTable* statistics = window.headsView()->statisticsTable();
    // The statistics of the result shown have been delivered (they follow the heads figure).
    const auto statisticsCurrent = [&] {
        return statistics->result() == window.document()->result() && !statistics->isBusy();
    };
    window.document()->waitUntilIdle();
    QCoreApplication::processEvents();
    window.repaint();
    // Everything the first result started has ended before the first frame.
    while (window.headsView()->isBusy() || !statisticsCurrent())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    window.repaint();
    QSpinBox* seed = window.controls()->seedBox();
    // Where a frame's time goes (means over the iterations, ms): the control change until the
    // computation starts, until its result has been handed to every view, until the heads figure
    // arrives, and the repaint.
    using Clock = std::chrono::steady_clock;
    Clock::time_point start, computeStarted, resultShown;
    QObject::connect(window.document()->runner(), &qkv::ui::ComputeRunner::busyChanged, [&](bool busy) {
        if (busy) computeStarted = Clock::now();
    });
    QObject::connect(window.document(), &qkv::ui::Document::resultChanged, [&] { resultShown = Clock::now(); });
    Clock::time_point statisticsAt;
    QObject::connect(statistics, &qkv::ui::HeadStatisticsTable::summariesReady, [&] {
        if (statisticsCurrent()) statisticsAt = Clock::now();
    });
    const auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
    double toCompute = 0, toResult = 0, toFigure = 0, painting = 0, toStatistics = 0;
    int value = 1;
    for (auto _ : state) {
        start = Clock::now();
        computeStarted = start;  // stays so when the computation runs on the GUI thread (small sizes)
        seed->setValue(++value);             // the control change
        window.document()->waitUntilIdle();  // compute (pool or GUI thread)
        QCoreApplication::processEvents();   // result delivered, views updated
        // A large heads figure is drawn on the work pool: until it is delivered. Sleeps until an
        // event comes; processEvents(flags, ms) would spin on a core the work needs.
        while (window.headsView()->isBusy()) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        const Clock::time_point figure = Clock::now();
        window.repaint();  // the painted frame
        toCompute += ms(computeStarted - start);
        toResult += ms(resultShown - start);
        toFigure += ms(figure - resultShown);
        painting += ms(Clock::now() - figure);
        // The statistics table beside the grid gets its numbers on its own: waited for untimed, so
        // that no frame's work runs into the next one's.
        state.PauseTiming();
        while (!statisticsCurrent()) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        toStatistics += ms(statisticsAt - start);
        state.ResumeTiming();
    }
    const double frames = static_cast<double>(state.iterations());
    state.counters["tokens"] = static_cast<double>(state.range(0));
    state.counters["start_ms"] = toCompute / frames;
    state.counters["result_ms"] = toResult / frames;
    state.counters["figure_ms"] = toFigure / frames;
    state.counters["paint_ms"] = painting / frames;
    state.counters["statistics_ms"] = toStatistics / frames;
}

void CoreCompute(benchmark::State& state)
{
    qkv::Config config =
        configFor(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), static_cast<int>(state.range(2)));
    for (auto _ : state) {
        ++config.seed;
        auto result = qkv::compute(config);
        benchmark::DoNotOptimize(result);
    }
}

void sizes(benchmark::internal::Benchmark* b)
{
    b->ArgNames({"n", "d_model", "h"});
    b->Args({10, 64, 4})->Args({128, 512, 8})->Args({512, 768, 12});
    b->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

BENCHMARK(ControlChangeToPaintedFrame)->Apply(sizes);
BENCHMARK(CoreCompute)->Apply(sizes);

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // The window starts on an example, as the app does: the build tree's data folder.
    if (qEnvironmentVariableIsEmpty("QKV_STUDIO_DATA_DIR")) qputenv("QKV_STUDIO_DATA_DIR", QKV_BUILD_DATA_DIR);
    qkv::keepLargeAllocationsForReuse();    // as app/main.cpp does
    qkv::ui::useOneThreadPerComputation();  // as runGui does
    QTemporaryDir settingsDirectory;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDirectory.path());
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("QKV Studio Benchmarks"));
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    qkv::bench::addProductContext();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
