// The step figure's geometry (step_figures.hpp): where the header, the two columns of steps
// and every bar, matrix and legend go in a rectangle, and what a point over them means. The
// painter and the view's hit tests share it.
#include <QCoreApplication>

#include <algorithm>
#include <cmath>

#include "ui/figures/text_layout.hpp"
#include "ui/matrices/matrix_picture.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/steps/row_labels.hpp"
#include "ui/steps/step_figures.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::StepFigure)
};

constexpr double kMargin = 8.0;
constexpr double kColumnGap = 28.0;
constexpr double kWeightColumn = 58.0;  // ⑧'s column of weights between V_i and a_ij v_j
constexpr double kTwoColumnWidth = 880.0;  // narrower: the two columns go one below the other
constexpr double kOneColumnWidth = 460.0;
constexpr double kFloorBars = 36.0;  // a row of bars in a figure exported too small for minimumBarsHeight

double wrappedHeight(const QFontMetricsF& metrics, const QString& text, double width)
{
    if (text.isEmpty()) return 0;
    return wrappedTextRect(metrics, width, text).height();
}

// The widest label, at most 9 characters wide (measured once per layout: 4,096 labels take
// milliseconds).
double labelsWidth(const QStringList& labels, const QFontMetricsF& metrics)
{
    return widestText(labels, metrics, metrics.averageCharWidth() * 9) + 6;
}

// Token chips in `strip`: all of them when they fit, else a window around `selected` with an
// ellipsis chip standing for each side left out.
std::vector<TokenChip> layoutChips(const QRectF& strip, const QStringList& labels, int selected,
                                   const QFontMetricsF& metrics)
{
    std::vector<TokenChip> chips;
    const int count = static_cast<int>(labels.size());
    if (count == 0) return chips;
    constexpr double kSpacing = 3.0, kPadding = 8.0;
    auto width = [&](int i) {
        return std::min(metrics.horizontalAdvance(labels[i]), metrics.averageCharWidth() * 12) + kPadding;
    };
    const double ellipsis = metrics.horizontalAdvance(QStringLiteral("…")) + kPadding;
    int first = 0, last = count - 1;
    // Whether all fit; measured only until they do not (a long sentence has thousands).
    double total = 0;
    for (int i = 0; i < count && total <= strip.width(); ++i) total += width(i) + kSpacing;
    if (total > strip.width()) {
        // Grow a window from the selected token outwards while it fits with two ellipses.
        selected = std::clamp(selected, 0, count - 1);
        first = last = selected;
        double used = width(selected) + kSpacing + 2 * (ellipsis + kSpacing);
        bool grew = true;
        while (grew) {
            grew = false;
            if (last + 1 < count && used + width(last + 1) + kSpacing <= strip.width()) {
                used += width(++last) + kSpacing;
                grew = true;
            }
            if (first > 0 && used + width(first - 1) + kSpacing <= strip.width()) {
                used += width(--first) + kSpacing;
                grew = true;
            }
        }
    }
    double x = strip.left();
    auto add = [&](double w, int position) {
        chips.push_back({QRectF(x, strip.top(), w, strip.height()), position});
        x += w + kSpacing;
    };
    if (first > 0) add(ellipsis, -1);
    for (int i = first; i <= last; ++i) add(width(i), i);
    if (last < count - 1) add(ellipsis, -1);
    return chips;
}

// One column of the figure: items stacked top to bottom, fixed heights plus shares of the rest.
// An item's share is at least `minimum` (comfortable: the view scrolls below it), and in a
// figure of a fixed size too small for that, at least `floor` (crowded, but still drawn).
struct StackItem {
    double fixed = 0, weight = 0, minimum = 0;
    QRectF* out = nullptr;
    double maximum = 1e9;  // of the share
    double floor = -1;     // -1: the minimum
};
double floorOf(const StackItem& item) { return item.floor < 0 ? item.minimum : std::min(item.floor, item.minimum); }
double stackMinimum(const std::vector<StackItem>& items)
{
    double total = 0;
    for (const StackItem& item : items) total += item.fixed + item.minimum;
    return total;
}
double stackFloor(const std::vector<StackItem>& items)
{
    double total = 0;
    for (const StackItem& item : items) total += item.fixed + floorOf(item);
    return total;
}
void stack(const QRectF& column, std::vector<StackItem> items)
{
    // Below the comfortable minimum (a figure exported small), every minimum gives way towards
    // its floor by the same fraction, just enough to fit.
    const double comfortable = stackMinimum(items), tight = stackFloor(items);
    if (column.height() < comfortable && comfortable > tight) {
        const double kept = std::clamp((column.height() - tight) / (comfortable - tight), 0.0, 1.0);
        for (StackItem& item : items) item.minimum = floorOf(item) + kept * (item.minimum - floorOf(item));
    }
    // The weighted items share what the fixed parts leave. An item whose share would be below its
    // minimum (or above its maximum) is held there, and the others share the rest again, so the
    // items never take more than the column when it has at least the stack's minimum.
    enum class Held { No, AtMinimum, AtMaximum };
    std::vector<Held> held(items.size(), Held::No);
    const auto heldHeight = [&](std::size_t i) {
        return held[i] == Held::AtMinimum ? items[i].minimum : held[i] == Held::AtMaximum ? items[i].maximum : 0.0;
    };
    double share = 0;
    for (std::size_t pass = 0; pass <= items.size(); ++pass) {
        double fixed = 0, weights = 0;
        for (std::size_t i = 0; i < items.size(); ++i) {
            fixed += items[i].fixed + heldHeight(i);
            if (held[i] == Held::No) weights += items[i].weight;
        }
        share = weights > 0 ? std::max(0.0, column.height() - fixed) / weights : 0;
        bool changed = false;
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (held[i] != Held::No || items[i].weight <= 0) continue;
            const double grown = items[i].weight * share;
            if (grown > items[i].maximum)
                held[i] = Held::AtMaximum, changed = true;
            else if (grown < items[i].minimum)
                held[i] = Held::AtMinimum, changed = true;
        }
        if (!changed) break;
    }
    double y = column.top();
    for (std::size_t i = 0; i < items.size(); ++i) {
        StackItem& item = items[i];
        const double grown = held[i] != Held::No ? heldHeight(i) : item.weight * share;
        const double height = item.fixed + std::max(item.minimum, grown);
        if (item.out) *item.out = QRectF(column.left(), y, column.width(), height);
        y += height;
    }
}

// The sign legend's width: two swatches and its words.
double signLegendWidth(const StepTexts& texts, const QFontMetricsF& metrics)
{
    return 2 * metrics.ascent() + 14 + metrics.horizontalAdvance(texts.signLegend);
}

}  // namespace

double minimumBarsHeight(const QFontMetricsF& metrics)
{
    // The plot holds its three tick labels apart (the largest, zero, the smallest: barTicks) with a
    // line to spare between them, and the bars are tall enough to compare by eye.
    return 4 * metrics.lineSpacing() + 8;
}

namespace {

// Title, subtitle (with the sign legend) and the two token strips; returns where the steps start.
double layoutHeader(StepGeometry& g, const QRectF& area, const StepTexts& texts, const StepNumbers& n,
                    const QFontMetricsF& metrics)
{
    const double line = metrics.lineSpacing();
    double y = area.top();
    g.title = QRectF(area.left(), y, area.width(), line * 1.3);
    y += g.title.height();
    const double legend = signLegendWidth(texts, metrics);
    if (metrics.horizontalAdvance(texts.subtitle) + 24 + legend <= area.width()) {
        g.subtitle = QRectF(area.left(), y, area.width() - legend - 24, line);
        g.signLegend = QRectF(area.right() - legend, y, legend, line);
    } else {
        g.subtitle = QRectF(area.left(), y, area.width(), line);
        y += line;
        g.signLegend = QRectF(area.left(), y, std::min(legend, area.width()), line);
    }
    y += line + 4;
    const double chip = line + 4;
    const double stripLabel = std::max(metrics.horizontalAdvance(Text::tr("queries:")),
                                       metrics.horizontalAdvance(Text::tr("keys and values:"))) +
                              10;
    const QRectF strip(area.left() + stripLabel, y, area.width() - stripLabel, chip);
    g.queryStripLabel = QRectF(area.left(), y, stripLabel, chip);
    g.queryChips = layoutChips(strip, n.queryLabels, n.query, metrics);
    y += chip + 3;
    g.keyStripLabel = QRectF(area.left(), y, stripLabel, chip);
    g.keyChips = layoutChips(strip.translated(0, chip + 3), n.keyLabels, n.key, metrics);
    return y + chip + 8;
}

// The rectangles ⑦ ⑧ and ⑨ are split into.
struct ValueRows {
    QRectF heatmaps, sum, legends, concat;
};

// The width of V_i's and of a_ij v_j's cells in a right column `width` wide, beside ⑦'s key
// labels `labels` wide.
double valueCellsWidth(double labels, double width)
{
    return std::max(20.0, (width - labels - kWeightColumn - 16) / 2);
}
// The width of ⑦'s and ⑧'s colour bars (⑨'s is twice as wide).
double valueLegendWidth(double labels, double width)
{
    return std::min(valueCellsWidth(labels, width) + labels, width / 2 - 8);
}
// The height a colour bar needs, its label, gradient and tick labels included (color_legend.hpp).
double legendHeight(const QString& label, double width, const QFontMetricsF& metrics)
{
    return horizontalLegendHeight(metrics, width, label) + 4;
}

// ① to ⑥, each a name, a formula and (for all but ④ ⑤) a row of bars; the softmax bars' key
// labels are `labels` long.
std::vector<StackItem> weightItems(StepGeometry& g, const StepTexts& texts, const StepNumbers& n, double width,
                                   double labels, const QFontMetricsF& metrics)
{
    const double line = metrics.lineSpacing();
    auto formula = [&](int step) { return wrappedHeight(metrics, texts.formulas[step], width) + 2; };
    const double softmaxExtra = (n.keyLabels.isEmpty() ? 0.0 : labels) + line + 6;
    const double bars = minimumBarsHeight(metrics);
    constexpr double kStepGap = 6;
    return {
        {line, 0, 0, &g.names[0]},
        {formula(0), 0, 0, &g.formulas[0]},
        {0, 1, bars, &g.queryBars, 1e9, kFloorBars},
        {line + kStepGap, 0, 0, &g.names[1]},
        {formula(1), 0, 0, &g.formulas[1]},
        {0, 1, bars, &g.keyBars, 1e9, kFloorBars},
        {line + kStepGap, 0, 0, &g.names[2]},
        {formula(2), 0, 0, &g.formulas[2]},
        {0, 1, bars, &g.productBars, 1e9, kFloorBars},
        {line + kStepGap, 0, 0, &g.names[3]},
        {formula(3), 0, 0, &g.formulas[3]},
        {line + kStepGap, 0, 0, &g.names[4]},
        {formula(4), 0, 0, &g.formulas[4]},
        {line + kStepGap, 0, 0, &g.names[5]},
        {formula(5), 0, 0, &g.formulas[5]},
        {softmaxExtra, 1.5, bars, &g.softmaxBars, 1e9, kFloorBars},
    };
}

// ⑦ to ⑩: names and formulas, V_i beside a_ij v_j, the sum, Concat, the output bars.
std::vector<StackItem> valueItems(StepGeometry& g, ValueRows& rows, const StepTexts& texts, const StepNumbers& n,
                                  double width, double labels, const QFontMetricsF& metrics)
{
    const double line = metrics.lineSpacing();
    auto formula = [&](int step) { return wrappedHeight(metrics, texts.formulas[step], width) + 2; };
    const auto keys = static_cast<double>(n.values.rows());
    const double legend = valueLegendWidth(labels, width);
    const double legends =
        std::max(legendHeight(texts.valueLegend, legend, metrics), legendHeight(texts.weightedLegend, legend, metrics));
    const double concatLegend = legendHeight(texts.concatLegend, std::min(width, 2 * legend), metrics);
    // V_i's rows: room to label each key (row_labels.hpp), and no more than 26 px a row.
    const double labelled = rowLabelsHeight(metrics, static_cast<int>(keys)) + 4;
    const double bars = minimumBarsHeight(metrics);
    return {
        {line, 0, 0, &g.names[6]},
        {formula(6), 0, 0, &g.formulas[6]},
        {line + 4, 0, 0, &g.names[7]},
        {formula(7), 0, 0, &g.formulas[7]},
        {line, 2.4, std::max(40.0, labelled), &rows.heatmaps, std::max({120.0, keys * 26.0, labelled})},
        {line + 6, 0, 0, &rows.sum},
        {legends, 0, 0, &rows.legends},
        {line + 6, 0, 0, &g.names[8]},
        {formula(8), 0, 0, &g.formulas[8]},
        {22 + line + 4 + concatLegend, 0, 0, &rows.concat},
        {line + 6, 0, 0, &g.names[9]},
        {formula(9), 0, 0, &g.formulas[9]},
        {line + 4, 1.0, bars, &g.outputBars, 1e9, kFloorBars},
    };
}

// ⑦ ⑧: [key labels][V_i][weights][a_ij v_j] with the sum under a_ij v_j; ⑨: Concat.
void placeValues(StepGeometry& g, const ValueRows& rows, const StepNumbers& n, double left, double width,
                 double labels, const QFontMetricsF& metrics)
{
    const double line = metrics.lineSpacing();
    const double cellsWidth = valueCellsWidth(labels, width);
    g.valueLabels = QRectF(left, rows.heatmaps.top() + line + 2, labels, rows.heatmaps.height() - line - 4);
    g.valueCells = QRectF(g.valueLabels.right(), g.valueLabels.top(), cellsWidth, g.valueLabels.height());
    g.weightColumn = QRectF(g.valueCells.right() + 8, g.valueCells.top(), kWeightColumn, g.valueCells.height());
    g.weightedCells = QRectF(g.weightColumn.right() + 8, g.valueCells.top(), cellsWidth, g.valueCells.height());
    g.sumCells = QRectF(g.weightedCells.left(), rows.sum.top() + 2, cellsWidth, line + 2);
    const double legendWidth = valueLegendWidth(labels, width);
    g.valueLegend = QRectF(left, rows.legends.top() + 2, legendWidth, rows.legends.height() - 4);
    g.weightedLegend =
        QRectF(g.weightedCells.right() - legendWidth, rows.legends.top() + 2, legendWidth, rows.legends.height() - 4);
    g.concatCells = QRectF(left, rows.concat.top() + 2, width, 20);
    g.concatLabels = QRectF(left, g.concatCells.bottom() + 1, width, line);
    g.concatLegend = QRectF(left, g.concatLabels.bottom() + 2, std::min(width, 2 * legendWidth),
                            rows.concat.bottom() - 4 - g.concatLabels.bottom());
    for (qkv::Index i = 0; i < n.headCount; ++i)
        g.headBlocks.push_back(matrixColumnBlock(g.concatCells, n.concatWidth, i * n.d_v, n.d_v));
}

}  // namespace

StepGeometry stepGeometry(const QRectF& target, const StepNumbers& n, const QFontMetricsF& metrics)
{
    StepGeometry g;
    const StepTexts texts = stepTexts(n);
    const QRectF area = target.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    const double y = layoutHeader(g, area, texts, n, metrics);
    g.names.assign(10, QRectF());
    g.formulas.assign(10, QRectF());

    // Two columns (weights left, values right) when there is room, else one below the other.
    const bool oneColumn = area.width() < kTwoColumnWidth - 2 * kMargin;
    const double leftWidth = oneColumn ? area.width() : (area.width() - kColumnGap) * 0.44;
    const double rightWidth = oneColumn ? area.width() : area.width() - kColumnGap - leftWidth;
    const QRectF left(area.left(), y, leftWidth, area.bottom() - y);
    const QRectF right(oneColumn ? area.left() : left.right() + kColumnGap, y, rightWidth, area.bottom() - y);
    const double keyLabels = labelsWidth(n.keyLabels, metrics);  // ⑥'s and ⑦'s
    std::vector<StackItem> leftItems = weightItems(g, texts, n, leftWidth, keyLabels, metrics);
    ValueRows rows;
    std::vector<StackItem> rightItems = valueItems(g, rows, texts, n, rightWidth, keyLabels, metrics);
    std::vector<StackItem> allItems = leftItems;
    if (oneColumn) {
        rightItems.front().fixed += 12;  // a gap between the two halves
        allItems.insert(allItems.end(), rightItems.begin(), rightItems.end());
        stack(left, allItems);
    } else {
        stack(left, leftItems);
        stack(right, rightItems);
    }
    placeValues(g, rows, n, right.left(), rightWidth, keyLabels, metrics);

    g.stepBottoms = {g.queryBars.bottom(),    g.keyBars.bottom(),     g.productBars.bottom(), g.formulas[3].bottom(),
                     g.formulas[4].bottom(),  g.softmaxBars.bottom(), g.valueCells.bottom(),  g.weightedLegend.bottom(),
                     g.concatLegend.bottom(), g.outputBars.bottom()};
    const double header = y - area.top() + 2 * kMargin;
    g.minimumSize = oneColumn
                        ? QSizeF(kOneColumnWidth, header + stackFloor(allItems))
                        : QSizeF(kTwoColumnWidth, header + std::max(stackFloor(leftItems), stackFloor(rightItems)));
    g.comfortableSize =
        oneColumn ? QSizeF(kOneColumnWidth, header + stackMinimum(allItems))
                  : QSizeF(kTwoColumnWidth, header + std::max(stackMinimum(leftItems), stackMinimum(rightItems)));
    g.fits = target.width() >= g.minimumSize.width() - 0.5 && target.height() >= g.minimumSize.height() - 0.5;
    return g;
}

StepHit stepHitAt(const StepGeometry& g, const StepNumbers& n, const QPointF& point, const QFontMetricsF& metrics)
{
    StepHit hit;
    if (!n.valid) return hit;
    for (const TokenChip& chip : g.queryChips)
        if (chip.position >= 0 && chip.rect.contains(point)) hit.query = chip.position;
    for (const TokenChip& chip : g.keyChips)
        if (chip.position >= 0 && chip.rect.contains(point)) hit.key = chip.position;
    if (hit.query >= 0 || hit.key >= 0) return hit;
    const BarsGeometry softmax =
        barsGeometry(g.softmaxBars, n.rowWeights, softmaxBarsStyle(n, FigureOptions{}), metrics);
    if (const int bar = softmax.barAt(point); bar >= 0) {
        hit.key = bar;
        return hit;
    }
    const qkv::Index keys = n.values.rows();
    for (const QRectF& cells : {g.valueLabels, g.valueCells, g.weightColumn, g.weightedCells}) {
        if (!cells.contains(point) || keys == 0) continue;
        hit.key = std::clamp(static_cast<int>((point.y() - cells.top()) / cells.height() * static_cast<double>(keys)),
                             0, static_cast<int>(keys) - 1);
        return hit;
    }
    for (std::size_t i = 0; i < g.headBlocks.size(); ++i) {
        const QRectF& block = g.headBlocks[i];
        const QRectF column(block.left(), g.concatCells.top(), block.width(),
                            g.concatLabels.bottom() - g.concatCells.top());
        if (column.contains(point)) hit.head = static_cast<int>(i);
    }
    return hit;
}

}  // namespace qkv::ui
