#include "ui/comparison/comparison_chart.hpp"

#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QLegend>

#include <cmath>

namespace qkv::ui {

namespace {

QChart* newChart(const QString& title)
{
    auto* chart = new QChart();
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(2, 2, 2, 2));
    return chart;
}

}  // namespace

ComparisonChart::ComparisonChart(const QString& title, QWidget* parent) : QChartView(newChart(title), parent)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(220, 180);
}

void ComparisonChart::addBars(QAbstractBarSeries* series)
{
    bars_ = series;
    series->setLabelsVisible(true);
    series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    series->setLabelsPrecision(12);  // exact integers, not 1.2e+06
    chart()->addSeries(series);
}

void ComparisonChart::removeAxes()
{
    for (QAbstractAxis* axis : chart()->axes()) {
        chart()->removeAxis(axis);
        delete axis;
    }
}

QBarSet* ComparisonChart::newBarSet(const QString& name, const QColor& color, QObject* parent)
{
    auto* set = new QBarSet(name, parent);
    set->setColor(color);
    set->setBorderColor(color.darker(120));
    set->setLabelColor(Qt::black);
    return set;
}

double ComparisonChart::roundedUpperBound(double largest)
{
    if (largest <= 0) {
        return 1.0;
    }
    const double magnitude = std::pow(10.0, std::floor(std::log10(largest)));
    return std::ceil(largest * 1.25 / magnitude) * magnitude;
}

std::vector<double> ComparisonChart::barValues(int set) const
{
    std::vector<double> values;
    if (!bars_ || set < 0 || set >= bars_->count()) {
        return values;
    }
    const QBarSet* bars = bars_->barSets().at(set);
    for (int i = 0; i < bars->count(); ++i) {
        values.push_back(bars->at(i));
    }
    return values;
}

int ComparisonChart::barSetCount() const { return bars_ ? bars_->count() : 0; }

QStringList ComparisonChart::barCategories() const
{
    for (QAbstractAxis* axis : chart()->axes()) {
        if (auto* categories = qobject_cast<QBarCategoryAxis*>(axis)) {
            return categories->categories();
        }
    }
    return {};
}

}  // namespace qkv::ui
