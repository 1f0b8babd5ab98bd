#pragma once
// The singular values of W_i = W_i^Q (W_i^K)^T on a log scale (Qt Charts), from the thin
// factors (core's FactoredMatrix::singularValues, never a dense SVD):
//   - the d_k values of the d_k x d_k middle, index 1..d_k;
//   - the other d_model - d_k singular values, exactly zero by construction (rank <= d_k),
//     pinned at the axis floor as their own series labelled "exactly 0";
//   - the rank tolerance sigma_max * d_model * epsilon as a horizontal line.
// Values of the middle that are 0 or below the floor (a rank-deficient head) are drawn at the
// floor too, in the first series, so every one of the d_k values stays visible.

#include <QChartView>
#include <QPointF>

#include <vector>

#include "ui/factored/factored_head_model.hpp"

class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;

namespace qkv::ui {

class SpectrumChartView : public QChartView {
    Q_OBJECT
public:
    explicit SpectrumChartView(QWidget* parent = nullptr);

    void setModel(const FactoredHeadModel& model);

    // What is drawn (tests read these; they are the series' own points).
    std::vector<QPointF> singularValuePoints() const;  // (index, sigma or floor), d_k points
    std::vector<QPointF> exactZeroPoints() const;      // (index, floor), d_model - d_k points
    double toleranceLevel() const { return tolerance_; }
    double axisFloor() const { return floor_; }
    // Points of the first series strictly above the tolerance line.
    int pointsAboveTolerance() const;

    QSize sizeHint() const override;

private:
    QScatterSeries* values_ = nullptr;
    QScatterSeries* zeros_ = nullptr;
    QLineSeries* toleranceLine_ = nullptr;
    QValueAxis* indexAxis_ = nullptr;
    QLogValueAxis* valueAxis_ = nullptr;
    double tolerance_ = 0.0;
    double floor_ = 1e-20;
};

}  // namespace qkv::ui
