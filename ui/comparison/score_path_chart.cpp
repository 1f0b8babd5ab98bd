#include "ui/comparison/score_path_chart.hpp"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QValueAxis>

namespace qkv::ui {

ScorePathChart::ScorePathChart(QWidget* parent)
    : ComparisonChart(tr("Score-path parameters (g = h)"), parent), series_(new QBarSeries(chart()))
{
    series_->append(newBarSet(tr("factored W_i^Q, W_i^K"), factoredColor(), series_));
    series_->append(newBarSet(tr("full W_i per head"), fullColor(), series_));
    addBars(series_);
}

void ScorePathChart::setShape(const ComparisonShape& shape)
{
    const ScorePathComparison c = compareScorePath(shape.d_model, shape.heads, shape.heads);
    QBarSet* factored = series_->barSets().at(0);
    QBarSet* full = series_->barSets().at(1);
    factored->remove(0, factored->count());
    full->remove(0, full->count());
    factored->append({static_cast<qreal>(c.factored.parametersPerHead), static_cast<qreal>(c.factored.parametersPerLayer)});
    full->append({static_cast<qreal>(c.full.parametersPerHead), static_cast<qreal>(c.full.parametersPerLayer)});

    removeAxes();
    auto* categories = new QBarCategoryAxis(chart());
    categories->append({tr("per head"), tr("per layer, h = %1").arg(shape.heads)});
    auto* values = new QValueAxis(chart());
    values->setRange(0, roundedUpperBound(static_cast<double>(c.full.parametersPerLayer)));
    values->setLabelFormat(QStringLiteral("%.3g"));
    values->setTitleText(tr("parameters"));
    chart()->addAxis(categories, Qt::AlignBottom);
    chart()->addAxis(values, Qt::AlignLeft);
    series_->attachAxis(categories);
    series_->attachAxis(values);
}

}  // namespace qkv::ui
