#pragma once
// Where a guide step points: the widget of a GuideTarget in the main window, what of it is on
// screen, and scrolling it into view.

#include <QRect>

#include "ui/guide/guide_steps.hpp"

class QWidget;

namespace qkv::ui {

class MainWindow;

// The widget the target names (never null for a window built by MainWindow).
QWidget* targetWidget(const MainWindow& window, GuideTarget target);

// The part of the target's widget that answers the question, in the widget's coordinates;
// empty when the whole widget does.
QRect targetFocus(const MainWindow& window, GuideTarget target, GuidePart part);

// The part of `widget` drawn inside `window`, in `window`'s coordinates: its rectangle clipped
// by every ancestor (scroll areas' viewports, splitters); empty when it or an ancestor is hidden.
QRect visibleRect(const QWidget& widget, const QWidget& window);

// Shows the page of every tab widget that holds `widget`, and scrolls every scroll area that holds it so that as much of `focus` (the widget's
// coordinates; empty: all of it) as fits is shown, its top-left first.
void scrollIntoView(QWidget& widget, const QRect& focus = {});

}  // namespace qkv::ui
