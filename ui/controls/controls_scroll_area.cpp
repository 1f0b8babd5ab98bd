#include "ui/controls/controls_scroll_area.hpp"

#include <QEvent>
#include <QScrollBar>

namespace qkv::ui {

ControlsScrollArea::ControlsScrollArea(QWidget* controls, QWidget* parent) : QScrollArea(parent)
{
    setWidget(controls);
    setWidgetResizable(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFrameShape(QFrame::NoFrame);
    // A Tab stop (arrow keys scroll it): a screen reader names it.
    setAccessibleName(tr("Settings"));
    // A label's text changes its height: refit whenever the controls' layout asks.
    controls->installEventFilter(this);
}

void ControlsScrollArea::resizeEvent(QResizeEvent* event)
{
    QScrollArea::resizeEvent(event);
    fitHeightToWidth();
}

bool ControlsScrollArea::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == widget() && event->type() == QEvent::LayoutRequest) fitHeightToWidth();
    return QScrollArea::eventFilter(watched, event);
}

void ControlsScrollArea::fitHeightToWidth()
{
    QWidget* controls = widget();
    if (!controls || !controls->hasHeightForWidth()) return;
    // The width the controls get: the viewport's, less the vertical scroll bar when it will show.
    const int width = viewport()->width();
    const int height = controls->heightForWidth(width);
    if (height > 0 && controls->minimumHeight() != height) controls->setMinimumHeight(height);
}

}  // namespace qkv::ui
