#pragma once
// The token labels of the large Q/K map, placed so that none is cut at the plot's edge or lies
// on another. Labels are placed greedily in priority order (the caller's: the selected query,
// then the keys by the weight it gives them, then the other queries): each tries spots around
// its point (right, left, above, below, the corners), then farther out with a leader line back
// to the point; a label with no free spot inside the plot is left out and counted, and the
// figure says how many ("3 labels hidden · hover a point for its token").

#include <QFontMetricsF>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <vector>

namespace qkv::ui {

struct QkLabelCandidate {
    QString text;
    QPointF anchor;  // the point it names, in page coordinates
    bool query = false;
};

struct QkLabel {
    QString text;
    QRectF rect;  // the text's box: inside the plot, apart from every other label
    QPointF anchor;
    bool query = false;
    bool leader = false;  // placed away from its point: a thin line joins them
};

struct QkLabelPlacement {
    std::vector<QkLabel> labels;
    int hidden = 0;  // candidates with no free spot
};

// `obstacles`: boxes no label may cover (the markers, the note that counts the hidden labels).
QkLabelPlacement placeQkLabels(const std::vector<QkLabelCandidate>& candidates, const QRectF& plot, double marker,
                               const QFontMetricsF& metrics, const std::vector<QRectF>& obstacles = {});

}  // namespace qkv::ui
