#pragma once
// The factored view's figures, each painted by one function onto any QPaintDevice (docs/architecture.md
// section 1), so the widgets, PNG, SVG and PDF share the renderer, and their entries in the
// figure registry (factoredFigures()):
//   - the factor product: W_i^Q (left, d_model x d_k), (W_i^K)^T (top, d_k x d_model) and
//     W_i = W_i^Q (W_i^K)^T (d_model x d_model), laid out like a matrix product so each row of
//     W_i lines up with its row of W_i^Q and each column with its column of (W_i^K)^T;
//   - the spectrum of W_i from the factors (log scale) with the rank tolerance;
//   - the fused layout: the whole W^Q with each head's column block outlined;
//   - the equivalence: the scores of the head computed both ways, side by side;
//   - the overview: all four, as the tab shows them.
// Every heatmap is drawn by ui/render's paintHeatmap with the diverging map centred on zero.
//
// Symbols: d_model, h, d_k = d_model / h, n_q, n_k; a window is the zoomed block of W_i.

#include <QColor>
#include <QPainter>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <utility>
#include <vector>

#include "ui/factored/factored_head_model.hpp"
#include "core/factored/matrix_pooling.hpp"
#include "ui/figures/figure.hpp"
#include "ui/render/chart_model.hpp"

namespace qkv::ui {

// The FactoredView tab's id: the session's view.tab, the tab and its figures' view (one spelling;
// sessions store it, so it never changes).
inline constexpr QLatin1String kFactoredViewId{"factored"};

// The factored tab's figures: factored, factor-product, spectrum, fused-layout, equivalence.
std::vector<Figure> factoredFigures();

// Colours of text and lines, from the widget's palette (light or dark) or an export default.
struct FigurePalette {
    QColor text = Qt::black;
    QColor mutedText = QColor(90, 90, 90);
    QColor outline = QColor(40, 40, 40);
    QColor emphasis = Qt::black;  // the figure's head: emphasisColor(options)
    QColor background = Qt::white;
};
// The palette of a figure drawn for `options` (its text and background colours).
FigurePalette figurePalette(const FigureOptions& options);

// The cells of `values` filling `cells` on the diverging map over [-range, range], no labels.
void paintMatrixCells(QPainter& painter, const QRectF& cells, const MatrixD& values, double range);

// ---- the factor product ---------------------------------------------------------------

// Where the parts go for a target rectangle (hit-testing uses the same numbers as painting).
struct FactorProductGeometry {
    QRectF title;       // word-wrapped
    QRectF leftFactor;  // W_i^Q cells: window rows x stripBins
    QRectF topFactor;   // (W_i^K)^T cells: stripBins x window cols
    QRectF product;     // W_i cells, square
    // A colour bar per matrix beside them (the factors' stacked, W_i's at full height): each
    // matrix has its own range, so a factor of small weights is not left blank by a large one.
    QRectF queryFactorLegend;  // W_i^Q
    QRectF keyFactorLegend;    // (W_i^K)^T
    QRectF productLegend;      // W_i
    QRectF caption;            // the shapes and the window, word-wrapped
    Index productBins = 0;     // cells per side of the drawn W_i (<= window side)
    Index stripBins = 0;       // cells across each factor strip (<= d_k)
    double cell = 0;           // pixels per drawn cell
};
FactorProductGeometry factorProductGeometry(const QRectF& target, const QFontMetricsF& metrics,
                                            const FactoredHeadModel& model, const MatrixWindow& window);
QString factorProductTitle(const FactoredHeadModel& model);
QString factorProductCaption(const FactoredHeadModel& model, const MatrixWindow& window, Index productBins);

// The window clamped to the matrix and made square (zoom keeps cells square), at least
// minSide x minSide (or the whole matrix when it is smaller).
MatrixWindow clampWindow(MatrixWindow window, Index d_model, Index minSide = 4);

// What was drawn (for tests and the benchmark).
struct FactorProductPicture {
    MatrixD left;                 // drawn W_i^Q (pooled), rows x stripBins
    MatrixD top;                  // drawn (W_i^K)^T (pooled), stripBins x cols
    MatrixD product;              // drawn W_i (block means from the factors)
    double queryFactorRange = 0;  // colour range +-queryFactorRange for W_i^Q
    double keyFactorRange = 0;    // +-keyFactorRange for (W_i^K)^T
    double productRange = 0;      // +-productRange for W_i
};
FactorProductPicture factorProductPicture(const FactoredHeadModel& model, const FactorProductGeometry& geometry,
                                          const MatrixWindow& window);

// Multiply-adds of painting the factor product over a target of `size` logical pixels: the
// window's rows of both factors pooled, the pooled factors multiplied (bins^2 d_k) and the cells
// coloured; where the paint runs (work_placement.hpp) follows from it.
double factorProductWork(const FactoredHeadModel& model, const MatrixWindow& window, const QSizeF& size);

void paintFactorProduct(QPainter& painter, const QRectF& target, const FactoredHeadModel& model,
                        const MatrixWindow& window, const FigurePalette& palette = {});

// ---- the spectrum -----------------------------------------------------------------------

// The singular values of W_i from the factors (core's FactoredMatrix::singularValues):
//   - the d_k values of the d_k x d_k middle, index 1..d_k;
//   - the other d_model - d_k singular values, exactly zero by construction (rank <= d_k),
//     pinned at the axis floor as their own series "exactly 0";
//   - the rank tolerance sigma_max * d_model * epsilon as a horizontal line.
// Values of the middle that are 0 or below the floor (a rank-deficient head) are drawn at the
// floor too, in the first series, so every one of the d_k values stays visible.
struct SpectrumPicture {
    ChartModel chart;
    std::vector<QPointF> values;  // (index, sigma or floor), d_k points
    std::vector<QPointF> zeros;   // (index, floor), d_model - d_k points
    double tolerance = 0.0;
    double floor = 1e-20;
};
SpectrumPicture spectrumPicture(const FactoredHeadModel& model);
// Rank, d_k, d_model, norm, sigma_max and min, tolerance; `rich`: HTML for a QLabel.
QString spectrumStatistics(const FactoredHeadModel& model, bool rich);
// The chart and the statistics under it.
void paintSpectrum(QPainter& painter, const QRectF& target, const FactoredHeadModel& model,
                   const FigurePalette& palette = {});

// ---- the fused layout -----------------------------------------------------------------

// Columns [first, first + d_k) of W^Q belong to head i, for i = 0..h-1, d_k = queryWidth / h
// (docs/architecture.md, "Numerical conventions"). queryWidth: W^Q's columns, h d_k.
std::vector<std::pair<Index, Index>> headColumnPartition(Index queryWidth, Index headCount);
// The outline of each head's block over the cells rectangle of the fused W^Q (queryWidth columns).
std::vector<QRectF> headBlockOutlines(const QRectF& cells, Index queryWidth, Index headCount);

// Each head's colour range in the fused W^Q: ±max |w| over its d_k columns (1 when all are 0),
// from the largest weights FactoredHeadModel::build found (never a scan of W^Q while painting).
std::vector<double> headColorRanges(const FactoredHeadModel& model);
// Multiply-adds of painting the fused layout (every entry of W^Q pooled into its cell).
double fusedLayoutWork(const FactoredHeadModel& model);

struct FusedLayoutGeometry {
    QRectF title;
    QRectF cells;  // the W^Q cells
    QRectF legend;
    QRectF caption;
    std::vector<QRectF> outlines;  // one per head, over `cells`
    Index rowBins = 0;             // cells down the d_model rows
    Index headColumnBins = 0;      // cells across one head's d_k columns
};
FusedLayoutGeometry fusedLayoutGeometry(const QRectF& target, const QFontMetricsF& metrics,
                                        const FactoredHeadModel& model);

void paintFusedLayout(QPainter& painter, const QRectF& target, const FactoredHeadModel& model,
                      const FigurePalette& palette = {});

// ---- the equivalence --------------------------------------------------------------------

void paintScoreEquivalence(QPainter& painter, const QRectF& target, const FactoredHeadModel& model,
                           const FigurePalette& palette = {});
// Multiply-adds of painting the equivalence: both n_q x n_k score maps scanned for their range,
// converted and coloured. 0 until the scores are computed (the panel then only says so).
double scoreEquivalenceWork(const FactoredHeadModel& model);

// The one-line explanations under the equivalence (translated).
QString equivalenceSentence(const FactoredHeadModel& model);
// Empty without biases; else how b_i^Q and b_i^K enter the scores.
QString biasSentence(const FactoredHeadModel& model);
// Empty without q_norm and k_norm (Qwen3); else why no fixed W_i is behind the scores.
QString queryKeyNormSentence(const FactoredHeadModel& model);
// Empty unless positions are rotary; else what rotation does to the bilinear form.
QString rotarySentence(const FactoredHeadModel& model);
// All of the above that apply, one per line: the text under the equivalence, on screen and in
// figures.
QString equivalenceExplanation(const FactoredHeadModel& model);

// ---- the headline ------------------------------------------------------------------------

// "Head i: two thin matrices give the same scores as their product W_i, of rank at most d_k".
QString factoredHeadline(const FactoredHeadModel& model);
// What the factors cost against a full W_i, and the price: rank <= d_k per head, d_model together.
QString factoredTradeOff(const FactoredHeadModel& model);

// ---- all four -----------------------------------------------------------------------------

void paintFactoredOverview(QPainter& painter, const QRectF& target, const FactoredHeadModel& model,
                           const MatrixWindow& window, const FigurePalette& palette = {});

}  // namespace qkv::ui
