#include "ui/comparison/totals_chart.hpp"

#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>

#include <algorithm>
#include <cmath>
#include <utility>

namespace qkv::ui {

TotalsChart::TotalsChart(QWidget* parent)
    : ComparisonChart(tr("Layer parameters against h (divisors of d_model)"), parent),
      currentHeads_(new QScatterSeries(chart()))
{
    const std::vector<std::pair<QString, QColor>> layouts = {
        {tr("standard"), QColor(0x1b, 0x9e, 0x77)},
        {tr("MQA (g = 1)"), QColor(0x75, 0x70, 0xb3)},
        {tr("full W_i per head"), fullColor()},
        {tr("unreduced"), QColor(0xd9, 0x5f, 0x02)},
        {tr("score path, factored"), factoredColor()},
        {tr("score path, full W_i"), QColor(0xe7, 0x29, 0x8a)},
    };
    for (const auto& [name, color] : layouts) {
        auto* series = new QLineSeries(chart());
        series->setName(name);
        QPen pen(color);
        pen.setWidthF(2.0);
        if (name.startsWith(tr("score path"))) {
            pen.setStyle(Qt::DashLine);
        }
        series->setPen(pen);
        series->setPointsVisible(true);
        chart()->addSeries(series);
        totals_.push_back(series);
    }
    currentHeads_->setName(tr("current h"));
    currentHeads_->setMarkerSize(12.0);
    currentHeads_->setColor(Qt::transparent);
    currentHeads_->setBorderColor(Qt::black);
    chart()->addSeries(currentHeads_);
    chart()->legend()->setAlignment(Qt::AlignRight);
}

void TotalsChart::setShape(const ComparisonShape& shape)
{
    const std::vector<HeadCountTotals> totals = totalsOverHeadCounts(shape.d_model, shape.withBias);
    std::vector<QList<QPointF>> points(totals_.size());
    double smallest = 0, largest = 1;
    QList<QPointF> current;
    for (const HeadCountTotals& t : totals) {
        const double h = static_cast<double>(t.heads);
        const Count values[] = {t.standard, t.multiQuery, t.fullBilinear, t.unreduced,
                                t.scorePathFactored, t.scorePathFull};
        for (std::size_t i = 0; i < totals_.size(); ++i) {
            const double v = static_cast<double>(values[i]);
            points[i].append(QPointF(h, v));
            smallest = smallest == 0 ? v : std::min(smallest, v);
            largest = std::max(largest, v);
        }
        if (t.heads == shape.heads) {
            current.append(QPointF(h, static_cast<double>(t.standard)));
        }
    }
    for (std::size_t i = 0; i < totals_.size(); ++i) {
        totals_[i]->replace(points[i]);
    }
    currentHeads_->replace(current);

    removeAxes();
    auto* hAxis = new QLogValueAxis(chart());
    hAxis->setBase(2.0);
    hAxis->setLabelFormat(QStringLiteral("%g"));
    hAxis->setTitleText(tr("h (log scale)"));
    hAxis->setRange(0.8, static_cast<double>(std::max<Count>(shape.d_model, 2)) * 1.25);
    if (shape.d_model > 64) {
        hAxis->setBase(4.0);
    }
    auto* valueAxis = new QLogValueAxis(chart());
    valueAxis->setBase(10.0);
    valueAxis->setLabelFormat(QStringLiteral("%.0e"));
    valueAxis->setTitleText(tr("parameters (log scale)"));
    valueAxis->setRange(std::pow(10.0, std::floor(std::log10(std::max(smallest, 1.0)))),
                        std::pow(10.0, std::ceil(std::log10(largest) + 0.05)));
    chart()->addAxis(hAxis, Qt::AlignBottom);
    chart()->addAxis(valueAxis, Qt::AlignLeft);
    for (QLineSeries* series : totals_) {
        series->attachAxis(hAxis);
        series->attachAxis(valueAxis);
    }
    currentHeads_->attachAxis(hAxis);
    currentHeads_->attachAxis(valueAxis);
}

std::vector<QPointF> TotalsChart::series(int index) const
{
    if (index < 0 || index >= static_cast<int>(totals_.size())) {
        return {};
    }
    const QList<QPointF> points = totals_[static_cast<std::size_t>(index)]->points();
    return {points.begin(), points.end()};
}

QStringList TotalsChart::seriesNames() const
{
    QStringList names;
    for (const QLineSeries* series : totals_) {
        names << series->name();
    }
    return names;
}

}  // namespace qkv::ui
