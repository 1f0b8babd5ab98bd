#include "ui/mainwindow/focus_ring.hpp"

#include <QAbstractButton>
#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QPaintEvent>
#include <QPainter>
#include <QTabBar>

namespace qkv::ui {

FocusRing::FocusRing(QWidget* window) : QObject(window), window_(window)
{
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget*, QWidget* now) { follow(now); });
}

bool FocusRing::needsRing(const QWidget* widget)
{
    if (!widget || !(widget->focusPolicy() & Qt::TabFocus)) return false;
    // The style draws these focused (Fusion: a highlighted frame or a focus rectangle).
    if (qobject_cast<const QAbstractButton*>(widget) || qobject_cast<const QComboBox*>(widget) ||
        qobject_cast<const QLineEdit*>(widget) || qobject_cast<const QAbstractSpinBox*>(widget) ||
        qobject_cast<const QTabBar*>(widget))
        return false;
    // A widget that draws its own focus frame says so (a heatmap canvas may frame its selected cell).
    return !widget->property(kDrawsOwnFocusFrame).toBool();
}

void FocusRing::follow(QWidget* focused)
{
    QWidget* target = nullptr;
    if (focused && window_->isAncestorOf(focused) && needsRing(focused)) {
        target = focused;
        // A scroll area paints in its viewport, over which the ring must go.
        if (auto* area = qobject_cast<QAbstractScrollArea*>(focused)) target = area->viewport();
    }
    if (target == painted_) return;
    if (painted_) {
        painted_->removeEventFilter(this);
        painted_->update();
    }
    painted_ = target;
    if (painted_) {
        painted_->installEventFilter(this);
        painted_->update();
    }
}

bool FocusRing::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::Paint || watched != painted_ || painting_) return QObject::eventFilter(watched, event);
    // The widget paints first (its own paint event, sent from here), then the ring goes over it;
    // both inside the same paint event, where painting on the widget is allowed.
    painting_ = true;
    QWidget* widget = painted_;
    QCoreApplication::sendEvent(widget, event);  // back through this filter: painting_ lets it pass
    painting_ = false;
    if (!widget) return true;
    QPainter painter(widget);
    QPen pen(widget->palette().color(QPalette::Highlight), 2);
    pen.setJoinStyle(Qt::MiterJoin);
    painter.setPen(pen);
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(QRectF(widget->rect()).adjusted(1, 1, -1, -1));
    return true;
}

}  // namespace qkv::ui
