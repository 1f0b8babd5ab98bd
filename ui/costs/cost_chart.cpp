#include "ui/costs/cost_chart.hpp"

namespace qkv::ui {

CostChart::CostChart(Builder build, QWidget* parent) : ChartView(parent), build_(build) {}

void CostChart::setShape(const CostShape& shape)
{
    if (shape.valid()) setModel(build_(shape));
}

std::vector<const ChartSeries*> CostChart::seriesOfKind(ChartSeries::Kind kind) const
{
    std::vector<const ChartSeries*> out;
    for (const ChartSeries& s : model().series)
        if (s.kind == kind) out.push_back(&s);
    return out;
}

std::vector<double> CostChart::barValues(int set) const
{
    const auto bars = seriesOfKind(ChartSeries::Kind::Bars);
    if (set < 0 || set >= static_cast<int>(bars.size())) return {};
    return bars[static_cast<std::size_t>(set)]->values;
}

int CostChart::barSetCount() const { return static_cast<int>(seriesOfKind(ChartSeries::Kind::Bars).size()); }

std::vector<QPointF> CostChart::linePoints(int index) const
{
    const auto lines = seriesOfKind(ChartSeries::Kind::Line);
    if (index < 0 || index >= static_cast<int>(lines.size())) return {};
    return lines[static_cast<std::size_t>(index)]->points;
}

QStringList CostChart::lineNames() const
{
    QStringList names;
    for (const ChartSeries* s : seriesOfKind(ChartSeries::Kind::Line)) names << s->name;
    return names;
}

}  // namespace qkv::ui
