// The heads grid's frame at (512 tokens, d_model 768, h 12) in pieces, each alone on a result
// computed once: the figure's data and colour scale (HeadsFigure's constructor), the colour images
// of the 12 panels, their reduction to the size shown (130 pixels), the two together as the work
// pool makes them (prepareImages), and the per-head statistics beside the grid. CPU time is the
// calling thread's; panels made side by side on the work pool show as real time below CPU time.
//
//   QT_QPA_PLATFORM=offscreen qkv_frame_pieces_bench
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>

#include <string>

#include "core/analysis/head_statistics.hpp"
#include "core/common/memory.hpp"
#include "core/pipeline/compute.hpp"
#include "ui/document/compute_threads.hpp"
#include "ui/heads/heads_figure.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace {

constexpr int kShown = 130;  // a panel's side on screen in the 1400 x 900 window

std::shared_ptr<const qkv::Result> layer()
{
    static const std::shared_ptr<const qkv::Result> result = [] {
        static const char* words[] = {"the", "cat", "sat", "on", "mat", "because", "it", "was", "tired", "and", "warm"};
        qkv::Config config;
        for (int i = 0; i < 512; ++i) config.sourceText += std::string(words[i % 11]) + " ";
        config.mode = qkv::AttentionMode::EncoderSelf;
        config.d_model = 768;
        config.headCount = 12;
        return qkv::compute(config).value();
    }();
    return result;
}

void FigureData(benchmark::State& state)
{
    const auto result = layer();
    for (auto _ : state) benchmark::DoNotOptimize(qkv::ui::HeadsFigure(result, {}));
}

void ColourImages(benchmark::State& state)
{
    const auto result = layer();
    for (auto _ : state)
        for (const qkv::HeadAttention& head : result->attention.heads)
            benchmark::DoNotOptimize(qkv::ui::heatmapImage(head.attention, qkv::ui::ColormapName::Viridis, 0.0, 0.05));
}

void ReduceToShownSize(benchmark::State& state)
{
    const QImage image =
        qkv::ui::heatmapImage(layer()->attention.heads[0].attention, qkv::ui::ColormapName::Viridis, 0.0, 0.05);
    for (auto _ : state)
        for (int panel = 0; panel < 12; ++panel)
            benchmark::DoNotOptimize(
                image.scaled(QSize(kShown, kShown), Qt::IgnoreAspectRatio, Qt::SmoothTransformation));
}

void FigureWithImages(benchmark::State& state)
{
    const auto result = layer();
    for (auto _ : state) {
        const qkv::ui::HeadsFigure figure(result, {});
        figure.prepareImages(qkv::ui::ColormapName::Viridis, QSize(kShown, kShown));
        benchmark::DoNotOptimize(figure);
    }
}

void HeadStatistics(benchmark::State& state)
{
    const auto result = layer();
    for (auto _ : state) benchmark::DoNotOptimize(qkv::headStatisticsSummaries(*result));
}

}  // namespace

BENCHMARK(FigureData)->Unit(benchmark::kMillisecond);
BENCHMARK(ColourImages)->Unit(benchmark::kMillisecond);
BENCHMARK(ReduceToShownSize)->Unit(benchmark::kMillisecond);
BENCHMARK(FigureWithImages)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(HeadStatistics)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    qkv::keepLargeAllocationsForReuse();    // as app/main.cpp does
    qkv::ui::useOneThreadPerComputation();  // as runGui does
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
