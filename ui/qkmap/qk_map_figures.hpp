#pragma once
// The Q/K map figures, widget-free:
//   "qk-map": one head. Queries (filled circles) and keys (hollow triangles) on the first two
//     principal components of [Q_i; K_i], labelled by token, the selected query's attention as
//     lines to the keys with opacity equal to the weight, each axis titled with its explained
//     variance ratio. Equal scales on both axes, so distances on the page are distances in the
//     plane of the two components.
//   "qk-map-heads": every head as a small multiple, the same marks without labels.
// The view paints both side by side with the same functions (and the selection marks on).

#include <QFontMetricsF>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <vector>

#include "ui/figures/figure.hpp"
#include "ui/qkmap/qk_map_labels.hpp"
#include "ui/qkmap/qk_map_model.hpp"

class QPainter;

namespace qkv::ui {

// The QkMapView tab's id: the session's view.tab, the tab and its figures' view (one spelling;
// sessions store it, so it never changes).
inline constexpr QLatin1String kQkMapViewId{"qk-map"};

// Data (principal-component coordinates) to page, equal scale on both axes.
struct ScatterFrame {
    QRectF plot;         // the axes box
    QPointF dataCentre;  // data point at the box's centre
    double scale = 1;    // pixels per data unit
    QPointF map(double x, double y) const
    {
        return {plot.center().x() + (x - dataCentre.x()) * scale, plot.center().y() - (y - dataCentre.y()) * scale};
    }
};
ScatterFrame scatterFrame(const QRectF& plot, const qkv::QkProjection& projection);

struct QkMapGeometry {
    QRectF title, subtitle, plot, xTitle, yTitle, caveat, legend;
    ScatterFrame frame;
    bool valid = false;  // the head has a projection
};
QkMapGeometry qkMapGeometry(const QRectF& target, const QkMapModel& model, qkv::Index head,
                            const QFontMetricsF& metrics);

// The sentence under the map that says what distance on it is not: the scores are dot products
// in all d_k dimensions (equation 1), the map two directions of them.
QString qkDistanceCaveat(const QkMapModel& model, qkv::Index head);

// The token labels of the large map (qk_map_labels.hpp): every point's when there are few, else
// the query's and its strongest keys'; in priority order the selected query, the keys by its
// weights, the other queries. `note` counts the labels left out (drawn in the plot's corner).
struct QkMapLabels {
    QkLabelPlacement placement;
    QString note;  // "2 labels hidden · hover a point for its token", or empty
    QRectF noteRect;
};
inline constexpr double kQkMapMarker = 4.0;  // the large map's marker radius
QkMapLabels qkMapLabels(const QkMapGeometry& geometry, const QkMapModel& model, qkv::Index head, qkv::Index query,
                        const QFontMetricsF& metrics);

// The markers' legend: queries and keys side by side (one below the other when narrow), then
// what the lines mean, word-wrapped; each rectangle holds a marker and its words.
struct QkLegendLayout {
    QRectF queries, keys, lines;
    QString queriesText, keysText;  // "queries: target sentence", "keys: source sentence"
};
QString qkLinesText(const QkMapModel& model, qkv::Index query);
QkLegendLayout qkLegendLayout(const QRectF& rect, const QkMapModel& model, const QString& linesText,
                              const QFontMetricsF& metrics);
// The height the legend needs at `width`, for any selected query.
double qkLegendHeight(const QkMapModel& model, double width, const QFontMetricsF& metrics);

// The point under `position` (within a few pixels): a query or a key, or nothing.
struct QkPointHit {
    qkv::Index query = -1, key = -1;
};
QkPointHit qkPointAt(const QkMapGeometry& geometry, const QkMapModel& model, qkv::Index head, const QPointF& position);

struct QkHeadsGeometry {
    QRectF title, subtitle, legend;
    std::vector<QRectF> panels;  // per head: title and plot
    std::vector<QRectF> plots;
    std::vector<ScatterFrame> frames;  // valid where the head has a projection
    int headAt(const QPointF& point) const;
};
// withLegend false: the markers' legend is left out (the view shows it beside, under the large map).
QkHeadsGeometry qkHeadsGeometry(const QRectF& target, const QkMapModel& model, const QFontMetricsF& metrics,
                                bool withLegend = true);

// The head has a projection (else model.errors says why).
bool hasProjection(const QkMapModel& model, qkv::Index head);
// The figures' subtitles (they set how much room the titles take).
QString qkMapSubtitle(const QkMapModel& model, qkv::Index head);
QString qkHeadsSubtitle(const QkMapModel& model);
// "PC 1: 41.2 % of the variance".
QString varianceText(const qkv::QkProjection& projection, int axis);

void paintQkMap(QPainter& painter, const QRectF& target, const QkMapModel& model, const FigureOptions& options);
void paintQkMapHeads(QPainter& painter, const QRectF& target, const QkMapModel& model, const FigureOptions& options,
                     bool withLegend = true);

// The figures of the Q/K map view, for the figure registry: "qk-map" and "qk-map-heads".
std::vector<Figure> qkMapFigures();

}  // namespace qkv::ui
