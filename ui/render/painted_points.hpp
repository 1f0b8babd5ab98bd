#pragma once
// Many points of a chart painted by one item: each point's marker image at its place in the
// plot, skipped where it would land on the pixel of the point drawn before it. Qt Charts draws
// a point series either as an item per point or as a line series, which strokes a path through
// every point (an atan2 per segment) on each layout pass; at 4,096 points that was most of a
// spectrum chart's time on the GUI thread. On screen only (ChartStyle::paintedMarkers).

#include <QGraphicsObject>
#include <QImage>

#include <vector>

class QChart;
class QXYSeries;

namespace qkv::ui {

class PaintedPoints : public QGraphicsObject {
public:
    // `points` in plot units (plotValue of each axis), mapped through `anchor`'s axes; the item
    // is shown while `anchor` is (its legend entry hides both).
    PaintedPoints(QChart* chart, QXYSeries* anchor, std::vector<QPointF> points, QImage marker, double markerSize);

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    std::size_t pointCount() const { return points_.size(); }

private:
    QChart* chart_;
    QXYSeries* anchor_;
    std::vector<QPointF> points_;
    QImage marker_;
    double markerSize_;
    QRectF bounds_;  // the plot area, grown by half a marker
};

}  // namespace qkv::ui
