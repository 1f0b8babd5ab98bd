#include "ui/factored/spectrum_chart.hpp"

#include <QChart>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

#include "ui/render/chart_palette.hpp"

namespace qkv::ui {

namespace {

// A power of ten at or below `value`.
double powerOfTenBelow(double value)
{
    return std::pow(10.0, std::floor(std::log10(value)));
}

}  // namespace

// The chart goes to QChartView's constructor: QChartView(parent) would make a default chart
// that setChart() then releases without deleting (design.md section 5).
SpectrumChartView::SpectrumChartView(QWidget* parent) : QChartView(new QChart(), parent)
{
    QChart* chart = this->chart();
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setTitle(tr("Singular values of W_i (from the factors)"));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));

    values_ = new QScatterSeries(chart);
    values_->setName(tr("σ_1 … σ_d_k"));
    values_->setMarkerSize(7.0);
    values_->setColor(QColor(0x21, 0x66, 0xac));
    values_->setBorderColor(QColor(0x21, 0x66, 0xac));

    zeros_ = new QScatterSeries(chart);
    zeros_->setName(tr("exactly 0"));
    zeros_->setMarkerSize(5.0);
    zeros_->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    zeros_->setColor(QColor(150, 150, 150));
    zeros_->setBorderColor(QColor(150, 150, 150));

    toleranceLine_ = new QLineSeries(chart);
    toleranceLine_->setName(tr("rank tolerance"));
    QPen dashed(QColor(0xb2, 0x18, 0x2b));
    dashed.setStyle(Qt::DashLine);
    dashed.setWidthF(1.5);
    toleranceLine_->setPen(dashed);

    chart->addSeries(zeros_);
    chart->addSeries(toleranceLine_);
    chart->addSeries(values_);

    indexAxis_ = new QValueAxis(chart);
    indexAxis_->setTitleText(tr("index k of σ_k"));
    indexAxis_->setLabelFormat(QStringLiteral("%d"));
    valueAxis_ = new QLogValueAxis(chart);
    valueAxis_->setBase(10.0);
    valueAxis_->setTitleText(tr("σ_k (log scale)"));
    valueAxis_->setLabelFormat(QStringLiteral("%.0e"));
    chart->addAxis(indexAxis_, Qt::AlignBottom);
    chart->addAxis(valueAxis_, Qt::AlignLeft);
    for (QAbstractSeries* series : {static_cast<QAbstractSeries*>(values_),
                                    static_cast<QAbstractSeries*>(zeros_),
                                    static_cast<QAbstractSeries*>(toleranceLine_)}) {
        series->attachAxis(indexAxis_);
        series->attachAxis(valueAxis_);
    }

    setRenderHint(QPainter::Antialiasing);
}

QSize SpectrumChartView::sizeHint() const { return {480, 320}; }

void SpectrumChartView::setModel(const FactoredHeadModel& model)
{
    QList<QPointF> valuePoints;
    QList<QPointF> zeroPoints;
    tolerance_ = 0.0;
    if (model.valid()) {
        const VectorD& sigma = model.factored->singularValues();
        tolerance_ = model.factored->rankTolerance();
        // The floor: a decade below the smallest positive value drawn (value or tolerance),
        // never below 1e-30 so that an exact-zero middle value does not stretch the axis.
        double smallest = tolerance_ > 0.0 ? tolerance_ : 1.0;
        for (Index k = 0; k < sigma.size(); ++k) {
            if (sigma(k) > 0.0 && std::isfinite(sigma(k))) {
                smallest = std::min(smallest, sigma(k));
            }
        }
        floor_ = std::max(1e-30, powerOfTenBelow(smallest) / 10.0);
        for (Index k = 0; k < sigma.size(); ++k) {
            const double v = std::isfinite(sigma(k)) ? std::max(sigma(k), floor_) : floor_;
            valuePoints.append(QPointF(static_cast<double>(k + 1), v));
        }
        for (Index k = sigma.size(); k < model.d_model; ++k) {
            zeroPoints.append(QPointF(static_cast<double>(k + 1), floor_));
        }
        const double largest = sigma.size() > 0 && std::isfinite(sigma(0)) && sigma(0) > 0 ? sigma(0) : 1.0;
        // Label every decade while there are few; beyond ~6, every 10^step-th, so the labels
        // never crowd into ellipses.
        const double top = std::pow(10.0, std::ceil(std::log10(largest) + 0.3));
        const double decades = std::log10(top / floor_);
        const double step = std::max(1.0, std::ceil(decades / 6.0));
        valueAxis_->setBase(std::pow(10.0, step));
        valueAxis_->setRange(floor_ * 0.5, top);
        indexAxis_->setRange(0.0, static_cast<double>(model.d_model) + 1.0);
        indexAxis_->setTickCount(std::min<int>(9, static_cast<int>(model.d_model) + 1));
        indexAxis_->applyNiceNumbers();
        zeros_->setName(tr("exactly 0 (%1 values)").arg(model.d_model - model.d_k));
        values_->setName(tr("σ_1 … σ_%1").arg(model.d_k));
        toleranceLine_->setName(tr("rank tolerance"));
    }
    values_->replace(valuePoints);
    zeros_->replace(zeroPoints);
    QList<QPointF> line;
    if (tolerance_ > 0.0) {
        line = {QPointF(indexAxis_->min(), tolerance_), QPointF(indexAxis_->max(), tolerance_)};
    }
    toleranceLine_->replace(line);
    // Hide the "exactly 0" entry of the legend when there are none (h = 1).
    for (QLegendMarker* marker : chart()->legend()->markers(zeros_)) {
        marker->setVisible(!zeroPoints.isEmpty());
    }
    applyPaletteToChart(chart(), palette());
}

std::vector<QPointF> SpectrumChartView::singularValuePoints() const
{
    const QList<QPointF> points = values_->points();
    return {points.begin(), points.end()};
}

std::vector<QPointF> SpectrumChartView::exactZeroPoints() const
{
    const QList<QPointF> points = zeros_->points();
    return {points.begin(), points.end()};
}

int SpectrumChartView::pointsAboveTolerance() const
{
    int count = 0;
    for (const QPointF& p : values_->points()) {
        if (p.y() > tolerance_) {
            ++count;
        }
    }
    return count;
}

}  // namespace qkv::ui
