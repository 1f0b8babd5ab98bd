#pragma once
// The Model tab's grid: every attention layer (rows, model order) by every head (columns), each
// head's map for the typed sentence as a small heatmap (BertViz's model view, drawn as one
// figure). Widget-free: the screen, export and `qkv-studio figure --figure model` paint it, and
// the view hit-tests with the same layout.
//
// Token labels, as BertViz's model view has them, where there is room: each layer's query tokens
// in a band left of its first map, its key tokens (turned) in a band under its maps; every token
// when the cells are a line high, else every k-th, never two overlapping. The row labels say the
// layer's index and kind and, for a model with sliding layers, its window ("sliding 4096"): left
// of the row, or on a line above it when the width is short and the maps gain the labels' room.
//
// Each map keeps square cells inside its square thumbnail. A thumbnail with at least one device
// pixel per cell is drawn cell by cell (nearest, no blur); a smaller one shows the block means of
// the map (core/analysis/map_pooling.hpp), one per device pixel. The view's "One pixel per cell"
// asks for thumbnails as large as the largest map instead (minimumThumbnail), and scrolls.

#include <QFontMetricsF>
#include <QRectF>
#include <QStringList>

#include "core/pipeline/model_overview.hpp"
#include "ui/figures/figure.hpp"

class QPainter;

namespace qkv::ui {

// Where everything goes for L layers x h heads in a target rectangle (logical units).
class ModelGridLayout {
public:
    ModelGridLayout() = default;
    // `minimumThumbnail`: the smallest thumbnail side (0: fit the target); the layout may then
    // be larger than the target (size()).
    ModelGridLayout(const QRectF& target, const qkv::ModelOverview& overview, const QFontMetricsF& metrics,
                    double minimumThumbnail = 0);

    int layers() const { return layers_; }
    int heads() const { return heads_; }
    double thumbnailSide() const { return side_; }
    // The whole figure's size (at least the target's).
    QSizeF size() const { return size_; }
    QRectF titleRect() const { return title_; }
    QRectF subtitleRect() const { return subtitle_; }
    QRectF legendRect() const { return legend_; }
    QRectF noteRect() const { return note_; }
    QRectF headAxisTitleRect() const { return headAxis_; }
    QRectF layerAxisTitleRect() const { return layerAxis_; }
    QRectF headLabelRect(int head) const;
    QRectF layerLabelRect(int layer) const;
    // Whether the maps have their tokens written beside them, and where: the band left of the
    // layer's first map (query tokens, right-aligned) and the band under a map (key tokens, turned).
    bool showsTokens() const { return tokenBand_ > 0; }
    // Whether each row's label is a line above its maps (a narrow grid) rather than left of them;
    // the layer axis title is then empty.
    bool labelsAboveRows() const { return rowTop_ > 0; }
    QRectF queryTokenRect(int layer) const;
    QRectF keyTokenRect(int layer, int head) const;
    QRectF thumbnail(int layer, int head) const;
    // The map's rectangle inside its thumbnail: square cells, centred (n_q rows, n_k columns).
    QRectF mapRect(int layer, int head, qkv::Index queries, qkv::Index keys) const;

    // (layer, head) of the thumbnail under `point`, or (-1, -1).
    qkv::ModelHead headAt(const QPointF& point) const;

private:
    int layers_ = 0, heads_ = 0;
    double side_ = 0, gap_ = 0;
    QPointF origin_;  // top left of the first thumbnail
    double labelWidth_ = 0, labelHeight_ = 0;
    double tokenBand_ = 0;
    double rowTop_ = 0;     // the height of the label line above each row (0: labels left of the rows)
    double gridWidth_ = 0;  // the maps' and query tokens' width  // the width of a query band and the height of a key band (0: no tokens)
    QSizeF size_;
    QRectF title_, subtitle_, legend_, note_, headAxis_, layerAxis_;
};

// A layer's maps' shape: n_q rows (queries) and n_k columns (keys); 0 x 0 without heads.
struct MapShape {
    qkv::Index queries = 0, keys = 0;
};
MapShape mapShape(const qkv::ModelOverview& overview, qkv::Index layer);

// The cell (query, key) of the head's map under `point`, or (-1, -1) outside the map.
QPoint mapCellAt(const ModelGridLayout& layout, const qkv::ModelOverview& overview, qkv::ModelHead head,
                 const QPointF& point);

// The map a thumbnail shows: attention weights, or the value-weighted norms
// (options.valueWeighted; empty when the overview has none).
const qkv::MatrixF* shownMap(const qkv::ModelOverview& overview, qkv::ModelHead head, const FigureOptions& options);

// Which of n tokens a side of `length` logical units labels, a label `line` high each: every one
// when each cell is at least a line, else every k-th (0, k, 2k, ...) so that no two overlap.
QList<int> labelledTokens(qkv::Index n, double length, double line);

// Paints the grid. With options.showSelection, the layer the document shows (result's
// wholeModelLayer) and the selected head (options.head) are outlined.
void paintModelGrid(QPainter& painter, const QRectF& target, const FigureInput& input, double minimumThumbnail = 0);
// The height the grid of `input` takes at `width` (logical pixels, 96 dpi), its thumbnails as
// wide as the width allows: an export's default height, with no band left blank.
double modelGridHeight(const FigureInput& input, double width);

}  // namespace qkv::ui
