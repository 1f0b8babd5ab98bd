#include "ui/train/curve_chart.hpp"

#include <QChart>
#include <QContextMenuEvent>
#include <QCursor>
#include <QEvent>
#include <QLegend>
#include <QLineSeries>
#include <QMenu>
#include <QMouseEvent>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

#include "ui/figure_widgets/chart_table.hpp"
#include "ui/figures/shown_text.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/render/chart_builder.hpp"
#include "ui/render/chart_fitter.hpp"
#include "ui/render/chart_palette.hpp"

namespace qkv::ui {
namespace {

// More points than a plot is wide only cost time: a long run's curve is drawn as means of
// consecutive steps, at most this many points.
constexpr std::size_t kMostPointsDrawn = 1200;

std::vector<QPointF> thinned(const std::vector<QPointF>& points, double scale)
{
    std::vector<QPointF> out;
    const std::size_t bucket = (points.size() + kMostPointsDrawn - 1) / kMostPointsDrawn;
    if (bucket <= 1) {
        out.reserve(points.size());
        for (const QPointF& p : points) out.emplace_back(p.x(), p.y() * scale);
        return out;
    }
    // Each drawn point: the mean of the steps since the previous one, at the bucket's last step.
    out.reserve(points.size() / bucket + 1);
    for (std::size_t begin = 0; begin < points.size(); begin += bucket) {
        const std::size_t end = std::min(points.size(), begin + bucket);
        double sum = 0;
        for (std::size_t i = begin; i < end; ++i) sum += points[i].y();
        out.emplace_back(points[end - 1].x(), scale * sum / static_cast<double>(end - begin));
    }
    return out;
}

QValueAxis* makeAxis(const QString& title, const QString& format, QChart* chart)
{
    auto* axis = new QValueAxis(chart);
    axis->setTitleText(title);
    axis->setLabelFormat(format);
    return axis;
}

}  // namespace

CurveChart::CurveChart(const QString& title, const QString& valueTitle, bool percent, QWidget* parent)
    // The chart goes to the constructor: QChartView(parent) would make a default chart that
    // setChart() then leaks.
    : QChartView(new QChart, parent), valueTitle_(valueTitle), percent_(percent)
{
    QChart* c = chart();
    c->setAnimationOptions(QChart::NoAnimation);
    c->setTitle(title);
    c->setBackgroundRoundness(0);
    c->setMargins(QMargins(4, 4, 4, 4));
    c->legend()->hide();  // one legend for the Train tab's charts, beside them (TrainTab)
    x_ = makeAxis(tr("step"), QStringLiteral("%d"), c);
    y_ = makeAxis(valueTitle, percent ? QStringLiteral("%.0f%%") : QStringLiteral("%.3g"), c);
    c->addAxis(x_, Qt::AlignBottom);
    c->addAxis(y_, Qt::AlignLeft);
    // Qt elides a vertical title longer than the plot is high ("held-out accur..." in a 1000 x
    // 700 window): it wraps into rotated lines instead.
    connect(c, &QChart::plotAreaChanged, this, [this](const QRectF& plot) {
        const QString wrapped = wrappedChartText(valueTitle_, y_->titleFont(), plot.height() - 20);
        if (y_->titleText() != wrapped) y_->setTitleText(wrapped);
    });
    setRenderHint(QPainter::Antialiasing);
    setRubberBand(QChartView::RectangleRubberBand);
    setToolTip(tr("Drag a rectangle to zoom in, double-click to see every step again; Ctrl+T shows the points as "
                  "a table"));
    setAccessibleName(title.isEmpty() ? tr("%1 by step").arg(valueTitle) : title);
    setAccessibleDescription(tr("A chart; Ctrl+T lists its points as a table"));
    addShowAsTableAction(this, [this] { return tableModel(); });
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    applyColors();
    fitAxes();
}

QLineSeries* CurveChart::seriesFor(const Curve& curve)
{
    for (QAbstractSeries* s : chart()->series())
        if (s->name() == curve.name) return static_cast<QLineSeries*>(s);
    auto* series = new QLineSeries(chart());
    series->setName(curve.name);
    series->setPen(QPen(curve.color, 2, curve.style));
    series->setPointsVisible(curve.dots);
    series->setMarkerSize(5);
    chart()->addSeries(series);
    series->attachAxis(x_);
    series->attachAxis(y_);
    const QString name = curve.name;
    connect(series, &QXYSeries::hovered, this, [this, name](const QPointF& point, bool on) {
        if (!on) return QToolTip::hideText();
        QToolTip::showText(QCursor::pos(), plainAsRichText(pointText(name, point.x())), this);
    });
    return series;
}

void CurveChart::setCurves(std::vector<Curve> curves, long lastStep)
{
    lastStep_ = std::max(1L, lastStep);
    const double scale = percent_ ? 100.0 : 1.0;
    for (Curve& curve : curves) curve.points = thinned(curve.points, scale);
    // Series no longer asked for go (a new run with fewer variants).
    for (QAbstractSeries* s : chart()->series()) {
        const bool kept = std::any_of(curves.begin(), curves.end(), [s](const Curve& c) { return c.name == s->name(); });
        if (!kept) {
            chart()->removeSeries(s);
            delete s;
        }
    }
    for (const Curve& curve : curves) {
        QList<QPointF> points(curve.points.begin(), curve.points.end());
        seriesFor(curve)->replace(points);
    }
    curves_ = std::move(curves);
    applyColors();
    if (!zoomed_) fitAxes();
}

void CurveChart::fitAxes()
{
    // At least 0..5: whole steps label the ticks, which a shorter range would repeat ("0 0 0 1").
    // As many ticks as the plot's width has room for ("10,000" needs ~60 pixels).
    x_->setRange(0, static_cast<double>(std::max(5L, lastStep_)));
    x_->setTickCount(std::clamp((width() - 90) / 70 + 1, 2, 6));  // the plot: the view less the y axis
    x_->applyNiceNumbers();
    if (percent_) {
        y_->setRange(0, 100);
        return;
    }
    double top = 0;
    for (const Curve& curve : curves_)
        for (const QPointF& p : curve.points)
            if (std::isfinite(p.y())) top = std::max(top, p.y());
    y_->setRange(0, top > 0 ? top * 1.05 : 1.0);
    y_->applyNiceNumbers();
}

void CurveChart::resetZoom()
{
    chart()->zoomReset();
    zoomed_ = false;
    fitAxes();
}

void CurveChart::mouseReleaseEvent(QMouseEvent* event)
{
    QChartView::mouseReleaseEvent(event);
    // A rubber band (left) zooms in, a right click out: either way the user chose the range.
    if (chart()->isZoomed()) zoomed_ = true;
}

void CurveChart::mouseDoubleClickEvent(QMouseEvent* event)
{
    resetZoom();
    QChartView::mouseDoubleClickEvent(event);
}

void CurveChart::resizeEvent(QResizeEvent* event)
{
    QChartView::resizeEvent(event);
    if (!zoomed_) fitAxes();
}

void CurveChart::changeEvent(QEvent* event)
{
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) applyColors();
}

void CurveChart::applyColors()
{
    QChart* c = chart();
    c->setTitleFont(figureTitleFont(font()));
    c->legend()->setFont(font());
    for (QAbstractAxis* axis : c->axes()) {
        axis->setLabelsFont(font());
        axis->setTitleFont(font());
    }
    applyChartColors(c, palette().color(QPalette::Text), palette().color(QPalette::Base));
}

ChartModel CurveChart::tableModel() const
{
    ChartModel model;
    model.title = chart()->title();
    model.x.title = tr("step");
    model.y.title = percent_ ? tr("%1 (%)").arg(valueTitle_) : valueTitle_;
    for (const Curve& curve : curves_) {
        ChartSeries s = ChartSeries::of(curve.name, curve.color, ChartSeries::Kind::Line);
        s.points = curve.points;
        model.series.push_back(std::move(s));
    }
    return model;
}

void CurveChart::contextMenuEvent(QContextMenuEvent* event)
{
    QMenu menu(this);
    menu.addActions(actions());
    menu.exec(event->globalPos());
}

std::vector<QPointF> CurveChart::drawnPoints(const QString& name) const
{
    for (const Curve& curve : curves_)
        if (curve.name == name) return curve.points;
    return {};
}

QString CurveChart::pointText(const QString& name, double step) const
{
    for (const Curve& curve : curves_) {
        if (curve.name != name || curve.points.empty()) continue;
        const auto nearest = std::min_element(curve.points.begin(), curve.points.end(), [step](auto& a, auto& b) {
            return std::abs(a.x() - step) < std::abs(b.x() - step);
        });
        const QString value = percent_ ? tr("%1 %").arg(nearest->y(), 0, 'f', 1) : chartValueText(nearest->y());
        return tr("%1\nstep %2: %3").arg(name, chartValueText(std::round(nearest->x())), value);
    }
    return {};
}

}  // namespace qkv::ui
