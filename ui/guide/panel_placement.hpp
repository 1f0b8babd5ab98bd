#pragma once
// Where the guide's panel goes: a corner of the area that does not cover the place the step
// points at (or covers least of it).

#include <QRect>

namespace qkv::ui {

// A `panel`-sized rectangle in a corner of `area` (inset by `margin`), the first of bottom-left,
// bottom-right, top-right, top-left that misses `avoid`, else the one that covers least of it.
// Bottom-left first: the controls sit there, and the views a step points at are to the right.
QRect placePanel(QSize panel, const QRect& area, const QRect& avoid, int margin = 12);

}  // namespace qkv::ui
