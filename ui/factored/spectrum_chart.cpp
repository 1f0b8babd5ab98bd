#include "ui/factored/spectrum_chart.hpp"

namespace qkv::ui {

SpectrumChart::SpectrumChart(QWidget* parent) : ChartView(parent) {}

void SpectrumChart::showHead(const FactoredHeadModel& model)
{
    picture_ = spectrumPicture(model);
    setModel(picture_.chart);
}

int SpectrumChart::pointsAboveTolerance() const
{
    int count = 0;
    for (const QPointF& p : picture_.values)
        if (p.y() > picture_.tolerance) ++count;
    return count;
}

}  // namespace qkv::ui
