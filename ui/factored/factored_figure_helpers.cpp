#include "ui/factored/factored_figure_helpers.hpp"

#include <QCoreApplication>

#include <algorithm>

#include "ui/figures/text_layout.hpp"

namespace qkv::ui::factored_figure {

MatrixF toFloat(const MatrixD& m) { return m.cast<float>(); }

double symmetricRange(double maxAbsValue) { return maxAbsValue > 0.0 ? maxAbsValue : 1.0; }

double paintTitle(QPainter& painter, const QRectF& box, const QString& text)
{
    const QFont base = painter.font();
    const QFont bold = figureTitleFont(base);
    const QFontMetricsF metrics(bold, painter.device());
    const double height = wrappedTextRect(metrics, box.width(), text).height();
    painter.setFont(bold);
    painter.drawText(QRectF(box.left(), box.top(), box.width(), height), Qt::TextWordWrap | Qt::AlignLeft, text);
    painter.setFont(base);
    return height;
}

}  // namespace qkv::ui::factored_figure
