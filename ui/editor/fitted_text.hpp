#pragma once
// Text that is never cut: drawn in `font`, made smaller (down to 6 pt) until it fits the
// rectangle's width, so a figure keeps every word whole at any export size (issue 9's rule:
// no clipped or elided strings).

#include <QFont>
#include <QRectF>
#include <QString>

class QPainter;

namespace qkv::ui {

// Draws `text` in `rect` with `flags` (alignment), in the painter's pen colour; restores the
// painter's font.
void drawFittedText(QPainter& painter, const QRectF& rect, int flags, const QFont& font, const QString& text);

// The height `text` needs when word-wrapped to `width` in `font` on the painter's device.
double wrappedTextHeight(const QPainter& painter, double width, const QFont& font, const QString& text);
// Draws `text` word-wrapped from `topLeft` across `width`; returns the height used.
double drawWrappedText(QPainter& painter, const QPointF& topLeft, double width, int flags, const QFont& font,
                       const QString& text);

}  // namespace qkv::ui
