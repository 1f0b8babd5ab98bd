// The GUI thread's share of the charts a tab shows: a ChartView given a new model, laid out at
// a tab's size (480 x 360) and painted, for the charts that are large at the limits: the
// spectrum of a head at d_model 4096 (4096 points on a log axis) and the Costs tab's four
// charts at d_model 4096, h 1. Offscreen platform.
//
//   qkv_chart_views_bench [--benchmark_repetitions=N]
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>

#include <cmath>

#include "ui/costs/cost_figures.hpp"
#include "ui/figure_widgets/chart_view.hpp"

namespace {

// Singular values as a spectrum chart draws them: σ_k falling over four decades, with noise.
qkv::ui::ChartModel spectrumLike(int points, int salt)
{
    qkv::ui::ChartModel model;
    model.title = QStringLiteral("Singular values of W_i");
    model.x = {QStringLiteral("index k"), false, 0.0, points + 1.0, {}};
    model.y = {QStringLiteral("σ_k"), true, 1e-5, 1e2, {}};
    auto values = qkv::ui::ChartSeries::of(QStringLiteral("σ_1 … σ_n"), QColor(0x21, 0x66, 0xac),
                                           qkv::ui::ChartSeries::Kind::Points);
    for (int k = 1; k <= points; ++k)
        values.points.emplace_back(k, 50.0 * std::pow(10.0, -4.0 * k / points) * (1.0 + 0.01 * ((k * 7 + salt) % 5)));
    model.series = {values};
    return model;
}

qkv::ui::CostShape shapeOf(qkv::Count d_model, qkv::Count heads, qkv::Count salt)
{
    qkv::ui::CostShape shape;
    shape.d_model = d_model;
    shape.heads = heads;
    shape.keyValueHeads = heads;
    shape.n_q = 10 + salt % 2;  // a new model on every iteration: ChartView skips an equal one
    shape.n_k = 10;
    return shape;
}

struct Shown {
    qkv::ui::ChartView view;
    QImage frame{480, 360, QImage::Format_ARGB32_Premultiplied};
    Shown()
    {
        view.setAttribute(Qt::WA_DontShowOnScreen);
        view.resize(480, 360);
        view.show();
        QApplication::processEvents();
    }
    void show(qkv::ui::ChartModel model)
    {
        view.setModel(std::move(model));
        QApplication::processEvents();
        view.QWidget::render(&frame);  // the widget's own paint path, as on screen
    }
};

void SpectrumChart(benchmark::State& state)
{
    Shown shown;
    int salt = 0;
    for (auto _ : state) shown.show(spectrumLike(static_cast<int>(state.range(0)), ++salt));
}

void CostCharts(benchmark::State& state)
{
    Shown charts[4];
    qkv::Count salt = 0;
    for (auto _ : state) {
        const qkv::ui::CostShape shape = shapeOf(state.range(0), state.range(1), ++salt);
        charts[0].show(qkv::ui::scorePathChart(shape));
        charts[1].show(qkv::ui::layerParametersChart(shape));
        charts[2].show(qkv::ui::totalsChart(shape));
        charts[3].show(qkv::ui::scoreFlopChart(shape));
    }
}

}  // namespace

BENCHMARK(SpectrumChart)->Arg(64)->Arg(768)->Arg(4096)->Unit(benchmark::kMillisecond);
BENCHMARK(CostCharts)->Args({64, 4})->Args({4096, 1})->Unit(benchmark::kMillisecond);

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
