#pragma once
// One query's whole row, exact: the weights a_qj of one head over all n_k keys (paper equation
// (1)), recomputed from Q_i and K_j for a long layer (about 1 ms at 32,768 keys), which keeps no
// map, and the painter that draws them as a strip; or a span of queries' mean row, with the
// largest weight any of them puts on each key drawn as a line above it.
//
// The strip is narrower than n_k keys (32,768 keys on ~900 pixels), so each pixel shows the
// LARGEST weight of its keys (core/analysis/row_strip.hpp: the bins, the top keys, the masked
// runs; this file lays them out and paints them). The top keys are named (token, position,
// weight) and marked on the strip. Legend: n_k keys; positions from 0, heads from 1 where people
// read them.

#include <QColor>
#include <QFontMetricsF>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <utility>
#include <vector>

#include "core/analysis/row_strip.hpp"
#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/result/result.hpp"

class QPainter;

namespace qkv::ui {

struct RowStrip {
    int head = 0;         // from 0
    qkv::Index query = 0; // position; of a span, its first
    qkv::Index queryEnd = 1;  // a span's end (excluded): query + 1 for one query
    QString queryToken;
    // n_k: a_qj, exact; 0 where masked. Of a span, its mean row (core/analysis/span_row.hpp).
    std::vector<float> weights;
    std::vector<float> maxima;  // a span's largest weight per key over its queries; empty for one query
    std::vector<std::pair<qkv::Index, qkv::Index>> maskedRuns;  // [first, end) of masked keys
    std::vector<KeyWeight> top;  // the kTopKeys largest, largest first
    QStringList topTokens;       // their key tokens

    qkv::Index keyCount() const { return static_cast<qkv::Index>(weights.size()); }
};

// The row of queries [query, queryEnd) of head `head` (runs on a worker thread): one query's
// weights, or a span's mean row and maxima (spanAttentionRow: the held map, or recomputed for a
// long layer). Errors: spanAttentionRow's (a head or span outside the layer, a non-finite score).
qkv::Expected<RowStrip> computeRowStrip(const qkv::Result& result, int head, qkv::Index query,
                                        qkv::Index queryEnd);

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
    // The plot seen as `bins` equal columns, one per device pixel (maxPerPixel's bins): where
    // column `bin` starts, and the column under x (clamped inside), so a bar drawn and the bar
    // under the mouse are the same one even where a pixel holds keys by twos and threes.
    double xOfBin(qkv::Index bin, qkv::Index bins) const;
    qkv::Index binAt(double x, qkv::Index bins) const;
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
    QColor maxima = QColor(0x2a, 0x2a, 0x2a);  // a span's largest weights, a line
    QColor highlight = QColor(0xff, 0x8c, 0x00);  // the selected key
    QColor text = Qt::black;
    qkv::Index selectedKey = -1;
};

// Title, axes (titled, with position and weight ticks), the bars reduced per pixel by maximum,
// masked keys shaded, the top keys marked with their rank and named in the legend line.
void paintRowStrip(QPainter& painter, const QRectF& target, const RowStrip& strip, const RowStripStyle& style);

}  // namespace qkv::ui
