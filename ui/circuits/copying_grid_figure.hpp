#pragma once
// The copying scores of every head of the model as a layers x heads grid (rows: self-attention
// layers in model order, columns: heads), on a diverging scale centred on 0 over [-1, 1]:
// red, the head copies the tokens it attends to into the prediction; blue, it suppresses them
// (copying score, core/circuits/head_circuits.hpp). Each cell prints its score when it has room.

#include <QFontMetricsF>
#include <QRectF>
#include <QString>
#include <QStringList>

#include "core/common/matrix.hpp"
#include "core/pretrained/model_run.hpp"
#include "ui/figures/figure.hpp"

class QPainter;

namespace qkv::ui {

struct CopyingGridData {
    qkv::MatrixD scores;     // L x h (model order), NaN where a head has none
    QStringList layerNames;  // L row labels: "0 · self"
    QString modelLine;       // "GPT-2, 2 layers × 4 heads"
};

// Where everything goes in `rect`; the screen's hit tests use the painter's own geometry.
class CopyingGridLayout {
public:
    CopyingGridLayout(const QRectF& rect, const CopyingGridData& data, const QFontMetricsF& metrics);
    QRectF cell(qkv::Index layer, qkv::Index head) const;
    // The head under `position`, or {-1, -1}.
    qkv::ModelHead headAt(const QPointF& position) const;
    const QRectF& cells() const { return cells_; }
    const QRectF& legend() const { return legend_; }
    const QRectF& title() const { return title_; }
    const QRectF& subtitle() const { return subtitle_; }

private:
    qkv::Index rows_ = 0, columns_ = 0;
    QRectF title_, subtitle_, cells_, legend_;
    double lineHeight_ = 0;
};

// `selected`: outlined when options.showSelection ({-1, -1}: none).
void paintCopyingGrid(QPainter& painter, const QRectF& rect, const CopyingGridData& data, const FigureOptions& options,
                      qkv::ModelHead selected = {-1, -1});

}  // namespace qkv::ui
