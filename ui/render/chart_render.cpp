#include "ui/render/chart_render.hpp"

#include <QChart>
#include <QGraphicsScene>
#include <QPainter>

#include <cmath>

namespace qkv::ui {
namespace {

// Qt Charts measures text for the screen; a figure's layout is in logical units at 96 dpi
// whatever the screen, so its font is given in pixels.
QFont logicalFont(QFont font)
{
    if (font.pixelSize() <= 0 && font.pointSizeF() > 0)
        font.setPixelSize(static_cast<int>(std::lround(font.pointSizeF() * 96.0 / 72.0)));
    return font;
}

}  // namespace

void renderChart(QPainter& painter, const QRectF& target, const ChartModel& model, const ChartStyle& style)
{
    if (target.isEmpty()) return;
    ChartStyle logical = style;
    logical.font = logicalFont(style.font);
    QGraphicsScene scene;
    std::unique_ptr<QChart> chart = buildChart(model, logical);
    QChart* drawn = chart.get();
    scene.addItem(chart.release());  // the scene owns it now
    drawn->setGeometry(QRectF(QPointF(0, 0), target.size()));
    const QRectF source(QPointF(0, 0), target.size());
    scene.setSceneRect(source);
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    scene.render(&painter, target, source, Qt::IgnoreAspectRatio);
    painter.restore();
}

}  // namespace qkv::ui
