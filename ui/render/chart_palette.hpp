#pragma once
// Qt Charts paint with their own light theme whatever the application's palette says; this
// recolours a chart (background, titles, axes, grid, legend, bar labels) from a dark palette.

class QChart;
class QPalette;

namespace qkv::ui {

// Call after the chart's axes and series are in place (axes are recreated on every update).
// Does nothing for a light palette, where the default chart theme already fits.
void applyPaletteToChart(QChart* chart, const QPalette& palette);

}  // namespace qkv::ui
