#include "ui/steps/step_tables.hpp"

#include <QCoreApplication>

namespace qkv::ui {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("qkv::ui::StepTables", text); }

QStringList componentNames(std::size_t count)
{
    QStringList names;
    for (std::size_t j = 0; j < count; ++j) names << QString::number(j);
    return names;
}

ChartSeries bars(const QString& name, const std::vector<float>& values)
{
    ChartSeries s = ChartSeries::of(name, Qt::gray, ChartSeries::Kind::Bars);
    s.values.assign(values.begin(), values.end());
    return s;
}

}  // namespace

std::vector<ChartModel> stepBarCharts(const StepNumbers& n)
{
    if (!n.valid) return {};
    std::vector<ChartModel> charts;

    ChartModel dot;
    dot.title = tr("q, k and q ⊙ k (sums to q · k)");
    dot.categories = componentNames(n.q.size());
    dot.x.title = tr("component of d_k");
    if (!n.qBeforeRotation.empty()) dot.series.push_back(bars(tr("q before rotation"), n.qBeforeRotation));
    dot.series.push_back(bars(tr("q (query %1)").arg(n.queryLabel), n.q));
    if (!n.kBeforeRotation.empty()) dot.series.push_back(bars(tr("k before rotation"), n.kBeforeRotation));
    dot.series.push_back(bars(tr("k (key %1)").arg(n.keyLabel), n.k));
    dot.series.push_back(bars(tr("q ⊙ k"), n.products));
    charts.push_back(std::move(dot));

    ChartModel row;
    row.title = tr("Scores and weights of the row");
    row.categories = n.keyLabels;
    row.x.title = tr("key");
    row.y.title = QString();
    row.series.push_back(bars(tr("scaled score (masked: −∞)"), n.rowScores));
    row.series.push_back(bars(tr("weight A_i (0 to 1)"), n.rowWeights));
    charts.push_back(std::move(row));

    ChartModel head;
    head.title = tr("head_i = Σ_j a_ij v_j");
    head.categories = componentNames(n.headOutput.size());
    head.x.title = tr("component of d_v");
    head.series.push_back(bars(tr("head output"), n.headOutput));
    charts.push_back(std::move(head));

    ChartModel output;
    output.title = tr("Output row (Concat W^O + b^O)");
    output.categories = componentNames(n.output.size());
    output.x.title = tr("component of d_model");
    output.series.push_back(bars(tr("output"), n.output));
    charts.push_back(std::move(output));
    return charts;
}

}  // namespace qkv::ui
