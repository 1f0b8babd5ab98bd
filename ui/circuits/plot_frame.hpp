#pragma once
// The frame of the Circuits tab's two scatter plots (the eigenvalue plane and the heads map):
// a plot rectangle inside the figure's, round ticks (niceTicks) with readable labels, grid
// lines, and both axes titled. One layout for the screen and every export, and the mapping from
// data to the painter's coordinates the views hit-test with.

#include <QFontMetricsF>
#include <QPointF>
#include <QRectF>
#include <QString>

class QPainter;

namespace qkv::ui {

struct FigureOptions;

class PlotFrame {
public:
    // `area`: the rectangle for the plot with its ticks and titles; [xMin, xMax] x [yMin, yMax] the
    // data range drawn (grown a little when empty).
    PlotFrame(const QRectF& area, const QFontMetricsF& metrics, double xMin, double xMax, double yMin, double yMax);

    const QRectF& plot() const { return plot_; }
    QPointF toPoint(double x, double y) const;
    // Keeps x and y units equal (the complex plane): shrinks the plot along the longer side.
    void equalUnits();

    // Grid lines, ticks and their labels, the frame, and the titles (x below, y rotated left).
    void paint(QPainter& painter, const FigureOptions& options, const QString& xTitle, const QString& yTitle) const;

private:
    QRectF area_;
    QRectF plot_;
    double lineHeight_;
    double xMin_, xMax_, yMin_, yMax_;
};

}  // namespace qkv::ui
