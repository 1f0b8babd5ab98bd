#include "ui/figures/chart_widget.hpp"

#include <QPainter>

#include "ui/render/chart_painter.hpp"

namespace qkv::ui {

ChartWidget::ChartWidget(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void ChartWidget::setModel(ChartModel model)
{
    model_ = std::move(model);
    update();
}

void ChartWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const QColor background = palette().color(QPalette::Base);
    painter.fillRect(rect(), background);
    painter.setRenderHint(QPainter::TextAntialiasing);
    paintChart(painter, QRectF(rect()).adjusted(6, 6, -6, -6), model_,
               ChartColors{palette().color(QPalette::Text), background});
}

}  // namespace qkv::ui
