#pragma once
// Paints a ChartModel into a rectangle on any paint device (widget, PNG, SVG, PDF): a title
// (word-wrapped, never cut), the plot with titled axes and readable ticks ("2,048", "22.5k",
// "10⁻¹⁶", number_format.hpp), bars with their exact values, lines and points, and a legend
// whose entries are always whole (they wrap onto more rows instead).

#include <QColor>
#include <QRectF>

#include "ui/render/chart_model.hpp"

class QPainter;

namespace qkv::ui {

struct ChartColors {
    QColor text = Qt::black;
    QColor background = Qt::white;  // behind value labels; the caller fills the rectangle
};

void paintChart(QPainter& painter, const QRectF& target, const ChartModel& model,
                const ChartColors& colors = {});

}  // namespace qkv::ui
