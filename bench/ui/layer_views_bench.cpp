// Control-to-frame latency of the layer views (steps, matrices, Q/K map, compare, statistics;
// offscreen, window 1400 x 900, the
// view's tab shown), measured like the heads grid in ui_latency_bench.cpp:
//   ControlToFrame:   the seed spin box changes (new weights, the worst case), the result is
//                     computed, the view refreshes and its background work (LatestTask) is
//                     delivered, then the whole window repaints synchronously;
//   SelectionToFrame: the selected query moves by one and the head changes (the next frame
//                     shows both), then the window repaints.
//
//   qkv_layer_views_bench [--benchmark_repetitions=N]
//
// Target: under 150 ms at (512 tokens, d_model 768, h 12) for every view.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>

#include <string>

#include "core/common/memory.hpp"
#include "core/pipeline/compute.hpp"
#include "ui/compare/compare_figures.hpp"
#include "ui/compare/compare_view.hpp"
#include "ui/controls/controls_panel.hpp"
#include "ui/document/compute_threads.hpp"
#include "ui/document/document.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/heads/head_statistics_table.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/matrices/matrices_figures.hpp"
#include "ui/matrices/matrices_view.hpp"
#include "ui/qkmap/qk_map_figures.hpp"
#include "ui/qkmap/qk_map_view.hpp"
#include "ui/steps/step_figures.hpp"
#include "ui/steps/step_view.hpp"

#include <QImage>
#include <QPainter>

namespace {

enum View { Steps, Matrices, QkMap, Compare, HeadsWithStatistics };

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

template <class T>
T* find(qkv::ui::MainWindow& window)
{
    for (qkv::ui::ResultView* view : window.tabs()->views())
        if (auto* found = qobject_cast<T*>(view)) return found;
    return nullptr;
}

qkv::ui::ResultView* show(qkv::ui::MainWindow& window, View which)
{
    qkv::ui::ResultView* view = nullptr;
    switch (which) {
    case Steps: view = find<qkv::ui::StepView>(window); break;
    case Matrices: view = find<qkv::ui::MatricesView>(window); break;
    case QkMap: view = find<qkv::ui::QkMapView>(window); break;
    case Compare: view = find<qkv::ui::CompareView>(window); break;
    case HeadsWithStatistics: view = find<qkv::ui::HeadsView>(window); break;
    }
    window.tabs()->setCurrentWidget(view);
    return view;
}

bool busy(qkv::ui::MainWindow& window, View which)
{
    switch (which) {
    case Steps: return false;
    case Matrices: return find<qkv::ui::MatricesView>(window)->isBusy();
    case QkMap: return find<qkv::ui::QkMapView>(window)->isBusy();
    case Compare: return find<qkv::ui::CompareView>(window)->isBusy();
    case HeadsWithStatistics: {
        // The statistics follow the grid's paint (heads_view.cpp): until those of the result shown.
        const qkv::ui::HeadStatisticsTable* statistics = find<qkv::ui::HeadsView>(window)->statisticsTable();
        return find<qkv::ui::HeadsView>(window)->isBusy() || statistics->isBusy() ||
               statistics->result() != window.document()->result();
    }
    }
    return false;
}

// Until the view's background work is delivered.
void settle(qkv::ui::MainWindow& window, View which)
{
    window.document()->waitUntilIdle();
    QCoreApplication::processEvents();
    // Sleeps until an event comes (the view's result is one). processEvents(flags, ms) would
    // drop WaitForMoreEvents and spin on a core the background work needs.
    while (busy(window, which)) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    QCoreApplication::processEvents();
}

struct Fixture {
    Fixture(benchmark::State& state, View which) : which(which)
    {
        window.resize(1400, 900);
        window.show();
        window.document()->reset(configFor(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)),
                                           static_cast<int>(state.range(2))));
        show(window, which);
        settle(window, which);
        if (which == Compare) find<qkv::ui::CompareView>(window)->pin();  // pinned − live of the same shape
        settle(window, which);
        window.repaint();
    }
    View which;
    qkv::ui::MainWindow window;
};

void ControlToFrame(benchmark::State& state, View which)
{
    Fixture f(state, which);
    QSpinBox* seed = f.window.controls()->seedBox();
    int value = 1;
    for (auto _ : state) {
        seed->setValue(++value);  // the control change
        settle(f.window, which);  // compute, refresh, background work delivered
        f.window.repaint();       // the painted frame
    }
}

void SelectionToFrame(benchmark::State& state, View which)
{
    Fixture f(state, which);
    qkv::ui::HeadSelection* selection = f.window.selection();
    const int heads = static_cast<int>(state.range(2)), queries = static_cast<int>(state.range(0));
    int step = 0;
    for (auto _ : state) {
        ++step;
        selection->setHead(step % heads);
        selection->setCell(step % queries, (3 * step) % queries);
        settle(f.window, which);
        f.window.repaint();
    }
}

// For attribution: one figure painted (data built from the Result, as export does) into a
// 1400 x 900 image, without the window.
void FigurePaint(benchmark::State& state, std::vector<qkv::ui::Figure> (*figures)(), int index)
{
    const qkv::Config config =
        configFor(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), static_cast<int>(state.range(2)));
    qkv::ui::FigureInput input;
    input.result = qkv::compute(config).value();
    input.pinned = input.result;
    input.options.head = 1;
    input.options.query = 3;
    input.options.key = 2;
    input.options.showSelection = true;
    const qkv::ui::Figure figure = figures()[static_cast<std::size_t>(index)];
    QImage image(1400, 900, QImage::Format_ARGB32_Premultiplied);
    for (auto _ : state) {
        QPainter painter(&image);
        figure.paint(painter, QRectF(0, 0, 1400, 900), input);
    }
}

void sizes(benchmark::internal::Benchmark* b)
{
    b->ArgNames({"n", "d_model", "h"});
    b->Args({10, 64, 4})->Args({128, 512, 8})->Args({512, 768, 12});
    b->Unit(benchmark::kMillisecond)->UseRealTime();
}

void registerAll()
{
    const std::pair<const char*, View> views[] = {{"Steps", Steps},
                                                  {"Matrices", Matrices},
                                                  {"QkMap", QkMap},
                                                  {"Compare", Compare},
                                                  {"HeadsWithStatistics", HeadsWithStatistics}};
    for (const auto& [name, view] : views) {
        benchmark::RegisterBenchmark((std::string("ControlToFrame/") + name).c_str(), ControlToFrame, view)
            ->Apply(sizes);
        benchmark::RegisterBenchmark((std::string("SelectionToFrame/") + name).c_str(), SelectionToFrame, view)
            ->Apply(sizes);
    }
    const std::tuple<const char*, std::vector<qkv::ui::Figure> (*)(), int> figures[] = {
        {"steps", qkv::ui::stepsFigures, 0},
        {"matrices", qkv::ui::matricesFigures, 0},
        {"qk-map", qkv::ui::qkMapFigures, 0},
        {"qk-map-heads", qkv::ui::qkMapFigures, 1},
        {"compare", qkv::ui::compareFigures, 0}};
    for (const auto& [name, list, index] : figures)
        benchmark::RegisterBenchmark((std::string("FigurePaint/") + name).c_str(), FigurePaint, list, index)
            ->Apply(sizes);
}

}  // namespace

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
    registerAll();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
