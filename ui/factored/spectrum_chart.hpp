#pragma once
// The spectrum of W_i on screen: spectrumPicture() (factored_figures.hpp) drawn by the Qt
// Charts chart every exported chart renders (ChartView).

#include <QPointF>

#include <vector>

#include "ui/factored/factored_figures.hpp"
#include "ui/figure_widgets/chart_view.hpp"

namespace qkv::ui {

class SpectrumChart : public ChartView {
    Q_OBJECT
public:
    explicit SpectrumChart(QWidget* parent = nullptr);

    void showHead(const FactoredHeadModel& model);

    // What is drawn (tests read these; they are the chart's own points).
    std::vector<QPointF> singularValuePoints() const { return picture_.values; }  // d_k points
    std::vector<QPointF> exactZeroPoints() const { return picture_.zeros; }       // d_model - d_k points
    double toleranceLevel() const { return picture_.tolerance; }
    double axisFloor() const { return picture_.floor; }
    // Points of the first series strictly above the tolerance line.
    int pointsAboveTolerance() const;

private:
    SpectrumPicture picture_;
};

}  // namespace qkv::ui
