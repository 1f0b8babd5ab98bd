#include "ui/heads/heads_grid.hpp"

#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/text_layout.hpp"
#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {
namespace {

constexpr double kGap = 10.0;           // between panels (their labels are shared: no labels between)
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

HeatmapStyle panelStyle(const HeadsFigure& figure, int panel, const HeadsFigureState& state,
                        const HeadsGridLayout* layout)
{
    HeatmapStyle style;
    style.colormap = state.colormap;
    style.minValue = figure.minValue();
    style.maxValue = figure.maxValue();
    const auto p = static_cast<std::size_t>(panel);
    if (!layout || p >= layout->rowLabels.size() || layout->rowLabels[p]) style.rowLabels = figure.rowLabels();
    if (!layout || p >= layout->columnLabels.size() || layout->columnLabels[p]) style.columnLabels = figure.columnLabels();
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

namespace {

// The grid's panels share their axes, as small multiples do: the row labels (queries) once per
// grid row, on its first panel, and the column labels (keys) once per grid column, on its lowest
// panel. Every panel's cells line up with the labels of its row and its column.
struct SharedGutters {
    double rowLabels = 0;     // left of the first column's cells
    double columnLabels = 0;  // below the lowest panel of each column
    double top = 0;           // the panel's title
    double right = 0;
    static constexpr double kSlack = 6;  // room for the selected panel's frame

    // The width of grid column `column` (its cells `cells` wide), and the height of a panel with or
    // without column labels (its cells `cells` high).
    double width(int column, double cells) const { return (column == 0 ? rowLabels : 0) + cells + right + kSlack; }
    double height(bool labelled, double cells) const { return top + cells + (labelled ? columnLabels : 2) + kSlack; }
};

// Whether panel `p` of `count` in `columns` columns has no panel below it (it shows the keys).
bool lowestInColumn(int p, int count, int columns) { return p + columns >= count; }

// How many grid rows hold a panel that shows the keys: the last, and the one above it where the
// last row is not full.
int rowsWithColumnLabels(int count, int columns)
{
    const int rows = (count + columns - 1) / columns;
    return rows >= 2 && count % columns != 0 ? 2 : 1;
}

}  // namespace

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
    const double axisBand = metrics.height() + 10;
    const QMarginsF full = HeatmapLayout::gutters(panelStyle(figure, 0, HeadsFigureState{}), metrics);
    SharedGutters g;
    g.rowLabels = full.left();
    g.columnLabels = full.bottom();
    g.top = full.top();
    g.right = full.right();
    double titleNeed = 0;  // a panel is at least as wide as its title (bold when selected)
    for (int p = 0; p < count; ++p)
        titleNeed = std::max(titleNeed, boldMetrics.horizontalAdvance(figure.panelTitle(p)) + 4);
    const double nq = figure.rows(), nk = figure.columns();
    const double innerLeft = kMargin + axisBand;
    const double innerWidth = width - kMargin - innerLeft;
    const double top = kMargin + headerHeight + kMargin;
    const double innerHeight = std::max(available.height() - top - axisBand - kMargin, 60.0);

    // A grid column is as wide as its cells and labels, or as its panels' titles (the first
    // column's title may use its row labels' room).
    // On a page a title that cannot fit is cut rather than the page overflowing.
    const auto columnWidth = [&](int column, double cell, int of) {
        const double need = page ? std::min(titleNeed, (innerWidth - (of - 1) * kGap) / of) : titleNeed;
        return std::max(g.width(column, nk * cell), need);
    };
    const auto gridWidthOf = [&](int of, double cell) {
        double total = (of - 1) * kGap;
        for (int c = 0; c < of; ++c) total += columnWidth(c, cell, of);
        return total;
    };
    // The column count that gives the biggest cells with everything visible (and whole titles).
    double bestCell = 0;
    int bestColumns = 1;
    bool bestTitlesFit = false;
    for (int columns = 1; columns <= count; ++columns) {
        const int rows = (count + columns - 1) / columns;
        const double widthForCells =
            innerWidth - (columns - 1) * kGap - g.rowLabels - columns * (g.right + SharedGutters::kSlack);
        const double heightForCells = innerHeight - (rows - 1) * kGap - rows * (g.top + 2 + SharedGutters::kSlack) -
                                      rowsWithColumnLabels(count, columns) * (g.columnLabels - 2);
        double cell = std::min(widthForCells / (columns * nk), heightForCells / (rows * nq));
        const bool titlesFit = gridWidthOf(columns, 0.0) <= innerWidth;
        if (titlesFit && gridWidthOf(columns, cell) > innerWidth) {
            // Titles wider than the cells: the widest cells whose columns still fit.
            double low = 0.0, high = cell;
            for (int step = 0; step < 40; ++step) {
                const double middle = (low + high) / 2;
                (gridWidthOf(columns, middle) <= innerWidth ? low : high) = middle;
            }
            cell = low;
        }
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
    if (!page && (cell > bestCell + 1e-9 || gridWidthOf(columns, cell) > innerWidth)) {
        columns = 1;  // as many as fit the width (the grid scrolls down)
        while (columns < count && gridWidthOf(columns + 1, cell) <= innerWidth) ++columns;
    }
    const int rows = (count + columns - 1) / columns;

    std::vector<double> rowHeights(static_cast<std::size_t>(rows), 0.0);
    for (int p = 0; p < count; ++p) {
        double& h = rowHeights[static_cast<std::size_t>(p / columns)];
        h = std::max(h, g.height(lowestInColumn(p, count, columns), nq * cell));
    }
    // Centre the grid in the space it has (vertically too on a page).
    const double gridWidth = gridWidthOf(columns, cell);
    double gridHeight = (rows - 1) * kGap;
    for (const double h : rowHeights) gridHeight += h;
    const double left = innerLeft + std::max(0.0, (innerWidth - gridWidth) / 2);
    const double gridTop = top + (page ? std::max(0.0, (innerHeight - gridHeight) / 2) : 0.0);
    double y = gridTop;
    for (int r = 0; r < rows; ++r) {
        double x = left;
        for (int c = 0; c < columns && r * columns + c < count; ++c) {
            const int p = r * columns + c;
            const bool keys = lowestInColumn(p, count, columns);
            layout.panels.emplace_back(x, y, columnWidth(c, cell, columns), g.height(keys, nq * cell));
            layout.rowLabels.push_back(c == 0);
            layout.columnLabels.push_back(keys);
            x += columnWidth(c, cell, columns) + kGap;
        }
        y += rowHeights[static_cast<std::size_t>(r)] + kGap;
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
        paintHeatmap(painter, layout.panels[static_cast<std::size_t>(p)], figure.panel(p),
                     panelStyle(figure, p, state, &layout),
                     figure.imageForPixels(p, state.colormap, pixels));
    }
    painter.restore();
}

}  // namespace qkv::ui
