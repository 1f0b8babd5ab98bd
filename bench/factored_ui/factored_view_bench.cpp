// The factored view stays interactive at d_model = 1024: setResult (factors, spectrum
// from the factors, scores both ways) plus a full paint of the 1400 x 900 view into a QImage,
// offscreen, at (d_model, h) = (64, 4), (768, 12), (1024, 16). Also each half alone, and a zoom
// step (W_i recomputed from the factors at the new window and repainted).
//   qkv_factored_view_bench [--benchmark_...]
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QThread>

#include <benchmark/benchmark.h>

#include "core/common/memory.hpp"

#include <map>
#include <memory>

#include "core/config/examples.hpp"
#include "core/pipeline/compute.hpp"
#include "ui/factored/factored_head_model.hpp"
#include "ui/factored/factored_view.hpp"

namespace {

std::shared_ptr<const qkv::Result> resultFor(qkv::Index d_model, qkv::Index heads)
{
    static std::map<std::pair<qkv::Index, qkv::Index>, std::shared_ptr<const qkv::Result>> cache;
    auto& slot = cache[{d_model, heads}];
    if (!slot) {
        qkv::Config config = qkv::builtInExample();
        config.d_model = d_model;
        config.headCount = heads;
        auto result = qkv::compute(config);
        if (!result) {
            return nullptr;
        }
        slot = result.value();
    }
    return slot;
}

struct Shown {
    qkv::ui::FactoredView view;
    QImage frame{1400, 900, QImage::Format_ARGB32_Premultiplied};
    Shown()
    {
        view.setAttribute(Qt::WA_DontShowOnScreen);
        view.resize(1400, 900);
        view.show();
        QApplication::processEvents();
    }
    void paint() { view.render(&frame); }  // the widgets' own paint path, as on screen
    // Lets the off-thread scores (large d_model) finish, so they never compete with the next
    // measured iteration.
    void settle()
    {
        while (view.equivalencePending()) {
            QApplication::processEvents(QEventLoop::AllEvents, 20);
            QThread::msleep(1);
        }
        QApplication::processEvents();
    }
};

void BM_SetResultAndPaint(benchmark::State& state)
{
    const auto result = resultFor(state.range(0), state.range(1));
    if (!result) {
        state.SkipWithError("compute failed");
        return;
    }
    Shown shown;
    for (auto _ : state) {
        shown.view.setResult(result);
        shown.paint();
        state.PauseTiming();
        shown.settle();
        state.ResumeTiming();
    }
    state.counters["d_k"] = static_cast<double>(state.range(0) / state.range(1));
}

// The part that leaves the GUI thread above 8M multiply-adds: the head's scores both ways
// (dense W_i formed for the full way, and core's equivalence report).
void BM_ScoresBothWaysOffThread(benchmark::State& state)
{
    const auto result = resultFor(state.range(0), state.range(1));
    const auto model = qkv::ui::FactoredHeadModel::build(result, 0, false);
    for (auto _ : state) {
        benchmark::DoNotOptimize(model.withScoresComputed());
    }
}

void BM_SetResultOnly(benchmark::State& state)
{
    const auto result = resultFor(state.range(0), state.range(1));
    Shown shown;
    for (auto _ : state) {
        shown.view.setResult(result);
        state.PauseTiming();
        shown.settle();
        state.ResumeTiming();
    }
}

void BM_PaintOnly(benchmark::State& state)
{
    const auto result = resultFor(state.range(0), state.range(1));
    Shown shown;
    shown.view.setResult(result);
    shown.settle();
    for (auto _ : state) {
        shown.paint();
    }
}

void BM_ZoomStepAndPaint(benchmark::State& state)
{
    const auto result = resultFor(state.range(0), state.range(1));
    Shown shown;
    shown.view.setResult(result);
    const qkv::Index d = state.range(0);
    qkv::Index side = d;
    for (auto _ : state) {
        side = side > 16 ? side * 4 / 5 : d;  // one wheel notch in, wrapping back to the whole
        shown.view.setZoomWindow(qkv::MatrixWindow{(d - side) / 2, (d - side) / 3, side, side});
        shown.paint();
    }
}

void BM_RenderFigure(benchmark::State& state)
{
    const auto result = resultFor(state.range(0), state.range(1));
    Shown shown;
    shown.view.setResult(result);
    shown.settle();
    for (auto _ : state) {
        QPainter painter(&shown.frame);
        shown.view.renderFigure(painter, QRectF(0, 0, 1400, 900));
    }
}

void shapes(benchmark::internal::Benchmark* b)
{
    b->Args({64, 4})->Args({768, 12})->Args({1024, 16})->ArgNames({"d_model", "h"});
    b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_SetResultAndPaint)->Apply(shapes);
BENCHMARK(BM_SetResultOnly)->Apply(shapes);
BENCHMARK(BM_ScoresBothWaysOffThread)->Apply(shapes);
BENCHMARK(BM_PaintOnly)->Apply(shapes);
BENCHMARK(BM_ZoomStepAndPaint)->Apply(shapes);
BENCHMARK(BM_RenderFigure)->Apply(shapes);

}  // namespace

int main(int argc, char** argv)
{
    qkv::keepLargeAllocationsForReuse();  // as app/main.cpp does
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
        return 1;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
