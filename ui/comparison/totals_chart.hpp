#pragma once
// Layer parameters against h over the divisors of d_model (log-log): standard, multi-query,
// a full W_i per head, unreduced, and the score path factored and full; the current h circled.

#include <QPointF>

#include <vector>

#include "ui/comparison/comparison_chart.hpp"

class QLineSeries;
class QScatterSeries;

namespace qkv::ui {

class TotalsChart : public ComparisonChart {
    Q_OBJECT
public:
    explicit TotalsChart(QWidget* parent = nullptr);
    void setShape(const ComparisonShape& shape) override;

    // One series per layout, in the order above: points (h, total).
    std::vector<QPointF> series(int index) const;
    QStringList seriesNames() const;

private:
    std::vector<QLineSeries*> totals_;
    QScatterSeries* currentHeads_;
};

}  // namespace qkv::ui
