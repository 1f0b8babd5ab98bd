#pragma once
// A chart as data: bars per category, lines and points on linear or logarithmic axes. Drawn
// with Qt Charts (buildChart, chart_builder.hpp) on the screen and in every exported file, so
// the two are the same drawing, and read back by tests (the values drawn are the model's).

#include <QColor>
#include <QPointF>
#include <QString>
#include <QStringList>

#include <limits>
#include <vector>

namespace qkv::ui {

struct ChartSeries {
    enum class Kind { Bars, Line, Points };
    enum class Marker { Circle, Square, Ring };

    QString name;  // in the legend, always in full
    QColor color;
    Kind kind = Kind::Bars;
    std::vector<double> values;   // Bars: one per category
    std::vector<QPointF> points;  // Line and Points: (x, y) in data units
    Qt::PenStyle lineStyle = Qt::SolidLine;
    bool lineMarkers = true;  // Line: a dot at each point
    Marker marker = Marker::Circle;
    double markerSize = 7.0;  // pixels
    bool inLegend = true;

    static ChartSeries of(QString name, QColor color, Kind kind)
    {
        ChartSeries s;
        s.name = std::move(name);
        s.color = color;
        s.kind = kind;
        return s;
    }

    bool operator==(const ChartSeries&) const = default;
};

struct ChartAxis {
    QString title;
    bool logarithmic = false;
    // The range drawn. Bar charts start at 0 and may grow the maximum to fit the value labels.
    double minimum = 0.0, maximum = 1.0;
    // Where ticks go; empty: round numbers (linear) or powers of ten (logarithmic). Labels that
    // would overlap are thinned out.
    std::vector<double> ticks;
    // The largest value the quantity can take (a probability: 1). A bar chart's value axis
    // stops there, and a bar's value label with no room beyond the bar goes inside its end.
    double ceiling = std::numeric_limits<double>::infinity();

    bool operator==(const ChartAxis&) const = default;
};

struct ChartModel {
    QString title;
    // Bar charts: one group of bars per category. Vertical bars read left to right; horizontal
    // bars list their categories bottom-up (the first category is drawn at the bottom).
    QStringList categories;
    bool horizontalBars = false;
    // The value axis of a bar chart is y (vertical bars) or x (horizontal bars); line charts
    // use both.
    ChartAxis x, y;
    std::vector<ChartSeries> series;
    bool barValueLabels = true;  // the exact value at the end of each bar ("12,288")

    bool isBarChart() const { return !categories.isEmpty(); }

    bool operator==(const ChartModel&) const = default;
};

}  // namespace qkv::ui
