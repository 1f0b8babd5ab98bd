#pragma once
// The heads figure's grid (heads_grid.cpp): where the title, the colour bar, the axis titles and
// the panels go for a HeadsFigure, and the painting at those places, the same for the screen
// (HeadsCanvas) and for files (heads_figures.hpp).

#include <QColor>
#include <QFontMetricsF>
#include <QPoint>
#include <QRectF>

#include <vector>

#include "ui/heads/heads_figure.hpp"
#include "ui/render/colormap.hpp"
#include "ui/render/heatmap_style.hpp"

class QPainter;

namespace qkv::ui {

// What changes from frame to frame without changing the data.
struct HeadsFigureState {
    ColormapName colormap = ColormapName::Viridis;
    int selectedPanel = -1;
    int highlightedRow = -1;         // in every panel
    int spanFirstRow = -1, spanEndRow = -1;  // a span of queries selected together, in every panel
    int highlightedPanel = -1;       // the panel of highlightedCell
    QPoint highlightedCell{-1, -1};  // (column, row)
    QColor background = Qt::white;
    QColor text = Qt::black;
    QColor selection = QColor(0x30, 0x8c, 0xc6);
};

struct HeadsGridLayout {
    QRectF title, legend;
    QRectF rowAxisTitle, columnAxisTitle;  // once for the whole grid
    std::vector<QRectF> panels;
    // Per panel: whether it draws the row labels (the first of its grid row) and the column labels
    // (the lowest of its grid column); the others share them.
    std::vector<bool> rowLabels, columnLabels;
    QSizeF size;  // the whole figure
    double cellSize = 0;
    int columns = 1;
};

// Scroll: for the screen. Zoom 1 fits every head without scrolling when the cells stay
// readable (and stops growing them at a comfortable size); else the figure grows beyond
// `available` and the caller scrolls. Page: for files; everything fits in `available` and the
// heatmaps grow to use the page.
enum class GridFit { Scroll, Page };

// Text is measured with `font` on `device` (the painter's), so files lay out like the screen.
HeadsGridLayout layoutHeadsGrid(const HeadsFigure& figure, const QSizeF& available, double zoom, const QFont& font,
                                const QPaintDevice* device, GridFit fit = GridFit::Scroll);

// The heatmap style of one panel (labels, title, range, highlights) in `state`; with `layout`,
// only the labels that panel draws (a grid's panels share them), else all.
HeatmapStyle panelStyle(const HeadsFigure& figure, int panel, const HeadsFigureState& state,
                        const HeadsGridLayout* layout = nullptr);

// Paints at the layout's coordinates (the figure's origin is (0, 0)); fills the background.
void paintHeadsFigure(QPainter& painter, const HeadsFigure& figure, const HeadsGridLayout& layout,
                      const HeadsFigureState& state);

}  // namespace qkv::ui
