#include "ui/costs/comparison_chart.hpp"

namespace qkv::ui {

ComparisonChart::ComparisonChart(Builder build, QWidget* parent) : ChartView(parent), build_(build) {}

void ComparisonChart::setShape(const ComparisonShape& shape)
{
    if (shape.valid()) setModel(build_(shape));
}

std::vector<const ChartSeries*> ComparisonChart::seriesOfKind(ChartSeries::Kind kind) const
{
    std::vector<const ChartSeries*> out;
    for (const ChartSeries& s : model().series)
        if (s.kind == kind) out.push_back(&s);
    return out;
}

std::vector<double> ComparisonChart::barValues(int set) const
{
    const auto bars = seriesOfKind(ChartSeries::Kind::Bars);
    if (set < 0 || set >= static_cast<int>(bars.size())) return {};
    return bars[static_cast<std::size_t>(set)]->values;
}

int ComparisonChart::barSetCount() const { return static_cast<int>(seriesOfKind(ChartSeries::Kind::Bars).size()); }

std::vector<QPointF> ComparisonChart::linePoints(int index) const
{
    const auto lines = seriesOfKind(ChartSeries::Kind::Line);
    if (index < 0 || index >= static_cast<int>(lines.size())) return {};
    return lines[static_cast<std::size_t>(index)]->points;
}

QStringList ComparisonChart::lineNames() const
{
    QStringList names;
    for (const ChartSeries* s : seriesOfKind(ChartSeries::Kind::Line)) names << s->name;
    return names;
}

}  // namespace qkv::ui
