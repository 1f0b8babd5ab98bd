#include "ui/comparison/flop_chart.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalBarSeries>
#include <QValueAxis>

#include <algorithm>

namespace qkv::ui {

FlopChart::FlopChart(QWidget* parent)
    : ComparisonChart(tr("FLOPs of one head's scores"), parent), series_(new QHorizontalBarSeries(chart()))
{
    series_->append(newBarSet(tr("factored"), factoredColor(), series_));
    series_->append(newBarSet(tr("full W_i"), fullColor(), series_));
    addBars(series_);
}

void FlopChart::setShape(const ComparisonShape& shape)
{
    const ScoreFlops factored = scoreFlopsFactored(shape.n_q, shape.n_k, shape.d_model, shape.d_k());
    const ScoreFlops full = scoreFlopsFullBilinear(shape.n_q, shape.n_k, shape.d_model);
    QBarSet* a = series_->barSets().at(0);
    QBarSet* b = series_->barSets().at(1);
    a->remove(0, a->count());
    b->remove(0, b->count());
    // Bottom-up in a horizontal chart: the total at the bottom, the X_q side on top.
    a->append({static_cast<qreal>(factored.total()), static_cast<qreal>(factored.product),
               static_cast<qreal>(factored.keyProjection), static_cast<qreal>(factored.queryProjection)});
    b->append({static_cast<qreal>(full.total()), static_cast<qreal>(full.product),
               static_cast<qreal>(full.keyProjection), static_cast<qreal>(full.queryProjection)});
    chart()->setTitle(tr("FLOPs of one head's scores (n_q = %1, n_k = %2)").arg(shape.n_q).arg(shape.n_k));
    removeAxes();
    auto* categories = new QBarCategoryAxis(chart());
    categories->append({tr("total"), tr("n_q × n_k product"), tr("X_kv projection"), tr("X_q projection")});
    auto* values = new QValueAxis(chart());
    values->setRange(0, roundedUpperBound(static_cast<double>(std::max(full.total(), factored.total()))) * 1.15);
    values->setLabelFormat(QStringLiteral("%.2g"));
    values->setTickCount(4);
    values->setTitleText(tr("FLOPs (a multiply-add = 2)"));
    chart()->addAxis(categories, Qt::AlignLeft);
    chart()->addAxis(values, Qt::AlignBottom);
    series_->attachAxis(categories);
    series_->attachAxis(values);
}

}  // namespace qkv::ui
