#pragma once
// How figures set text, in one place: the title font, the box a word-wrapped text needs, and
// text that is never cut (made smaller until it fits, or wrapped onto more lines), so a figure
// keeps every word whole at any export size.

#include <QFont>
#include <QRectF>
#include <QString>
#include <QStringList>

class QFontMetricsF;
class QPainter;

namespace qkv::ui {

// A figure's title: the base font, bold and 10 % larger.
QFont figureTitleFont(const QFont& base);

// The widest of `texts` in `metrics`, at most `cap`: each distinct text measured once, and no
// more once one reaches the cap (a 4,096-token sentence's labels would take the GUI thread
// milliseconds per pass).
double widestText(const QStringList& texts, const QFontMetricsF& metrics, double cap);

// The box `text` needs when word-wrapped to `width` (at least 1), from (0, 0).
QRectF wrappedTextRect(const QFontMetricsF& metrics, double width, const QString& text);
// The height `text` needs when word-wrapped to `width` in `font` on the painter's device.
double wrappedTextHeight(const QPainter& painter, double width, const QFont& font, const QString& text);
// Draws `text` word-wrapped from `topLeft` across `width`; returns the height used.
double drawWrappedText(QPainter& painter, const QPointF& topLeft, double width, int flags, const QFont& font,
                       const QString& text);

// Draws `text` in `rect` with `flags` (alignment), in the painter's pen colour, made smaller
// (down to 6 pt) until it fits the rectangle's width; restores the painter's font.
void drawFittedText(QPainter& painter, const QRectF& rect, int flags, const QFont& font, const QString& text);

}  // namespace qkv::ui
