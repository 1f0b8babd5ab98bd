#pragma once
// One chart of the comparison view: a QChartView that draws a ComparisonShape. The chart is
// given to QChartView's constructor (never setChart(), which leaks the default chart,
// design.md section 5). Bar charts register their series, and the view's tests read the
// drawn values back through barValues() / barCategories().

#include <QChartView>
#include <QColor>
#include <QStringList>

#include <vector>

#include "ui/comparison/comparison_shape.hpp"

class QAbstractBarSeries;
class QBarSet;

namespace qkv::ui {

class ComparisonChart : public QChartView {
    Q_OBJECT
public:
    // Redraws for `shape` (valid(): d_model and h at least 1).
    virtual void setShape(const ComparisonShape& shape) = 0;

    // Bar charts only (empty otherwise): set `set`'s values in the order of barCategories()
    // (a horizontal chart lists its categories bottom-up).
    std::vector<double> barValues(int set) const;
    QStringList barCategories() const;
    int barSetCount() const;

protected:
    ComparisonChart(const QString& title, QWidget* parent);

    // Adds the chart's bar series, labelled with exact integers.
    void addBars(QAbstractBarSeries* series);
    // Removes and deletes the chart's axes (category labels change with h and g).
    void removeAxes();

    static QColor factoredColor() { return {0x21, 0x66, 0xac}; }  // blue: the thin factors
    static QColor fullColor() { return {0xb2, 0x18, 0x2b}; }      // red: a full W_i
    static QBarSet* newBarSet(const QString& name, const QColor& color, QObject* parent);
    // An axis end above `largest` with room for the value labels.
    static double roundedUpperBound(double largest);

private:
    QAbstractBarSeries* bars_ = nullptr;
};

}  // namespace qkv::ui
