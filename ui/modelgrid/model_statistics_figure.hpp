#pragma once
// The Model tab's per-head statistics of every layer: four layers x heads heatmaps (normalised
// entropy, mean distance, weight on the first token, weight on the own position; core's
// HeadStatisticGrids), each with its colour bar, so that heads looking at the previous token
// (mean distance ~1, low entropy), at the first token or separator (first-token weight ~1) or at
// everything (entropy ~1) stand out. Widget-free; the view hit-tests with the same layout.

#include <QFontMetricsF>
#include <QPoint>
#include <QRectF>

#include <array>

#include "core/pipeline/model_overview.hpp"
#include "ui/figures/figure.hpp"
#include "ui/modelgrid/model_grid_text.hpp"
#include "ui/render/heatmap_style.hpp"

class QPainter;

namespace qkv::ui {

class ModelStatisticsLayout {
public:
    ModelStatisticsLayout() = default;
    ModelStatisticsLayout(const QRectF& target, const qkv::ModelOverview& overview, const QFontMetricsF& metrics);

    QRectF titleRect() const { return title_; }
    QRectF subtitleRect() const { return subtitle_; }
    // The heatmap (with its title, labels and axis titles) and the colour bar of a statistic.
    QRectF heatmapRect(ModelStatistic statistic) const { return heatmaps_[static_cast<std::size_t>(statistic)]; }
    QRectF legendRect(ModelStatistic statistic) const { return legends_[static_cast<std::size_t>(statistic)]; }

private:
    QRectF title_, subtitle_;
    std::array<QRectF, kModelStatisticCount> heatmaps_, legends_;
};

// How a statistic's heatmap is drawn: its title, layer and head labels, axis titles and range.
// (With options.showSelection, paintModelStatistics outlines the shown layer's selected head.)
HeatmapStyle statisticStyle(const qkv::ModelOverview& overview, ModelStatistic statistic, const FigureOptions& options);

// The statistic and the (layer, head) under `point`, or false.
struct StatisticHit {
    ModelStatistic statistic = ModelStatistic::Entropy;
    qkv::ModelHead head{-1, -1};
};
bool statisticAt(const ModelStatisticsLayout& layout, const qkv::ModelOverview& overview, const QFontMetricsF& metrics,
                 const QPointF& point, StatisticHit& hit);
// The centre of a cell (for tests and keyboard users).
QPointF statisticCellCenter(const ModelStatisticsLayout& layout, const qkv::ModelOverview& overview,
                            const QFontMetricsF& metrics, ModelStatistic statistic, qkv::ModelHead head);

void paintModelStatistics(QPainter& painter, const QRectF& target, const FigureInput& input);

}  // namespace qkv::ui
