#pragma once
// The Costs tab's charts as data (ChartModel, drawn with Qt Charts by ui/render's
// buildChart on screen and renderChart in files) and its figures in the registry:
//   comparison        all four charts under the shapes they are for;
//   score-path        score-path parameters per head and per layer, factored vs a full W_i;
//   layer-parameters  whole-layer parameters of standard, full W_i, unreduced, MQA, GQA layers;
//   parameters-vs-h   those totals against h over the divisors of d_model (log-log);
//   score-flops       one head's score FLOPs both ways, by part.
// Every number is core's cost model's (core/cost/cost_model.hpp).

#include <QString>

#include <vector>

#include "ui/costs/cost_shape.hpp"
#include "ui/figures/figure.hpp"
#include "ui/render/chart_builder.hpp"
#include "ui/render/chart_model.hpp"

namespace qkv::ui {

// The Costs tab's id: the session's view.tab, the tab and its figures' view, "comparison" (one spelling;
// sessions store it, so it never changes).
inline constexpr QLatin1String kCostsViewId{"comparison"};

std::vector<Figure> costFigures();

// The shape of `result`'s layer with g key/value heads (0, or not a divisor of h: g = h).
CostShape costShape(const qkv::Result& result, Count keyValueHeads);
// "d_model = 64, h = 4, d_k = 16, n_q = 7, n_k = 6: what two thin matrices per head save"
QString costSummary(const CostShape& shape);

// Bar charts list their values in the order of their categories (horizontal charts bottom-up).
ChartModel scorePathChart(const CostShape& shape);
ChartModel layerParametersChart(const CostShape& shape);
// One line per layout (standard, MQA, full W_i, unreduced, score path factored, score path
// full), points (h, total), then the current h circled.
ChartModel totalsChart(const CostShape& shape);
ChartModel scoreFlopChart(const CostShape& shape);

// The four charts in a 2 x 2 grid under the summary.
void paintCostsOverview(QPainter& painter, const QRectF& target, const CostShape& shape,
                             const ChartStyle& style);

}  // namespace qkv::ui
