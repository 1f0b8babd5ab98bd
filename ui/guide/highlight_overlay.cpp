#include "ui/guide/highlight_overlay.hpp"

#include <QEvent>
#include <QPainter>
#include <QPainterPath>

#include "ui/guide/guide_targets.hpp"

namespace qkv::ui {
namespace {
// The outline's colour: an orange that reads on light and dark palettes and is not in the
// viridis or diverging maps the heatmaps use.
constexpr QColor kOutline{245, 124, 0};
constexpr int kPen = 3;
constexpr int kShadeAlpha = 28;
}  // namespace

HighlightOverlay::HighlightOverlay(QWidget* window) : QWidget(window)
{
    setObjectName(QStringLiteral("GuideHighlight"));
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    setFocusPolicy(Qt::NoFocus);
    setGeometry(window->rect());
    window->installEventFilter(this);
    hide();  // until there is a target
}

void HighlightOverlay::setTarget(QWidget* target, Focus focus)
{
    focus_ = std::move(focus);
    if (target_ == target) {
        follow();
        return;
    }
    if (target_) watchChain(target_, false);
    target_ = target;
    if (target_) watchChain(target_, true);
    follow();
}

void HighlightOverlay::watchChain(QWidget* from, bool watch)
{
    // The target moves when a scroll area scrolls it or a splitter or layout moves an ancestor;
    // it is hidden with its tab.
    for (QWidget* each = from; each && each != parentWidget(); each = each->parentWidget()) {
        if (watch)
            each->installEventFilter(this);
        else
            each->removeEventFilter(this);
    }
}

QRect HighlightOverlay::highlightedRect() const
{
    if (!target_) return {};
    const QRect visible = visibleRect(*target_, *parentWidget());
    const QRect focus = focus_ ? focus_() : QRect();
    if (focus.isEmpty()) return visible;
    return visible & QRect(target_->mapTo(parentWidget(), focus.topLeft()), focus.size());
}

bool HighlightOverlay::eventFilter(QObject*, QEvent* event)
{
    // Nothing outlined: nothing to follow (the window's own events pass untouched, also while
    // it is being destroyed).
    if (!target_) return false;
    switch (event->type()) {
    case QEvent::Resize:
    case QEvent::Move:
    case QEvent::Show:
    case QEvent::Hide:
    case QEvent::LayoutRequest:
        follow();  // the window or the target's chain: both move the outline
        break;
    default: break;
    }
    return false;
}

void HighlightOverlay::follow()
{
    setGeometry(parentWidget()->rect());
    setVisible(target_ != nullptr);
    raise();
    update();
    emit highlightChanged();
}

void HighlightOverlay::paintEvent(QPaintEvent*)
{
    const QRect target = highlightedRect();
    if (target.isEmpty()) return;
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    // A light shade everywhere but the target, so the eye finds it before reading the outline.
    // The outline around the target, not on it: text at the target's edge (a figure's title, a
    // field's label) stays readable.
    const int outset = (kPen + 1) / 2 + 1;
    const QRectF ring = QRectF(target).adjusted(-outset, -outset, outset, outset);
    QPainterPath shade;
    shade.addRect(rect());
    shade.addRect(ring);
    painter.fillPath(shade, QColor(0, 0, 0, kShadeAlpha));
    painter.setPen(QPen(kOutline, kPen));
    painter.setBrush(Qt::NoBrush);
    painter.drawRoundedRect(ring, 4, 4);
}

}  // namespace qkv::ui
