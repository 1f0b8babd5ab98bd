#include "ui/background/offscreen_figure.hpp"

#include <QPainter>
#include <QWidget>

#include "ui/background/work_placement.hpp"

namespace qkv::ui {

OffscreenFigure::OffscreenFigure(QWidget* widget)
    : widget_(widget), task_([this](Image image) { deliver(std::move(image)); })
{}

void OffscreenFigure::paint(QPainter& painter, const QRectF& rect, std::uint64_t key, double work, Paint paint,
                            std::shared_ptr<const void> data)
{
    if (placementFor(work) == LatestTaskBase::Run::InlineWhenIdle) {
        // Small: painted now, as every light figure is; a pending image would be of older data.
        task_.cancel();
        pending_.reset();
        paint(painter, rect);
        return;
    }
    const Request request{key, std::move(data), rect.size().toSize(),
                          painter.device() ? painter.device()->devicePixelRatioF() : 1.0};
    if (shown_ && shown_->request == request) {
        painter.drawImage(rect.topLeft(), shown_->image);
        return;
    }
    if (pending_ != request) {
        pending_ = request;
        // The widget's font and colours are read here, on the GUI thread; the worker gets copies.
        const QFont font = painter.font();
        task_.request([request, font, paint = std::move(paint)] {
            Image out{request,
                      QImage((QSizeF(request.size) * request.ratio).toSize(), QImage::Format_ARGB32_Premultiplied)};
            out.image.setDevicePixelRatio(request.ratio);
            out.image.fill(Qt::transparent);
            QPainter imagePainter(&out.image);
            imagePainter.setRenderHint(QPainter::TextAntialiasing, true);
            imagePainter.setFont(font);
            paint(imagePainter, QRectF(QPointF(0, 0), QSizeF(request.size)));
            return out;
        });
    }
    if (shown_) {
        // The previous drawing, stretched, until the new one arrives: after a resize it is the same
        // figure; of other data (another head, a new layer) it is veiled, so it is never read as
        // the new one.
        painter.drawImage(QRectF(rect.topLeft(), QSizeF(request.size)), shown_->image);
        if (shown_->request.key == key) return;
        QColor veil = widget_->palette().color(QPalette::Base);
        veil.setAlpha(190);
        painter.fillRect(rect, veil);
    }
    painter.save();
    painter.setPen(widget_->palette().color(QPalette::Text));
    painter.drawText(rect, Qt::AlignCenter | Qt::TextWordWrap, QWidget::tr("Drawing…"));
    painter.restore();
}

void OffscreenFigure::deliver(Image image)
{
    if (!pending_ || image.request != *pending_) return;  // superseded by an inline paint
    pending_.reset();
    shown_ = std::move(image);
    widget_->update();
}

FigureKey& FigureKey::add(std::uint64_t value)
{
    for (int i = 0; i < 8; ++i) {
        hash_ ^= (value >> (8 * i)) & 0xffu;
        hash_ *= 1099511628211ULL;
    }
    return *this;
}

FigureKey& FigureKey::add(const QFont& font)
{
    for (const QChar c : font.key()) add(static_cast<std::uint64_t>(c.unicode()));
    return *this;
}

}  // namespace qkv::ui
