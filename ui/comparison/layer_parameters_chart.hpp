#pragma once
// Whole-layer parameters (W^Q, W^K, W^V, W^O) of each kind of layer, without and with biases:
// standard heads, a full W_i per head, unreduced heads (d_k = d_model), multi-query and
// grouped-query attention with the chosen g.

#include "ui/comparison/comparison_chart.hpp"

class QHorizontalBarSeries;

namespace qkv::ui {

class LayerParametersChart : public ComparisonChart {
    Q_OBJECT
public:
    explicit LayerParametersChart(QWidget* parent = nullptr);
    void setShape(const ComparisonShape& shape) override;

private:
    QHorizontalBarSeries* series_;
};

}  // namespace qkv::ui
