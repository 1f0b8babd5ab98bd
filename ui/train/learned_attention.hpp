#pragma once
// One variant's learned attention in one layer on the shown held-out example: every head as a
// small heatmap labelled with the example's tokens, under a title and over one colour bar. The
// scale is fixed (0 to 1) so that one step compares with the next while the model learns.
// What the rows and columns are (the caption) is said once beside the pictures, not in each.
// Painted by the app's one heatmap renderer (ui/render/heatmap_painter.hpp); no widget here.

#include <QColor>
#include <QFontMetricsF>
#include <QPointF>
#include <QRectF>
#include <QStringList>

#include <vector>

#include "core/common/matrix.hpp"
#include "ui/render/colormap.hpp"
#include "ui/train/training_snapshot.hpp"

class QPainter;

namespace qkv::ui {

struct LearnedAttention {
    QString title;                   // "Factored W_i^Q, W_i^K · step 1,200"
    QString shortTitle;              // "factored · step 1,200"
    std::vector<qkv::MatrixF> heads;  // h matrices, n_q x n_k, rows sum to 1
    QStringList headTitles;          // "Head 1 · 97% aligned"
    QStringList shortHeadTitles;     // "1 · 97%", where the long one has no room
    QStringList rowLabels, columnLabels;  // the example's tokens
    QString caption;                 // what the rows and columns are (said beside the picture)
    QString scoreKey;                // what the number in a head's title measures; empty: no number
    ColormapName colormap = ColormapName::Viridis;
};

// Variant `variant` of `snapshot`, attention layer `layer` (attentionLayers order).
LearnedAttention learnedAttention(const TrainingSnapshot& snapshot, std::size_t variant, qkv::Index layer);

struct LearnedAttentionLayout {
    QRectF title, legend;
    QRectF key;  // above the legend: what a head's number means (empty without scores)
    std::vector<QRectF> panels;  // one per head
    // The tokens label the cells unless that would leave them under a few pixels (then the
    // tooltip names them); each head's title, long or short, as fits its panel.
    bool labels = true;
    QStringList headTitles;
    QString titleText;  // the title, or the short one where it has no room
};
LearnedAttentionLayout layoutLearnedAttention(const LearnedAttention& attention, const QRectF& target,
                                              const QFontMetricsF& metrics);

void paintLearnedAttention(QPainter& painter, const QRectF& target, const LearnedAttention& attention,
                           const QColor& text);

// HTML for the point `position` of the picture in `target` (a cell: its head, query, key and
// weight), its data escaped; empty elsewhere.
QString learnedAttentionToolTip(const LearnedAttention& attention, const QRectF& target,
                                const QFontMetricsF& metrics, const QPointF& position);

}  // namespace qkv::ui
