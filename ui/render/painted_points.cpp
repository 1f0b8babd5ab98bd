#include "ui/render/painted_points.hpp"

#include <QChart>
#include <QPainter>
#include <QValueAxis>
#include <QXYSeries>

#include <cmath>

namespace qkv::ui {

namespace {
// Above the series (Qt Charts draws them at z 5), below the legend (6).
constexpr double kPointsZ = 5.5;
}  // namespace

PaintedPoints::PaintedPoints(QChart* chart, QXYSeries* anchor, std::vector<QPointF> points, QImage marker,
                             double markerSize)
    : QGraphicsObject(chart), chart_(chart), anchor_(anchor), points_(std::move(points)), marker_(std::move(marker)),
      markerSize_(markerSize)
{
    setZValue(kPointsZ);
    setAcceptedMouseButtons(Qt::NoButton);  // clicks and drags (zoom) go to the chart
    const auto place = [this] {
        prepareGeometryChange();
        const double half = markerSize_ / 2 + 1;
        bounds_ = chart_->plotArea().adjusted(-half, -half, half, half);
        update();
    };
    connect(chart_, &QChart::plotAreaChanged, this, place);
    for (QAbstractAxis* axis : anchor_->attachedAxes())
        if (auto* values = qobject_cast<QValueAxis*>(axis)) connect(values, &QValueAxis::rangeChanged, this, place);
    connect(anchor_, &QAbstractSeries::visibleChanged, this, [this] { setVisible(anchor_->isVisible()); });
    place();
}

QRectF PaintedPoints::boundingRect() const { return bounds_; }

void PaintedPoints::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    const QRectF plot = chart_->plotArea();
    if (plot.isEmpty() || points_.empty()) return;
    painter->save();
    painter->setClipRect(bounds_);
    painter->setRenderHint(QPainter::SmoothPixmapTransform);
    const double half = markerSize_ / 2;
    QPoint lastPixel(INT_MIN, INT_MIN);
    for (const QPointF& p : points_) {
        const QPointF at = chart_->mapToPosition(p, anchor_);
        if (!bounds_.contains(at)) continue;  // zoomed out of view
        const QPoint pixel(static_cast<int>(std::floor(at.x())), static_cast<int>(std::floor(at.y())));
        if (pixel == lastPixel) continue;  // the same marker again
        lastPixel = pixel;
        painter->drawImage(QRectF(at.x() - half, at.y() - half, markerSize_, markerSize_), marker_);
    }
    painter->restore();
}

}  // namespace qkv::ui
