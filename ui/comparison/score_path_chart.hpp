#pragma once
// Score-path parameters, factored W_i^Q, W_i^K against a full W_i, per head and per layer
// (g = h): 2 d_model d_k against d_model^2 per head.

#include "ui/comparison/comparison_chart.hpp"

class QBarSeries;

namespace qkv::ui {

class ScorePathChart : public ComparisonChart {
    Q_OBJECT
public:
    explicit ScorePathChart(QWidget* parent = nullptr);
    void setShape(const ComparisonShape& shape) override;

private:
    QBarSeries* series_;
};

}  // namespace qkv::ui
