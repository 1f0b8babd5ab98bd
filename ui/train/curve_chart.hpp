#pragma once
// A training curve chart that grows while the model learns: Qt Charts, x "step", y the quantity.
// Points are replaced in place (the chart is never rebuilt), so a zoom stays while training goes
// on: drag a rectangle to zoom in, double-click (or resetZoom) to see every step again. The
// mouse over a line shows the nearest point's step and value. Show as Table (its context menu,
// or Ctrl+T with the chart focused) lists the points drawn (tableModel()).
//
// Unlike ChartView (ui/figure_widgets/chart_view.hpp), which draws a finished ChartModel and rebuilds
// its chart when the model changes, this one follows data that change twice a second.

#include <QChartView>
#include <QColor>
#include <QPointF>
#include <QString>

#include <vector>

#include "ui/render/chart_model.hpp"

class QLineSeries;
class QValueAxis;

namespace qkv::ui {

struct Curve {
    QString name;  // in the legend and the hover text
    QColor color;
    Qt::PenStyle style = Qt::SolidLine;
    std::vector<QPointF> points;  // (step, value), steps ascending
    bool dots = false;            // a dot at each point (a few evaluations stay visible on a busy line)
};

class CurveChart : public QChartView {
    Q_OBJECT
public:
    // `percent`: values are fractions shown as 0-100 %, on a fixed 0-100 axis.
    CurveChart(const QString& title, const QString& valueTitle, bool percent, QWidget* parent = nullptr);

    // The curves now, in legend order; x runs over [0, lastStep] until zoomed.
    void setCurves(std::vector<Curve> curves, long lastStep);
    void clear() { setCurves({}, 1); }
    void resetZoom();
    bool isZoomed() const { return zoomed_; }

    // What is drawn (tests): the points of the series called `name`, in the axis's units.
    // Series are drawn in the order given, the last on top.
    std::vector<QPointF> drawnPoints(const QString& name) const;
    QValueAxis* stepAxis() const { return x_; }
    QValueAxis* valueAxis() const { return y_; }
    // The curves as drawn, as a chart model (for Show as Table): x the step, y the quantity (in %
    // for a percent chart), one line series per curve.
    ChartModel tableModel() const;
    // The text shown for the point of `name` nearest to `step`.
    QString pointText(const QString& name, double step) const;

    QSize sizeHint() const override { return {420, 260}; }
    QSize minimumSizeHint() const override { return {200, 170}; }

protected:
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    QLineSeries* seriesFor(const Curve& curve);
    void fitAxes();
    void applyColors();

    QString valueTitle_;
    bool percent_;
    bool zoomed_ = false;
    long lastStep_ = 1;
    QValueAxis* x_;
    QValueAxis* y_;
    std::vector<Curve> curves_;  // as drawn (thinned to what the plot can show)
};

}  // namespace qkv::ui
