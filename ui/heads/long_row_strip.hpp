#pragma once
// One query's whole row of a long (streamed) layer, exact: the weights a_qj of one head over all
// n_k keys (paper equation (1)), recomputed from Q_i and K_j (headAttentionRegion, about 1 ms at
// 32,768 keys), and the painter that draws them as a strip. A streamed Result keeps no map, so
// this is the only exact view of a row.
//
// The strip is narrower than n_k keys (32,768 keys on ~900 pixels), so each pixel shows the
// LARGEST weight of its keys: one sharp key stays as tall as it is, where a mean would flatten it
// by the ~36 keys it shares a pixel with. The top keys are named (token, position, weight) and
// marked on the strip. Legend: n_k keys; positions from 0, heads from 1 where people read them.

#include <QColor>
#include <QFontMetricsF>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <span>
#include <utility>
#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/result/result.hpp"

class QPainter;

namespace qkv::ui {

inline constexpr int kTopKeys = 5;

struct KeyWeight {
    qkv::Index key = 0;
    float weight = 0;
};

// The `count` largest weights of `row`, largest first; of equal weights the lower position first.
std::vector<KeyWeight> topKeys(std::span<const float> row, int count);

// `row` seen through `pixels` pixels: bins as equal as the sizes allow (core's blockEdges), each
// the largest weight of its keys; one bin per key when there are at least as many pixels as keys.
struct PixelMaxima {
    std::vector<qkv::Index> edges;  // bins + 1: bin b covers keys [edges[b], edges[b + 1])
    std::vector<float> maxima;      // bins
};
PixelMaxima maxPerPixel(std::span<const float> row, qkv::Index pixels);

// Keys [first, end): those drawn in the same pixel as `key` when `keyCount` keys are reduced to
// `pixels` pixels (maxPerPixel's bins).
std::pair<qkv::Index, qkv::Index> keysSharingPixel(qkv::Index keyCount, qkv::Index pixels, qkv::Index key);

// The key of the largest weight among keys [first, end) of `row` (the lowest of equals).
qkv::Index largestKey(std::span<const float> row, qkv::Index first, qkv::Index end);

struct RowStrip {
    int head = 0;         // from 0
    qkv::Index query = 0; // position
    QString queryToken;
    std::vector<float> weights;  // n_k: a_qj, exact; 0 where masked (headAttentionRegion's)
    std::vector<std::pair<qkv::Index, qkv::Index>> maskedRuns;  // [first, end) of masked keys
    std::vector<KeyWeight> top;  // the kTopKeys largest, largest first
    QStringList topTokens;       // their key tokens

    qkv::Index keyCount() const { return static_cast<qkv::Index>(weights.size()); }
};

// Query `query`'s row of head `head` of a streamed Result (runs on a worker thread). Errors:
// headAttentionRegion's (a head or position outside the layer, a non-finite score).
qkv::Expected<RowStrip> computeRowStrip(const qkv::Result& result, int head, qkv::Index query);

// "Head 3 · query 20,001 “token”: its whole row, exact (32,768 keys)".
QString rowStripTitle(const RowStrip& strip);
// The exact weight of `key`, and when a pixel shows keys [first, end), that it is their largest.
QString rowStripToolTip(const RowStrip& strip, const std::vector<std::string>& keyLabels, qkv::Index key,
                        qkv::Index first, qkv::Index end);

// Where the parts of a strip go inside a rectangle: shared by the painter and the widget's hit
// tests, so a click lands on the key drawn under it.
class RowStripLayout {
public:
    RowStripLayout() = default;
    RowStripLayout(const QRectF& target, const RowStrip& strip, const QFontMetricsF& metrics);

    QRectF titleRect() const { return title_; }
    QRectF plotRect() const { return plot_; }      // the bars: keys along x, weight up
    QRectF legendRect() const { return legend_; }  // the top keys, a column at the right
    // The left edge of key `key` (n_k keys over the plot's width).
    double xOfKey(qkv::Index key) const;
    // The key under x inside the plot, or -1.
    qkv::Index keyAt(double x) const;
    // The top key (an index into RowStrip::top) whose legend entry is under `point`, or -1.
    int legendEntryAt(const QPointF& point) const;
    const std::vector<QRectF>& legendEntries() const { return entries_; }
    const QStringList& legendTexts() const { return texts_; }

private:
    QRectF title_, plot_, legend_;
    qkv::Index keys_ = 0;
    std::vector<QRectF> entries_;
    QStringList texts_;
};

struct RowStripStyle {
    QColor bars = QColor(0x30, 0x5f, 0xa8);
    QColor topBars = QColor(0xd6, 0x3a, 0x1e);
    QColor highlight = QColor(0xff, 0x8c, 0x00);  // the selected key
    QColor text = Qt::black;
    qkv::Index selectedKey = -1;
};

// Title, axes (titled, with position and weight ticks), the bars reduced per pixel by maximum,
// masked keys shaded, the top keys marked with their rank and named in the legend line.
void paintRowStrip(QPainter& painter, const QRectF& target, const RowStrip& strip, const RowStripStyle& style);

}  // namespace qkv::ui
