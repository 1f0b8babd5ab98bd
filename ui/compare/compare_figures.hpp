#pragma once
// The compare figures, widget-free: one heatmap of differences per head
// on a diverging map centred on zero with one colour range for every head, so colours compare
// across heads; each head titled with its largest |difference|. When there is nothing to
// compare (nothing pinned, shapes that no longer match) the figure says why instead.
//   "compare":       pinned − live, head by head (FigureInput::pinned)
//   "compare-heads": every head − the selected head (FigureOptions::head), same result

#include <QFontMetricsF>
#include <QRectF>
#include <QString>

#include <vector>

#include "ui/compare/attention_difference.hpp"
#include "ui/figures/figure.hpp"
#include "ui/render/heatmap_style.hpp"

class QPainter;

namespace qkv::ui {

// The CompareView tab's id: the session's view.tab, the tab and its figures' view (one spelling;
// sessions store it, so it never changes).
inline constexpr QLatin1String kCompareViewId{"compare"};

struct CompareGeometry {
    QRectF title, subtitle, legend, message;
    std::vector<QRectF> panels;  // one per head (title, labels and cells)
    HeatmapStyle style;          // labels and titles as laid out (per-head titles set when painting)
    int headAt(const QPointF& point) const;
};
CompareGeometry compareGeometry(const QRectF& target, const AttentionDifference& difference,
                                const QFontMetricsF& metrics);

struct CompareHit {
    int head = -1;
    qkv::Index query = -1, key = -1;
};
CompareHit compareHitAt(const CompareGeometry& geometry, const AttentionDifference& difference, const QPointF& point,
                        const QFontMetricsF& metrics);

void paintCompare(QPainter& painter, const QRectF& target, const AttentionDifference& difference,
                  const FigureOptions& options);

// The figures of the compare view, for the figure registry: "compare" and "compare-heads".
std::vector<Figure> compareFigures();

}  // namespace qkv::ui
