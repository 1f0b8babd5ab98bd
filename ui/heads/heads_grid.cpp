#include "ui/heads/heads_grid.hpp"

#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/text_layout.hpp"
#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {
namespace {

constexpr double kGap = 14.0;           // between panels
constexpr double kMargin = 8.0;         // around the figure
constexpr double kMinHeatSide = 110.0;  // on screen, a heatmap never gets smaller than this (px)
constexpr double kMaxFitCell = 56.0;    // on screen at zoom 1, cells stop growing here

// The title and the colour bar side by side when both fit whole, else stacked.
double layoutHeader(const HeadsFigure& figure, double width, const QFontMetricsF& metrics,
                    const QFontMetricsF& titleMetrics, HeadsGridLayout& layout)
{
    const double headerWidth = width - 2 * kMargin;
    const QString caption = figure.caption();
    const double titleWidth = titleMetrics.horizontalAdvance(caption) + 4;
    const bool legend = figure.panelCount() > 0;
    const double legendWidth = std::clamp(headerWidth * 0.4, 280.0, 520.0);
    const double legendHeight = legend ? horizontalLegendHeight(metrics, legendWidth, figure.legendLabel()) : 0;
    if (!legend || titleWidth + kGap + legendWidth <= headerWidth) {
        const double height = std::max(titleMetrics.height() + 4, legendHeight);
        layout.title = QRectF(kMargin, kMargin, std::min(titleWidth, headerWidth), height);
        if (legend) layout.legend = QRectF(width - kMargin - legendWidth, kMargin, legendWidth, legendHeight);
        return height;
    }
    const double titleHeight = wrappedTextRect(titleMetrics, headerWidth, caption).height() + 4;
    layout.title = QRectF(kMargin, kMargin, headerWidth, titleHeight);
    const double stackedWidth = std::min(headerWidth, std::max(legendWidth, 360.0));
    const double stackedHeight = horizontalLegendHeight(metrics, stackedWidth, figure.legendLabel());
    layout.legend = QRectF(kMargin, kMargin + titleHeight + 4, stackedWidth, stackedHeight);
    return titleHeight + 4 + stackedHeight;
}

}  // namespace

HeatmapStyle panelStyle(const HeadsFigure& figure, int panel, const HeadsFigureState& state)
{
    HeatmapStyle style;
    style.colormap = state.colormap;
    style.minValue = figure.minValue();
    style.maxValue = figure.maxValue();
    style.rowLabels = figure.rowLabels();
    style.columnLabels = figure.columnLabels();
    style.title = figure.panelTitle(panel);
    style.highlightedRow = state.highlightedRow;
    style.spanFirstRow = state.spanFirstRow;
    style.spanEndRow = state.spanEndRow;
    if (panel == state.highlightedPanel) style.highlightedCell = state.highlightedCell;
    style.textColor = state.text;
    style.selected = panel == state.selectedPanel;
    style.selectionColor = state.selection;
    return style;
}

HeadsGridLayout layoutHeadsGrid(const HeadsFigure& figure, const QSizeF& available, double zoom, const QFont& font,
                                const QPaintDevice* device, GridFit fit)
{
    HeadsGridLayout layout;
    const QFontMetricsF metrics(font, const_cast<QPaintDevice*>(device));
    QFont bold = font;
    bold.setBold(true);
    const QFontMetricsF boldMetrics(bold, const_cast<QPaintDevice*>(device));
    const QFontMetricsF titleMetrics(figureTitleFont(font), const_cast<QPaintDevice*>(device));
    const int count = figure.panelCount();
    const bool page = fit == GridFit::Page;
    const double width = std::max(available.width(), 200.0);
    const double headerHeight = layoutHeader(figure, width, metrics, titleMetrics, layout);
    if (count == 0 || figure.rows() == 0 || figure.columns() == 0) {
        layout.size = page ? available : QSizeF(width, headerHeight + 2 * kMargin);
        return layout;
    }
    // The axis titles, once for the grid: rotated on the left, centred below.
    // (with room for the selected panel's frame, drawn a few pixels outside the panel)
    const double axisBand = metrics.height() + 10;
    const QMarginsF gutters = HeatmapLayout::gutters(panelStyle(figure, 0, HeadsFigureState{}), metrics);
    const double gutterWidth = gutters.left() + gutters.right() + 6;
    const double gutterHeight = gutters.top() + gutters.bottom() + 6;
    double titleNeed = 0;  // a panel is at least as wide as its title (bold when selected)
    for (int p = 0; p < count; ++p)
        titleNeed = std::max(titleNeed, boldMetrics.horizontalAdvance(figure.panelTitle(p)) + 8);
    const double nq = figure.rows(), nk = figure.columns();
    const double innerLeft = kMargin + axisBand;
    const double innerWidth = width - kMargin - innerLeft;
    const double top = kMargin + headerHeight + kMargin;
    const double innerHeight = std::max(available.height() - top - axisBand - kMargin, 60.0);

    // The column count that gives the biggest cells with everything visible (and whole titles).
    double bestCell = 0;
    int bestColumns = 1;
    bool bestTitlesFit = false;
    for (int columns = 1; columns <= count; ++columns) {
        const int rows = (count + columns - 1) / columns;
        const double panelWidth = (innerWidth - (columns - 1) * kGap) / columns;
        const double panelHeight = (innerHeight - (rows - 1) * kGap) / rows;
        const double cell = std::min((panelWidth - gutterWidth) / nk, (panelHeight - gutterHeight) / nq);
        const bool titlesFit = gutterWidth + nk * cell >= titleNeed || panelWidth >= titleNeed;
        if ((titlesFit && !bestTitlesFit) || (titlesFit == bestTitlesFit && cell > bestCell)) {
            bestCell = cell;
            bestColumns = columns;
            bestTitlesFit = titlesFit;
        }
    }
    double cell = std::max(bestCell, 0.5);
    int columns = bestColumns;
    if (!page) {
        cell = std::min(bestCell, kMaxFitCell) * zoom;
        cell = std::max(cell, kMinHeatSide / std::max(nq, nk));  // never unreadably small
    }
    const double panelWidth =
        std::max(gutterWidth + nk * cell, std::min(titleNeed, page ? innerWidth / columns : titleNeed));
    const double panelHeight = gutterHeight + nq * cell;
    if (!page && (cell > bestCell + 1e-9 || panelWidth * columns + (columns - 1) * kGap > innerWidth))
        columns = std::clamp(static_cast<int>((innerWidth + kGap) / (panelWidth + kGap)), 1, count);
    const int rows = (count + columns - 1) / columns;

    // Centre the grid in the space it has (vertically too on a page).
    const double gridWidth = columns * panelWidth + (columns - 1) * kGap;
    const double gridHeight = rows * panelHeight + (rows - 1) * kGap;
    const double left = innerLeft + std::max(0.0, (innerWidth - gridWidth) / 2);
    const double gridTop = top + (page ? std::max(0.0, (innerHeight - gridHeight) / 2) : 0.0);
    for (int p = 0; p < count; ++p) {
        const int r = p / columns, c = p % columns;
        layout.panels.emplace_back(left + c * (panelWidth + kGap), gridTop + r * (panelHeight + kGap), panelWidth,
                                   panelHeight);
    }
    layout.rowAxisTitle = QRectF(left - axisBand, gridTop, axisBand - 6, gridHeight);
    layout.columnAxisTitle = QRectF(left, gridTop + gridHeight + 4, gridWidth, axisBand - 6);
    layout.cellSize = cell;
    layout.columns = columns;
    layout.size =
        page ? available
             : QSizeF(std::max(width, gridWidth + innerLeft + kMargin), gridTop + gridHeight + axisBand + kMargin);
    return layout;
}

void paintHeadsFigure(QPainter& painter, const HeadsFigure& figure, const HeadsGridLayout& layout,
                      const HeadsFigureState& state)
{
    painter.save();
    painter.fillRect(QRectF(QPointF(0, 0), layout.size), state.background);
    painter.setPen(state.text);
    const QFont base = painter.font();
    painter.setFont(figureTitleFont(base));
    painter.drawText(layout.title, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, figure.caption());
    painter.setFont(base);
    if (figure.panelCount() > 0) {
        paintColorLegend(painter, layout.legend,
                         ColorLegend{state.colormap, figure.minValue(), figure.maxValue(), figure.legendLabel()});
    }
    if (!layout.panels.empty()) {
        const QRectF r = layout.rowAxisTitle;
        painter.save();
        painter.translate(r.center());
        painter.rotate(-90);
        painter.drawText(QRectF(-r.height() / 2, -r.width() / 2, r.height(), r.width()), Qt::AlignCenter,
                         figure.rowAxisTitle());
        painter.restore();
        painter.drawText(layout.columnAxisTitle, Qt::AlignCenter, figure.columnAxisTitle());
    }
    const QTransform t = painter.deviceTransform();
    const double scale = std::max(std::hypot(t.m11(), t.m12()), std::hypot(t.m21(), t.m22()));
    for (int p = 0; p < figure.panelCount() && p < static_cast<int>(layout.panels.size()); ++p) {
        const QSize pixels(static_cast<int>(std::round(figure.columns() * layout.cellSize * scale)),
                           static_cast<int>(std::round(figure.rows() * layout.cellSize * scale)));
        paintHeatmap(painter, layout.panels[static_cast<std::size_t>(p)], figure.panel(p), panelStyle(figure, p, state),
                     figure.imageForPixels(p, state.colormap, pixels));
    }
    painter.restore();
}

}  // namespace qkv::ui
