#pragma once
// "Every head placed by what it does": the points of HeadsMapData (heads_map_data.hpp) on the
// two chosen axes, coloured by layer with a legend, the selected head ringed on screen.

#include <QFontMetricsF>
#include <QRectF>

#include "ui/circuits/heads_map_data.hpp"
#include "ui/circuits/plot_frame.hpp"
#include "ui/figures/figure.hpp"

class QPainter;

namespace qkv::ui {

class HeadsMapLayout {
public:
    HeadsMapLayout(const QRectF& rect, const HeadsMapData& data, const QString& modelLine,
                   const QFontMetricsF& metrics);
    const PlotFrame& frame() const { return frame_; }
    const QRectF& title() const { return title_; }
    const QRectF& subtitle() const { return subtitle_; }
    const QRectF& legend() const { return legend_; }
    // The index of the point nearest `position` within a few pixels, or -1.
    int pointAt(const HeadsMapData& data, const QPointF& position) const;

private:
    QRectF title_, subtitle_, legend_;
    PlotFrame frame_;
};

// The subtitle: the model, the heads drawn, the prediction of the ablation axis.
QString headsMapSubtitle(const HeadsMapData& data, const QString& modelLine);

void paintHeadsMap(QPainter& painter, const QRectF& rect, const HeadsMapData& data, const QString& modelLine,
                   const FigureOptions& options, qkv::ModelHead selected = {-1, -1});

}  // namespace qkv::ui
