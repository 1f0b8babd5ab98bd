#pragma once
// FLOPs of one head's scores both ways (factored and through a full W_i), by part: the X_q
// projection, the X_kv projection, the n_q x n_k product, and the total.

#include "ui/comparison/comparison_chart.hpp"

class QHorizontalBarSeries;

namespace qkv::ui {

class FlopChart : public ComparisonChart {
    Q_OBJECT
public:
    explicit FlopChart(QWidget* parent = nullptr);
    void setShape(const ComparisonShape& shape) override;

private:
    QHorizontalBarSeries* series_;
};

}  // namespace qkv::ui
