#pragma once
// Renders a ChartModel with Qt Charts into any painter (widget, PNG, SVG, PDF, the clipboard,
// `qkv-studio figure`): the chart of buildChart, in a QGraphicsScene without a view, sized to
// the target in logical units (1/96 inch), then drawn by QGraphicsScene::render.

#include <QRectF>

#include "ui/render/chart_builder.hpp"

class QPainter;

namespace qkv::ui {

// The chart fills `target`; style.font in points is taken at 96 dpi, as the figures' text is.
void renderChart(QPainter& painter, const QRectF& target, const ChartModel& model, const ChartStyle& style);

}  // namespace qkv::ui
