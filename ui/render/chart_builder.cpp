#include "ui/render/chart_builder.hpp"

#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QGraphicsLayout>
#include <QGraphicsSimpleTextItem>
#include <QHorizontalBarSeries>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <QScatterSeries>

#include <algorithm>
#include <cmath>

#include "ui/figures/number_format.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/render/chart_axes.hpp"
#include "ui/render/chart_fitter.hpp"
#include "ui/render/chart_palette.hpp"
#include "ui/render/painted_points.hpp"

namespace qkv::ui {
namespace {

QCategoryAxis* valueAxis(const ChartAxis& axis, QChart* chart)
{
    auto* out = new QCategoryAxis(chart);
    out->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    out->setTitleText(axis.title);
    const double low = plotValue(axis, axis.minimum), high = plotValue(axis, axis.maximum);
    out->setRange(low, high > low ? high : low + 1);
    return out;
}

// Above the series (Qt Charts draws them at z 5), below the legend (6).
constexpr double kBarLabelZ = 5.5;

void addBars(QChart* chart, const ChartModel& model, const ChartStyle& style, ChartFitter::Parts& parts)
{
    QAbstractBarSeries* series = model.horizontalBars
                                     ? static_cast<QAbstractBarSeries*>(new QHorizontalBarSeries(chart))
                                     : new QBarSeries(chart);
    double largest = 0;
    for (const ChartSeries& s : model.series) {
        if (s.kind != ChartSeries::Kind::Bars) continue;
        auto* set = new QBarSet(s.name, series);
        set->setColor(s.color);
        set->setBorderColor(s.color);
        std::vector<QGraphicsSimpleTextItem*> labels;
        for (double v : s.values) {
            set->append(v);
            largest = std::max(largest, v);
            auto* label = new QGraphicsSimpleTextItem(chartValueText(v), chart);
            label->setFont(style.font);
            label->setBrush(style.text);
            label->setVisible(model.barValueLabels);
            label->setZValue(kBarLabelZ);  // a label inside its bar's end is drawn over the bar
            labels.push_back(label);
        }
        series->append(set);
        parts.barLabels.push_back(std::move(labels));
    }
    series->setBarWidth(0.8);
    chart->addSeries(series);
    parts.bars = series;

    parts.categories = new QBarCategoryAxis(chart);
    parts.categories->append(model.categories);
    ChartAxis values = model.horizontalBars ? model.x : model.y;
    values.minimum = 0;
    values.maximum = std::max({values.maximum, largest, 1.0});
    QCategoryAxis* axis = valueAxis(values, chart);
    (model.horizontalBars ? parts.x : parts.y) = axis;
    parts.categories->setTitleText(model.horizontalBars ? model.y.title : model.x.title);
    chart->addAxis(parts.categories, model.horizontalBars ? Qt::AlignLeft : Qt::AlignBottom);
    chart->addAxis(axis, model.horizontalBars ? Qt::AlignBottom : Qt::AlignLeft);
    series->attachAxis(parts.categories);
    series->attachAxis(axis);
}

// Above this many points, a point series is drawn with painted markers when the style asks for them.
constexpr qsizetype kItemMarkerLimit = 256;

// The marker of `s` as an image, at 4x its size so that it stays crisp on high-density screens.
QImage markerImage(const ChartSeries& s)
{
    const int side = std::max(4, static_cast<int>(std::ceil(s.markerSize * 4)));
    QImage image(side, side, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const bool ring = s.marker == ChartSeries::Marker::Ring;
    painter.setPen(QPen(ring ? s.color : s.color.darker(130), ring ? 8 : 4));
    painter.setBrush(ring ? QBrush(Qt::transparent) : QBrush(s.color));
    const QRectF box = QRectF(image.rect()).adjusted(3, 3, -3, -3);
    if (s.marker == ChartSeries::Marker::Square)
        painter.drawRect(box);
    else
        painter.drawEllipse(box);
    return image;
}

QXYSeries* xySeries(const ChartSeries& s, const ChartModel& model, QChart* chart)
{
    QXYSeries* out = nullptr;
    if (s.kind == ChartSeries::Kind::Line) {
        auto* line = new QLineSeries(chart);
        line->setColor(s.color);
        line->setPen(QPen(s.color, 2, s.lineStyle));
        line->setPointsVisible(s.lineMarkers);
        line->setMarkerSize(5.0);
        out = line;
    } else {
        auto* points = new QScatterSeries(chart);
        points->setColor(s.color);  // before the brush and pen, which it would override
        points->setMarkerSize(s.markerSize);
        points->setMarkerShape(s.marker == ChartSeries::Marker::Square ? QScatterSeries::MarkerShapeRectangle
                                                                       : QScatterSeries::MarkerShapeCircle);
        const bool ring = s.marker == ChartSeries::Marker::Ring;
        points->setBrush(ring ? QBrush(Qt::transparent) : QBrush(s.color));
        points->setPen(QPen(ring ? s.color : s.color.darker(130), ring ? 2 : 1));
        out = points;
    }
    out->setName(s.name);
    for (const QPointF& p : s.points) out->append(plotValue(model.x, p.x()), plotValue(model.y, p.y()));
    return out;
}

void addLinesAndPoints(QChart* chart, const ChartModel& model, const ChartStyle& style, ChartFitter::Parts& parts)
{
    parts.x = valueAxis(model.x, chart);
    parts.y = valueAxis(model.y, chart);
    chart->addAxis(parts.x, Qt::AlignBottom);
    chart->addAxis(parts.y, Qt::AlignLeft);
    for (const ChartSeries& s : model.series) {
        if (s.kind == ChartSeries::Kind::Bars) continue;
        const bool painted =
            style.paintedMarkers && s.kind == ChartSeries::Kind::Points && s.points.size() > kItemMarkerLimit;
        // Painted points: the point series keeps its name and legend entry, without points;
        // one item paints them all.
        ChartSeries named = s;
        if (painted) named.points.clear();
        // A ring marks a point ("the current h"): in the text colour, it reads on a light, dark
        // or high-contrast ground alike (a black ring vanished on the dark palette).
        if (s.marker == ChartSeries::Marker::Ring && s.kind == ChartSeries::Kind::Points) named.color = style.text;
        QXYSeries* series = xySeries(named, model, chart);
        chart->addSeries(series);
        series->attachAxis(parts.x);
        series->attachAxis(parts.y);
        for (QLegendMarker* marker : chart->legend()->markers(series)) marker->setVisible(s.inLegend && !s.name.isEmpty());
        if (painted) {
            std::vector<QPointF> plotted;
            plotted.reserve(s.points.size());
            for (const QPointF& p : s.points) plotted.emplace_back(plotValue(model.x, p.x()), plotValue(model.y, p.y()));
            new PaintedPoints(chart, series, std::move(plotted), markerImage(named), s.markerSize);  // owned by the chart
        }
    }
}

void styleChart(QChart* chart, const ChartStyle& style)
{
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setBackgroundRoundness(0);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setTitleFont(figureTitleFont(style.font));
    chart->legend()->setFont(style.font);
    chart->legend()->setMarkerShape(chart->series().size() == 1 &&
                                            qobject_cast<QAbstractBarSeries*>(chart->series().front())
                                        ? QLegend::MarkerShapeRectangle
                                        : QLegend::MarkerShapeFromSeries);
    chart->legend()->detachFromChart();  // ChartFitter lays it out in rows that fit
    chart->legend()->setBackgroundVisible(false);
    // Qt's 9 px around the legend's entries are height a short chart takes from its axes: past
    // 40% of the chart, Qt squeezes the x axis and elides its tick labels ("...").
    chart->legend()->layout()->setContentsMargins(4, 2, 4, 2);
    for (QAbstractAxis* axis : chart->axes()) {
        axis->setLabelsFont(style.font);
        axis->setTitleFont(style.font);
    }
    applyChartColors(chart, style.text, style.background);
}

}  // namespace

QString chartValueText(double value)
{
    return std::abs(value - std::round(value)) < 1e-9 && std::abs(value) < 1e15 ? groupedInteger(std::llround(value))
                                                                                : readableNumber(value);
}

std::unique_ptr<QChart> buildChart(const ChartModel& model, const ChartStyle& style)
{
    auto chart = std::make_unique<QChart>();
    ChartFitter::Parts parts;
    if (model.isBarChart())
        addBars(chart.get(), model, style, parts);
    else
        addLinesAndPoints(chart.get(), model, style, parts);
    styleChart(chart.get(), style);
    new ChartFitter(chart.get(), model, style, std::move(parts));  // owned by the chart
    return chart;
}

const ChartModel* chartModelOf(const QChart* chart)
{
    const auto* fitter = chart ? chart->findChild<const ChartFitter*>(QString(), Qt::FindDirectChildrenOnly) : nullptr;
    return fitter ? &fitter->model() : nullptr;
}

}  // namespace qkv::ui
