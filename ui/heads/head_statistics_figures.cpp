#include "ui/heads/head_statistics_figures.hpp"
#include "ui/heads/heads_figures.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/figure_text.hpp"
#include "ui/steps/bars_painter.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::HeadStatisticsFigure)
};

constexpr double kMargin = 8.0;
constexpr double kGap = 18.0;

struct Statistic {
    QString title;
    double qkv::HeadStatisticsSummary::*member;
};

}  // namespace

void paintHeadStatistics(QPainter& painter, const QRectF& target, const qkv::Result& result,
                         const std::vector<qkv::HeadStatisticsSummary>& summaries, const FigureOptions& options)
{
    painter.save();
    painter.setFont(options.font);
    painter.fillRect(target, options.background);
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double line = metrics.lineSpacing();
    const QRectF area = target.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    QFont big = painter.font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.12);
    painter.setFont(big);
    painter.setPen(options.text);
    const QString title = Text::tr("Per-head statistics · %1").arg(modeTitle(result.config.mode));
    painter.drawText(QRectF(area.left(), area.top(), area.width(), line * 1.3), Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(big, painter.device()).elidedText(title, Qt::ElideRight, area.width()));
    painter.setFont(options.font);
    QColor muted = options.text;
    muted.setAlpha(170);
    painter.setPen(muted);
    const qkv::Index rows = summaries.empty() ? 0 : summaries.front().rows;
    painter.drawText(
        QRectF(area.left(), area.top() + line * 1.3, area.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
        metrics.elidedText(
            Text::tr("means over the %1 query rows with a distribution · %2").arg(rows).arg(shapesLine(result)),
            Qt::ElideRight, area.width()));

    std::vector<Statistic> statistics = {
        {Text::tr("Entropy −Σ a ln a (nats)"), &qkv::HeadStatisticsSummary::entropy},
        {Text::tr("Normalised entropy (0 peaked, 1 uniform)"), &qkv::HeadStatisticsSummary::normalizedEntropy},
        {Text::tr("Mean attention distance (positions)"), &qkv::HeadStatisticsSummary::meanDistance},
        {Text::tr("Largest weight of a row"), &qkv::HeadStatisticsSummary::maxWeight}};
    if (qkv::hasOwnPosition(result.config.mode))
        statistics.push_back({Text::tr("Weight on the own position"), &qkv::HeadStatisticsSummary::selfWeight});
    const int count = static_cast<int>(statistics.size());
    const int columns = area.width() >= area.height() * 1.6 ? std::min(count, 3) : 2;
    const int gridRows = (count + columns - 1) / columns;
    const QRectF grid(area.left(), area.top() + line * 2.6, area.width(), area.bottom() - area.top() - line * 2.6);
    const double w = (grid.width() - (columns - 1) * kGap) / columns;
    const double h = (grid.height() - (gridRows - 1) * kGap) / gridRows;
    QStringList heads;
    for (std::size_t i = 0; i < summaries.size(); ++i) heads << QString::number(i + 1);
    for (int s = 0; s < count; ++s) {
        const QRectF panel(grid.left() + (s % columns) * (w + kGap), grid.top() + (s / columns) * (h + kGap), w, h);
        painter.setPen(options.text);
        QFont bold = options.font;
        bold.setBold(true);
        painter.setFont(bold);
        painter.drawText(QRectF(panel.left(), panel.top(), panel.width(), line), Qt::AlignLeft | Qt::AlignVCenter,
                         QFontMetricsF(bold, painter.device())
                             .elidedText(statistics[static_cast<std::size_t>(s)].title, Qt::ElideRight, panel.width()));
        painter.setFont(options.font);
        std::vector<float> values;
        for (const qkv::HeadStatisticsSummary& summary : summaries)
            values.push_back(static_cast<float>(summary.*(statistics[static_cast<std::size_t>(s)].member)));
        BarsStyle style;
        style.text = options.text;
        style.labels = heads;
        style.axisTitle = Text::tr("heads");
        style.highlighted = options.showSelection ? static_cast<int>(options.head) : -1;
        paintBars(painter, panel.adjusted(0, line + 2, 0, 0), values, style);
    }
    painter.restore();
}

std::vector<Figure> headStatisticsFigures()
{
    Figure figure;
    figure.name = QStringLiteral("head-statistics");
    figure.title = Text::tr("Per-head statistics");
    figure.view = kHeadsViewId;
    figure.defaultSize = QSizeF(1200, 700);
    figure.unavailable = &whyNoResult;
    figure.drawsLongLayers = true;  // the statistics of a long layer come exact from its stream
    figure.paint = [](QPainter& painter, const QRectF& rect, const FigureInput& input) {
        paintHeadStatistics(painter, rect, *input.result, qkv::headStatisticsSummaries(*input.result), input.options);
    };
    return {figure};
}

}  // namespace qkv::ui
