#pragma once
// Qt Charts paint with their own light theme whatever the application's palette or a figure's
// options say; these recolour a chart (background, titles, axes, grid, legend, bar labels).

#include <QColor>

class QChart;
class QPalette;

namespace qkv::ui {

// Text, axis lines and grid from `text` (the grid faint), on `background`. Call after the
// chart's axes and series are in place.
void applyChartColors(QChart* chart, const QColor& text, const QColor& background);

// The same from a dark palette (Text on Base). Does nothing for a light palette, where the
// default chart theme already fits.
void applyPaletteToChart(QChart* chart, const QPalette& palette);

}  // namespace qkv::ui
