#include "ui/guide/panel_placement.hpp"

#include <array>

namespace qkv::ui {
namespace {

qint64 overlap(const QRect& a, const QRect& b)
{
    const QRect both = a & b;
    return both.isEmpty() ? 0 : qint64{both.width()} * both.height();
}

}  // namespace

QRect placePanel(QSize panel, const QRect& area, const QRect& avoid, int margin)
{
    const QRect inner = area.adjusted(margin, margin, -margin, -margin);
    const QSize size = panel.boundedTo(inner.size());
    const int left = inner.left(), right = inner.right() - size.width() + 1;
    const int top = inner.top(), bottom = inner.bottom() - size.height() + 1;
    const std::array<QRect, 4> corners{QRect(QPoint(left, bottom), size), QRect(QPoint(right, bottom), size),
                                       QRect(QPoint(right, top), size), QRect(QPoint(left, top), size)};
    QRect best = corners.front();
    for (const QRect& corner : corners) {
        if (overlap(corner, avoid) == 0) return corner;
        if (overlap(corner, avoid) < overlap(best, avoid)) best = corner;
    }
    return best;
}

}  // namespace qkv::ui
