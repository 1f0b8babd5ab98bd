#include "ui/qkmap/qk_map_labels.hpp"

#include <algorithm>
#include <cmath>

namespace qkv::ui {
namespace {

constexpr double kGap = 2.0;  // between a label and its marker, and between two labels

// The spots tried around a point for a box of `size`, nearest first: at `distance` from the
// point, right, left, above, below, then the four corners.
std::vector<QRectF> spotsAround(const QPointF& p, const QSizeF& size, double distance)
{
    const double w = size.width(), h = size.height();
    return {
        QRectF(p.x() + distance, p.y() - h / 2, w, h),             // right
        QRectF(p.x() - distance - w, p.y() - h / 2, w, h),         // left
        QRectF(p.x() - w / 2, p.y() - distance - h, w, h),         // above
        QRectF(p.x() - w / 2, p.y() + distance, w, h),             // below
        QRectF(p.x() + distance, p.y() - distance - h, w, h),      // above right
        QRectF(p.x() + distance, p.y() + distance, w, h),          // below right
        QRectF(p.x() - distance - w, p.y() - distance - h, w, h),  // above left
        QRectF(p.x() - distance - w, p.y() + distance, w, h),      // below left
    };
}

bool isFree(const QRectF& box, const QRectF& plot, const std::vector<QRectF>& taken)
{
    if (!plot.contains(box)) return false;
    const QRectF spaced = box.adjusted(-kGap / 2, -kGap / 2, kGap / 2, kGap / 2);
    return std::none_of(taken.begin(), taken.end(), [&](const QRectF& t) { return t.intersects(spaced); });
}

}  // namespace

QkLabelPlacement placeQkLabels(const std::vector<QkLabelCandidate>& candidates, const QRectF& plot, double marker,
                               const QFontMetricsF& metrics, const std::vector<QRectF>& obstacles)
{
    QkLabelPlacement placement;
    std::vector<QRectF> taken = obstacles;
    // Clear of the selection ring drawn around a chosen point (radius marker + 4).
    const double near = marker + 5;
    // Next to the point first; then up to four label heights away, joined by a leader line.
    const double distances[] = {near, near + metrics.height(), near + 2 * metrics.height(),
                                near + 4 * metrics.height()};
    for (const QkLabelCandidate& c : candidates) {
        const QSizeF size(metrics.horizontalAdvance(c.text) + 2, metrics.height());
        bool placed = false;
        for (double distance : distances) {
            for (const QRectF& spot : spotsAround(c.anchor, size, distance)) {
                if (!isFree(spot, plot, taken)) continue;
                placement.labels.push_back({c.text, spot, c.anchor, c.query, distance > near});
                taken.push_back(spot);
                placed = true;
                break;
            }
            if (placed) break;
        }
        if (!placed) ++placement.hidden;
    }
    return placement;
}

}  // namespace qkv::ui
