#pragma once
// The step-by-step figure: equation (1) and MultiHead (paper section 3.2) for one head, one
// query i and one key j, end to end, painted by widget-free functions (figure.hpp):
//   left column (how much key j matters): ① q_i, ② k_j, ③ q_i ⊙ k_j and the raw score q·k,
//     ④ the scaled score q·k/√d_k, ⑤ the mask, ⑥ the softmax over the row;
//   right column (what the head passes on): ⑦ the values v_j = x_j W_i^V (rows of V_i),
//     ⑧ the head output Σ_j a_ij v_j from its weighted parts, ⑨ Concat of every head's output
//     for query i (blocks marked, switched-off heads zeroed), ⑩ the output row Concat W^O + b^O.
// Every number comes from StepNumbers (the core's Result). The screen paints the same function
// with the selection marks on and hit-tests with stepGeometry().

#include <QFontMetricsF>
#include <QRectF>
#include <QString>

#include <vector>

#include "ui/figures/figure.hpp"
#include "ui/steps/bars_painter.hpp"
#include "ui/steps/step_numbers.hpp"

class QPainter;

namespace qkv::ui {

// The StepView tab's id: the session's view.tab, the tab and its figures' view (one spelling;
// sessions store it, so it never changes).
inline constexpr QLatin1String kStepViewId{"step"};

// The words of the figure: each step's name and its formula with the core's numbers.
struct StepTexts {
    QString title, subtitle;
    QString signLegend;                                 // the one colour convention of the sign, in the header
    QString valueLegend, weightedLegend, concatLegend;  // the colour bars' labels of ⑦ ⑧ ⑨
    std::vector<QString> names;                         // 10 entries: "① Query vector q_i", ...
    std::vector<QString> formulas;                      // 10 entries, with the numbers
};
StepTexts stepTexts(const StepNumbers& numbers);
// What the tab and its figure say for a long (streamed) layer, whose maps are kept only pooled:
// why the steps do not follow it, and where its rows are shown exactly instead.
QString stepsLongLayerNote(const qkv::Result& result);

// A token chip of the query or key strip at the top.
struct TokenChip {
    QRectF rect;
    int position = -1;  // -1: an ellipsis standing for tokens left out
};

// Where everything goes in a rectangle (the painter and the widget's hit tests share it).
struct StepGeometry {
    QRectF title, subtitle;
    QRectF signLegend;  // right of the subtitle, or under it when the line is full
    QRectF queryStripLabel, keyStripLabel;
    std::vector<TokenChip> queryChips, keyChips;
    std::vector<QRectF> names, formulas;  // 10 each
    QRectF queryBars, keyBars, productBars, softmaxBars, outputBars;
    QRectF valueLabels, valueCells, weightColumn, weightedCells, sumCells;  // ⑦ ⑧
    QRectF valueLegend, weightedLegend;
    QRectF concatCells, concatLabels, concatLegend;  // ⑨ (the legend also holds ⑧'s sum)
    std::vector<QRectF> headBlocks;                  // over concatCells, one per head
    std::vector<double> stepBottoms;                 // 10: where each step's drawing ends
    QSizeF minimumSize;                              // below this the figure is crowded
    QSizeF comfortableSize;                          // every row of bars at minimumBarsHeight: the view scrolls below it
    bool fits = true;                                // the rectangle is at least minimumSize
};
StepGeometry stepGeometry(const QRectF& target, const StepNumbers& numbers, const QFontMetricsF& metrics);
// The least height a row of bars (① ② ③ ⑥ ⑩) is given: its value ticks apart and its bars
// comparable. The view is never smaller than the figure's comfortableSize (it scrolls instead);
// a figure exported smaller squeezes them towards a crowded floor.
double minimumBarsHeight(const QFontMetricsF& metrics);

// The styles of the bar rows (shared by painting and hit-testing).
BarsStyle softmaxBarsStyle(const StepNumbers& numbers, const FigureOptions& options);

// One colour convention for the sign in the whole figure, the heatmaps' diverging blue–orange
// scale: positive orange, negative blue, in q_i, k_j, q_i ⊙ k_j and the output row as in V_i, a_ij v_j
// and Concat (the header's legend says so).
QColor positiveColor();
QColor negativeColor();
struct StepBarStyles {
    BarsStyle query, key, product, output;  // signed: positiveColor() / negativeColor()
};
StepBarStyles stepBarStyles(const StepNumbers& numbers, const FigureOptions& options);

// What a click or hover at `point` means.
struct StepHit {
    int query = -1, key = -1, head = -1;
};
StepHit stepHitAt(const StepGeometry& geometry, const StepNumbers& numbers, const QPointF& point,
                  const QFontMetricsF& metrics);

void paintSteps(QPainter& painter, const QRectF& target, const StepNumbers& numbers, const FigureOptions& options);

// The figures of the step view, for the figure registry: "steps".
std::vector<Figure> stepsFigures();

}  // namespace qkv::ui
