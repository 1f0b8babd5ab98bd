#pragma once
// A ChartModel as a Qt Charts QChart (docs/architecture.md, "Layers": charts are Qt Charts). The same
// chart is shown on screen (ChartView, ui/figure_widgets/chart_view.hpp) and rendered into files
// (renderChart, chart_render.hpp), so a figure is what the user saw.
//
// What Qt Charts does not do the way figures need, the chart's ChartFitter (chart_fitter.hpp)
// does whenever the chart is resized or zoomed: the title word-wrapped (never cut), the legend
// flowed into as many columns as fit (names whole), readable ticks (chart_axes.hpp) as many as
// the plot has room for, bar value axes long enough for the exact values drawn at the bars'
// ends ("12,288").

#include <QColor>
#include <QFont>
#include <QString>

#include <memory>

#include "ui/render/chart_model.hpp"

class QChart;

namespace qkv::ui {

struct ChartStyle {
    QColor text = Qt::black;
    QColor background = Qt::white;
    QFont font;  // the base font; the title is figureTitleFont(font)
    // A point series of many points gets painted markers (one pass over the points) instead of
    // one graphics item per point: 4,096 singular values as items took ~90 ms of the GUI thread
    // to lay out. On for the screen; exports keep one vector shape per point.
    bool paintedMarkers = false;
};

// A new chart drawing `model` in `style`, without animations (deterministic renders). The
// caller owns it (a QChartView takes it over).
std::unique_ptr<QChart> buildChart(const ChartModel& model, const ChartStyle& style);

// A value as bar labels and tooltips write it: whole numbers exact and grouped ("12,582,912"),
// others readable ("0.25", "3.2×10⁻⁷").
QString chartValueText(double value);

// The model a chart of buildChart draws (null for other charts).
const ChartModel* chartModelOf(const QChart* chart);

}  // namespace qkv::ui
