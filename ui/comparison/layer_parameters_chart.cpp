#include "ui/comparison/layer_parameters_chart.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalBarSeries>
#include <QValueAxis>

#include <algorithm>

namespace qkv::ui {

LayerParametersChart::LayerParametersChart(QWidget* parent)
    : ComparisonChart(tr("Whole-layer parameters (W^Q, W^K, W^V, W^O)"), parent),
      series_(new QHorizontalBarSeries(chart()))
{
    series_->append(newBarSet(tr("without biases"), QColor(0x43, 0x93, 0xc3), series_));
    series_->append(newBarSet(tr("with biases"), QColor(0xf4, 0xa5, 0x82), series_));
    addBars(series_);
}

void LayerParametersChart::setShape(const ComparisonShape& shape)
{
    struct Kind {
        QString name;
        HeadLayout layout;
        Count g;
    };
    const Count h = shape.heads, g = shape.keyValueHeads;
    // Bottom to top in a horizontal bar chart: list the standard layer last so it is on top.
    const std::vector<Kind> kinds = {
        {tr("GQA (g = %1)").arg(g), HeadLayout::Factored, g},
        {tr("MQA (g = 1)"), HeadLayout::Factored, 1},
        {tr("unreduced (d_k = d_model)"), HeadLayout::Unreduced, h},
        {tr("full W_i per head"), HeadLayout::FullBilinear, h},
        {tr("standard (g = h)"), HeadLayout::Factored, h},
    };
    QBarSet* without = series_->barSets().at(0);
    QBarSet* with = series_->barSets().at(1);
    without->remove(0, without->count());
    with->remove(0, with->count());
    QStringList names;
    double largest = 0;
    for (const Kind& kind : kinds) {
        const Count a = layerParameterCount(shape.layer(kind.layout, kind.g, false));
        const Count b = layerParameterCount(shape.layer(kind.layout, kind.g, true));
        without->append(static_cast<qreal>(a));
        with->append(static_cast<qreal>(b));
        largest = std::max(largest, static_cast<double>(b));
        names << kind.name;
    }
    removeAxes();
    auto* categories = new QBarCategoryAxis(chart());
    categories->append(names);
    auto* values = new QValueAxis(chart());
    values->setRange(0, roundedUpperBound(largest) * 1.15);
    values->setLabelFormat(QStringLiteral("%.2g"));
    values->setTickCount(3);  // a horizontal axis in a third of the window: "7.6e+04" labels need room
    values->setTitleText(tr("parameters"));
    chart()->addAxis(categories, Qt::AlignLeft);
    chart()->addAxis(values, Qt::AlignBottom);
    series_->attachAxis(categories);
    series_->attachAxis(values);
}

}  // namespace qkv::ui
