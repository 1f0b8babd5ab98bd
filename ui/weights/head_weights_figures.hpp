#pragma once
// The weights editor's figure, widget-free: the selected head's
// W_i^Q, W_i^K, W_i^V (d_model x d_k, tall) and W_i^O (d_k x d_model, wide) as heatmaps on a
// diverging colormap symmetric around 0, each labelled with its name, shape and range; and
// beside them what switching one head off changes for the selected query token (the core's
// ||Δoutput|| / ||output||, core/analysis/head_ablation.hpp), with the head that matters most.
// The screen (with the edited cell marked) and File > Export Figure ("head-weights") share it.

#include <QFontMetricsF>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <array>
#include <vector>

#include "ui/figures/figure.hpp"
#include "ui/weights/head_weights_model.hpp"

class QPainter;

namespace qkv::ui {

// The HeadWeightsView tab's id: the session's view.tab, the tab and its figures' view (one spelling;
// sessions store it, so it never changes).
inline constexpr QLatin1String kHeadWeightsViewId{"head-weights"};

struct HeadWeightsGeometry {
    QRectF title, subtitle, note;
    std::array<QRectF, kHeadMatrixCount> cells;   // the heatmaps, by HeadMatrix
    std::array<QRectF, kHeadMatrixCount> labels;  // name, shape, range above each
    QRectF rowAxis;                               // rotated "rows: model dimension" left of the tall blocks
    QRectF columnAxis;                            // "columns: the head's d_k dimensions" under the tall blocks
    QRectF outputAxis;                            // "columns: model dimension" under W_i^O
    QRectF ablation;                              // the switch-off panel
    QRectF legend;
};

// `sharedLine`: the labels have a line for what a shared block is ("(key/value head 1's)", under
// grouped-query attention) between the name and the shape. Each label is its block's width, so
// neighbours' words never touch.
HeadWeightsGeometry headWeightsGeometry(const QRectF& target, const QFontMetricsF& metrics, bool sharedLine = false);

// The block and cell under `point`; matrix -1 when none.
struct HeadWeightsHit {
    int matrix = -1;  // a HeadMatrix
    qkv::Index row = 0, column = 0;
};
HeadWeightsHit headWeightsHitAt(const HeadWeightsGeometry& g, const HeadWeightsModel& model, const QPointF& point);

// The cell the editor is editing, marked on screen (options.showSelection).
struct HeadWeightsMark {
    int matrix = -1;
    qkv::Index row = 0, column = 0;
};

void paintHeadWeights(QPainter& painter, const QRectF& target, const HeadWeightsModel& model,
                      const FigureOptions& options, const HeadWeightsMark& mark = {});

// "Ablating head 2 changes «chat»'s output by 34.5%": the core's number in words.
QString ablationSentence(const HeadWeightsModel& model, qkv::Index head, qkv::Index query);
// A relative change as the editor prints it ("34.5%", "n/a").
QString percentText(double relativeChange);

// For the registry: the "head-weights" figure of the "head-weights" tab.
std::vector<Figure> headWeightsFigures();

}  // namespace qkv::ui
