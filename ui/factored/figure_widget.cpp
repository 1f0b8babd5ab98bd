#include "ui/factored/figure_widget.hpp"

#include <QPainter>

#include "ui/factored/factored_figures.hpp"

namespace qkv::ui {

FigurePalette figurePalette(const QWidget& widget)
{
    FigurePalette palette;
    const QPalette& p = widget.palette();
    palette.text = p.color(QPalette::WindowText);
    palette.mutedText = p.color(QPalette::PlaceholderText);
    if (palette.mutedText == palette.text || !palette.mutedText.isValid()) {
        palette.mutedText = p.color(QPalette::Disabled, QPalette::WindowText);
    }
    palette.outline = palette.text;
    palette.outline.setAlpha(160);
    palette.background = p.color(QPalette::Base);
    return palette;
}

FigureWidget::FigureWidget(QSize preferredSize, QWidget* parent)
    : QWidget(parent), preferred_(preferredSize)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void FigureWidget::setPaintFunction(PaintFunction paint)
{
    paint_ = std::move(paint);
    update();
}

void FigureWidget::paintEvent(QPaintEvent*)
{
    if (!paint_) {
        return;
    }
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    paint_(painter, QRectF(rect()).adjusted(4, 4, -4, -4), figurePalette(*this));
}

}  // namespace qkv::ui
