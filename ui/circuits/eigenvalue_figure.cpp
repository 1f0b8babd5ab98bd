#include "ui/circuits/eigenvalue_figure.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/circuits/plot_frame.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/wholemodel/whole_model_figure_parts.hpp"

namespace qkv::ui {
namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::EigenvaluePlane)
};

QString signedScore(double value)
{
    return (value >= 0 ? QStringLiteral("+") : QString(QChar(0x2212))) + QString::number(std::abs(value), 'f', 2);
}

}  // namespace

QString copyingScoreWords(double copyingScore)
{
    if (!std::isfinite(copyingScore)) return Text::tr("no copying score: every eigenvalue is 0");
    if (copyingScore >= 0.3) return Text::tr("copies what it attends to: %1").arg(signedScore(copyingScore));
    if (copyingScore <= -0.3) return Text::tr("suppresses what it attends to: %1").arg(signedScore(copyingScore));
    return Text::tr("neither copies nor suppresses what it attends to: %1").arg(signedScore(copyingScore));
}

void paintEigenvaluePlane(QPainter& painter, const QRectF& rect, const EigenvaluePlot& plot,
                          const FigureOptions& options)
{
    painter.save();
    painter.setFont(options.font);
    const QFontMetricsF metrics(options.font, painter.device());
    const double line = metrics.height();
    const QRectF title(rect.left() + 8, rect.top() + 4, rect.width() - 16, line * 1.4);
    double radius = 0;
    for (const std::complex<double>& lambda : plot.eigenvalues) radius = std::max(radius, std::abs(lambda));
    if (!(radius > 0)) radius = 1;
    const QString words = Text::tr(
                              "%1 (Σ Re λ / Σ |λ|) · the %2 eigenvalues of W_O W_U W_E W_V · dashed circle "
                              "|λ| = %3 · equal units on both axes")
                              .arg(copyingScoreWords(plot.copyingScore))
                              .arg(plot.eigenvalues.size())
                              .arg(readableNumber(radius));
    const QRectF subtitle(title.left(), title.bottom(), title.width(),
                          wrappedTextRect(metrics, title.width(), words).height() + 4);
    paintFigureHeading(painter, title, subtitle, Text::tr("Head %1: OV eigenvalues").arg(plot.headName), words,
                       options);
    const double extent = radius * 1.1;
    PlotFrame frame(
        QRectF(rect.left() + 4, subtitle.bottom() + 4, rect.width() - 8, rect.bottom() - subtitle.bottom() - 8),
        metrics, -extent, extent, -extent, extent);
    frame.equalUnits();
    frame.paint(painter, options, Text::tr("Re λ"), Text::tr("Im λ"));
    painter.setClipRect(frame.plot());
    QColor muted = options.text;
    muted.setAlphaF(0.55f);
    painter.setPen(QPen(muted, 1, Qt::DashLine));
    painter.setBrush(Qt::NoBrush);
    const QPointF origin = frame.toPoint(0, 0);
    const double r = frame.toPoint(radius, 0).x() - origin.x();
    painter.drawEllipse(origin, r, r);
    painter.drawLine(frame.toPoint(-extent, 0), frame.toPoint(extent, 0));
    painter.drawLine(frame.toPoint(0, -extent), frame.toPoint(0, extent));
    painter.setPen(QPen(QColor(0x1f, 0x5f, 0xa8), 1.2));
    painter.setBrush(QColor(0x1f, 0x77, 0xb4, 170));
    for (const std::complex<double>& lambda : plot.eigenvalues)
        painter.drawEllipse(frame.toPoint(lambda.real(), lambda.imag()), 4.0, 4.0);
    painter.restore();
}

}  // namespace qkv::ui
