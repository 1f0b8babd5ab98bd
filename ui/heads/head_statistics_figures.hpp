#pragma once
// The per-head statistics as a publication figure: one bar chart per
// statistic (entropy, normalised entropy, mean attention distance, largest weight and, in self
// modes, the weight on the own position), one bar per head. Every number is core/analysis's
// headStatisticsSummaries. Widget-free; the heads view shows the same numbers as a table.

#include <vector>

#include "core/analysis/head_statistics.hpp"
#include "ui/figures/figure.hpp"

class QPainter;

namespace qkv::ui {

void paintHeadStatistics(QPainter& painter, const QRectF& target, const qkv::Result& result,
                         const std::vector<qkv::HeadStatisticsSummary>& summaries, const FigureOptions& options);

// For the figure registry: "head-statistics".
std::vector<Figure> headStatisticsFigures();

}  // namespace qkv::ui
