// The spectrum figure (factored_figures.hpp): the singular values of W_i from the factors, drawn
// with Qt Charts (renderChart), and the rank statistics under the chart.
#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

#include "ui/factored/factored_figure_helpers.hpp"
#include "ui/factored/factored_figures.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/render/chart_render.hpp"

namespace qkv::ui {

using namespace factored_figure;

// ---- the spectrum -------------------------------------------------------------------------

SpectrumPicture spectrumPicture(const FactoredHeadModel& model)
{
    SpectrumPicture p;
    ChartModel& c = p.chart;
    c.title = Text::tr("Singular values of W_i (head %1, from the factors)").arg(model.head + 1);
    c.x.title = Text::tr("index k of σ_k");
    c.y.title = Text::tr("σ_k (log scale)");
    c.y.logarithmic = true;
    if (!model.valid()) return p;
    const VectorD& sigma = model.factored->singularValues();
    p.tolerance = model.factored->rankTolerance();
    // The floor: a decade below the smallest positive value drawn (value or tolerance), never
    // below 1e-30 so that an exact-zero middle value does not stretch the axis.
    double smallest = p.tolerance > 0.0 ? p.tolerance : 1.0;
    for (Index k = 0; k < sigma.size(); ++k)
        if (sigma(k) > 0.0 && std::isfinite(sigma(k))) smallest = std::min(smallest, sigma(k));
    p.floor = std::max(1e-30, std::pow(10.0, std::floor(std::log10(smallest))) / 10.0);
    for (Index k = 0; k < sigma.size(); ++k) {
        const double v = std::isfinite(sigma(k)) ? std::max(sigma(k), p.floor) : p.floor;
        p.values.emplace_back(static_cast<double>(k + 1), v);
    }
    for (Index k = sigma.size(); k < model.d_model; ++k) p.zeros.emplace_back(static_cast<double>(k + 1), p.floor);
    const double largest = sigma.size() > 0 && std::isfinite(sigma(0)) && sigma(0) > 0 ? sigma(0) : 1.0;
    c.y.minimum = p.floor * 0.5;
    c.y.maximum = std::pow(10.0, std::ceil(std::log10(largest) + 0.3));
    c.x.minimum = 0.0;
    c.x.maximum = static_cast<double>(model.d_model) + 1.0;

    ChartSeries zeros = ChartSeries::of(
        Text::tr("the other %1 singular values: exactly 0 (drawn at the floor)").arg(model.d_model - model.d_k),
        QColor(150, 150, 150), ChartSeries::Kind::Points);
    zeros.points = p.zeros;
    zeros.marker = ChartSeries::Marker::Square;
    zeros.markerSize = 5.0;
    zeros.inLegend = !p.zeros.empty();
    ChartSeries tolerance =
        ChartSeries::of(Text::tr("rank tolerance σ_max · d_model · ε = %1").arg(preciseNumber(p.tolerance)),
                        QColor(0xb2, 0x18, 0x2b), ChartSeries::Kind::Line);
    tolerance.lineStyle = Qt::DashLine;
    tolerance.lineMarkers = false;
    if (p.tolerance > 0.0) tolerance.points = {QPointF(c.x.minimum, p.tolerance), QPointF(c.x.maximum, p.tolerance)};
    ChartSeries values = ChartSeries::of(Text::tr("σ_1 … σ_%1 (d_k = %1 values of the middle)").arg(model.d_k),
                                         QColor(0x21, 0x66, 0xac), ChartSeries::Kind::Points);
    values.points = p.values;
    c.series = {zeros, tolerance, values};
    return p;
}

QString spectrumStatistics(const FactoredHeadModel& model, bool rich)
{
    if (!model.valid()) return {};
    const auto b = [rich](const QString& s) { return rich ? QStringLiteral("<b>%1</b>").arg(s) : s; };
    const QString sep = rich ? QStringLiteral(" &nbsp;·&nbsp; ") : QStringLiteral(" · ");
    const VectorD& sigma = model.factored->singularValues();
    const Index rank = model.numericalRank();
    // Rich text is markup: the "<" of "rank 2 < d_k" would start a tag and swallow the rest.
    const auto plain = [rich](const QString& s) { return rich ? s.toHtmlEscaped() : s; };
    const QString rankText = rank == model.d_k
                                 ? plain(Text::tr("numerical rank %1 = d_k")).arg(b(QString::number(rank)))
                                 : plain(Text::tr("numerical rank %1 < d_k = %2: this head is rank-deficient"))
                                       .arg(b(QString::number(rank)))
                                       .arg(model.d_k);
    const QString norm = rich ? Text::tr("‖W_i‖<sub>F</sub>") : Text::tr("‖W_i‖_F");
    const QString first = rankText + sep + Text::tr("d_model = %1").arg(model.d_model) + sep +
                          Text::tr("%1 = %2").arg(norm, b(preciseNumber(model.factored->frobeniusNorm())));
    const QString second =
        Text::tr("σ_max = %1").arg(preciseNumber(sigma.size() > 0 ? sigma(0) : 0.0)) + sep +
        Text::tr("σ_%1 = %2 (the smallest of the d_k)")
            .arg(sigma.size())
            .arg(preciseNumber(sigma.size() > 0 ? sigma(sigma.size() - 1) : 0.0)) +
        sep + Text::tr("tolerance σ_max · d_model · ε = %1").arg(preciseNumber(model.factored->rankTolerance()));
    return first + (rich ? QStringLiteral("<br>") : QStringLiteral("\n")) + second;
}

void paintSpectrum(QPainter& painter, const QRectF& target, const FactoredHeadModel& model,
                   const FigurePalette& palette)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const QString statistics = spectrumStatistics(model, false);
    const double textHeight =
        statistics.isEmpty() ? 0 : wrappedTextRect(metrics, target.width(), statistics).height() + kGap;
    renderChart(painter, target.adjusted(0, 0, 0, -textHeight), spectrumPicture(model).chart,
                ChartStyle{palette.text, palette.background, painter.font()});
    painter.setPen(palette.text);
    painter.drawText(QRectF(target.left(), target.bottom() - textHeight + kGap, target.width(), textHeight - kGap),
                     Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, statistics);
}

}  // namespace qkv::ui
