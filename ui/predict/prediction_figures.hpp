#pragma once
// The Predictions tab's figures, widget-free (docs/architecture.md, "Layers"), drawn from the whole model's
// overview (FigureInput::overview):
//   "rollout"      attention rollout (Abnar & Zuidema 2020) through the self-attention layers of
//                  the stack that reads the typed sentence, up to FigureOptions::rolloutStop: one
//                  heatmap from the positions after that layer (rows) to the input tokens
//                  (columns), each row a distribution over the input tokens;
//   "predictions"  the top 5 tokens at FigureOptions::predictionPosition with every head on beside
//                  those with the switched-off heads off, as horizontal bars (Qt Charts), each
//                  token labelled with its change in percentage points, under a heading that
//                  names the model and the prompt.
// Both are unavailable, saying why, without an overview (no model behind the layer).

#include <QRectF>
#include <QString>
#include <QStringList>

#include <vector>

#include "core/common/matrix.hpp"
#include "ui/figures/figure.hpp"
#include "ui/predict/prediction_data.hpp"
#include "ui/render/chart_model.hpp"

class QPainter;

namespace qkv::ui {

// The PredictionView tab's id: the session's view.tab and its figures' view.
inline constexpr QLatin1String kPredictionViewId{"predictions"};

// The rollout as the figure draws it.
struct RolloutPicture {
    qkv::MatrixD rollout;  // n x n, rows: positions after the stop layer, columns: input tokens
    QStringList tokens;
    qkv::Index stop = -1;       // index into rolloutLayers
    qkv::Index stops = 0;       // how many layers the rollout can stop after
    QString stopLayer;          // "1 · bert.encoder.layer.1.attention"
    qkv::Index stopIndex = -1;  // its --list-layers index
    bool encoderDecoder = false;
    QString problem;  // why there is no rollout (then `rollout` is empty)
};

// The rollout of `overview`'s run through rolloutLayers()[0..stop]; stop < 0: the last layer.
RolloutPicture makeRolloutPicture(const qkv::ModelOverview& overview, qkv::Index stop);
void paintRollout(QPainter& painter, const QRectF& target, const RolloutPicture& picture, const FigureOptions& options);

// The before/after bars of one position; one series when no head is off.
ChartModel predictionsChart(const PredictionComparison& comparison);
QString everyHeadOnName();
// The lines under the predictions figure's title: the model (name, family, shape) and the prompt.
QStringList predictionsSubtitle(const qkv::ModelOverview& overview, const QString& prompt);
// The predictions figure: the chart's title, the subtitle's lines (the last elided in its
// middle, the others at their end), then the chart.
void paintPredictions(QPainter& painter, const QRectF& target, const PredictionComparison& comparison,
                      const QStringList& subtitle, const FigureOptions& options);
QString headsOffName(const PredictionComparison& comparison);

// The figures of the Predictions tab, for the figure registry: "rollout" and "predictions".
std::vector<Figure> predictionFigures();

}  // namespace qkv::ui
