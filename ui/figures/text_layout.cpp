#include "ui/figures/text_layout.hpp"

#include <QFontMetricsF>
#include <QPainter>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace qkv::ui {

double widestText(const QStringList& texts, const QFontMetricsF& metrics, double cap)
{
    QSet<QString> measured;
    double widest = 0;
    for (const QString& text : texts) {
        if (widest >= cap) break;
        if (measured.contains(text)) continue;
        measured.insert(text);
        widest = std::max(widest, metrics.horizontalAdvance(text));
    }
    return std::min(widest, cap);
}

QFont figureTitleFont(const QFont& base)
{
    QFont font = base;
    font.setBold(true);
    if (font.pointSizeF() > 0)
        font.setPointSizeF(font.pointSizeF() * 1.1);
    else if (font.pixelSize() > 0)
        font.setPixelSize(static_cast<int>(std::lround(font.pixelSize() * 1.1)));
    return font;
}

QRectF wrappedTextRect(const QFontMetricsF& metrics, double width, const QString& text)
{
    return metrics.boundingRect(QRectF(0, 0, std::max(width, 1.0), 1e6), Qt::TextWordWrap | Qt::AlignLeft, text);
}

void drawFittedText(QPainter& painter, const QRectF& rect, int flags, const QFont& font, const QString& text)
{
    if (text.isEmpty() || rect.width() <= 0) return;
    const QFont saved = painter.font();
    QFont f = font;
    const double minimum = 6.0;
    double size = f.pointSizeF() > 0 ? f.pointSizeF() : 10.0;
    for (;;) {
        const QFontMetricsF metrics(f, painter.device());
        if ((metrics.horizontalAdvance(text) + 2 <= rect.width() && metrics.height() <= rect.height() + 1) ||
            size <= minimum)
            break;
        size = std::max(minimum, size * 0.92);
        f.setPointSizeF(size);
    }
    painter.setFont(f);
    // Never clipped: the text was fitted above (and at 6 pt it may spill a little rather than be cut).
    painter.drawText(rect, flags | Qt::TextDontClip, text);
    painter.setFont(saved);
}

double wrappedTextHeight(const QPainter& painter, double width, const QFont& font, const QString& text)
{
    if (text.isEmpty() || width <= 0) return 0;
    return wrappedTextRect(QFontMetricsF(font, painter.device()), width, text).height();
}

double drawWrappedText(QPainter& painter, const QPointF& topLeft, double width, int flags, const QFont& font,
                       const QString& text)
{
    const double height = wrappedTextHeight(painter, width, font, text);
    if (height <= 0) return 0;
    const QFont saved = painter.font();
    painter.setFont(font);
    painter.drawText(QRectF(topLeft, QSizeF(width, height)), flags | Qt::TextWordWrap, text);
    painter.setFont(saved);
    return height;
}

}  // namespace qkv::ui
