#pragma once
// One chart of the Costs tab: the ChartModel a builder of cost_figures.hpp makes
// for a CostShape, drawn by the Qt Charts chart every exported chart renders. The view's
// tests read the drawn values back through barValues() / barCategories().

#include <QStringList>

#include <vector>

#include "ui/costs/cost_shape.hpp"
#include "ui/figure_widgets/chart_view.hpp"

namespace qkv::ui {

class CostChart : public ChartView {
    Q_OBJECT
public:
    using Builder = ChartModel (*)(const CostShape&);
    explicit CostChart(Builder build, QWidget* parent = nullptr);

    // Redraws for `shape` (valid(): d_model and h at least 1).
    void setShape(const CostShape& shape);

    // Bar charts only (empty otherwise): bar series `set`'s values in the order of
    // barCategories() (a horizontal chart lists its categories bottom-up).
    std::vector<double> barValues(int set) const;
    QStringList barCategories() const { return model().categories; }
    int barSetCount() const;
    // Line series only: the points of line `index`, and the lines' names.
    std::vector<QPointF> linePoints(int index) const;
    QStringList lineNames() const;

private:
    std::vector<const ChartSeries*> seriesOfKind(ChartSeries::Kind kind) const;

    Builder build_;
};

}  // namespace qkv::ui
