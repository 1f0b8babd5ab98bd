#pragma once
// The matrices figure: the layer as the data flows, the paper's Figure 2 with live numbers.
// Two lanes share their rows, so the selected query's row lines up across every matrix:
//   queries lane (n_q rows):  X_q → Q → Q_i → scores_i → A_i → A_i V_i → Concat → Output
//   keys lane (n_k rows):     X_kv → K → K_i → V → V_i                   W^O (under Concat)
// Each matrix is one image (matrix_picture.hpp) with its name, how it is made and its shape;
// the selected head's column block is outlined in Q, K, V and Concat and its rows in W^O.
// Signed matrices use the diverging map, each over ± its own largest |value| (the range is in
// its label); A_i uses viridis over [0, its largest weight].

#include <QFontMetricsF>
#include <QPoint>
#include <QRectF>
#include <QString>

#include <array>
#include <vector>

#include "ui/figures/figure.hpp"
#include "ui/matrices/matrices_model.hpp"

class QPainter;

namespace qkv::ui {

// The MatricesView tab's id: the session's view.tab, the tab and its figures' view (one spelling;
// sessions store it, so it never changes).
inline constexpr QLatin1String kMatricesViewId{"matrices"};

struct MatricesGeometry {
    QRectF title, subtitle;
    std::array<QRectF, kLayerMatrixCount> cells;   // each matrix's image
    std::array<QRectF, kLayerMatrixCount> labels;  // name, formula and shape above it
    QRectF queryTokens, keyTokens;                 // token labels of the two lanes
    QRectF queryAxis, keyAxis;                     // rotated lane titles
    QRectF signedLegend, weightLegend;
};
MatricesGeometry matricesGeometry(const QRectF& target, const MatricesModel& model, const QFontMetricsF& metrics);

// The matrix and its (row, column) under a point; matrix -1 when none.
struct MatrixHit {
    int matrix = -1;
    qkv::Index row = -1, column = -1;
    LayerMatrix which() const { return static_cast<LayerMatrix>(matrix); }
};
MatrixHit matricesHitAt(const MatricesGeometry& geometry, const MatricesModel& model, const QPointF& point);

// What to mark: the options' query and key rows when showSelection.
void paintMatrices(QPainter& painter, const QRectF& target, const MatricesModel& model, const FigureOptions& options);

// The figures of the matrices view, for the figure registry: "matrices".
std::vector<Figure> matricesFigures();

}  // namespace qkv::ui
