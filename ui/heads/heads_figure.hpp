#pragma once
// The heads figure's data: one heatmap per head (queries on rows, keys on columns), an optional
// average of the heads (for value-weighted attention: the whole layer's norm), the title with the
// mode and shapes, axis titles naming the sentences, and the colour bar's quantity and range.
// The data (HeadsFigure) is separate from any widget; its grid layout and painting are
// heads_grid.hpp's, so the screen and exported PNG, SVG and PDF files are the same drawing.

#include <QImage>
#include <QStringList>

#include <memory>
#include <utility>
#include <vector>

#include "core/analysis/value_norms.hpp"
#include "core/pipeline/compute.hpp"
#include "core/session/session.hpp"
#include "ui/heads/score_kind.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/colormap.hpp"

namespace qkv::ui {

// What the figure shows of a result.
struct HeadsFigureSpec {
    ScoreKind kind = ScoreKind::Attention;
    // The mean of the heads' panels; for value-weighted attention the layer's own
    // N(q, j) = ||sum_i a^i_qj f_i(x_j)|| instead, since a norm of a sum is not a mean of norms.
    bool withAverage = false;
    // Automatic: weights and norms 0 to their 99th percentile (rounded up), scores +-their
    // largest magnitude; UnitInterval: 0 to 1 (scores -1 to 1, norms 0 to their largest,
    // rounded up); Fixed: [low, high].
    qkv::ColorRange colorRange;
    QStringList headTitles;  // "Head 1 · same meaning" per head; empty: "Head i"
    // A long layer (Result::streamed()) is drawn in blocks of positions (pooled_panels.hpp): each
    // block's largest weight when set, else its mean weight.
    bool blockMaxima = false;
};

// A value: copies share the (immutable) matrices and are independent otherwise.
class HeadsFigure {
public:
    HeadsFigure() = default;
    HeadsFigure(std::shared_ptr<const qkv::Result> result, const HeadsFigureSpec& spec);

    const std::shared_ptr<const qkv::Result>& result() const { return result_; }
    const HeadsFigureSpec& spec() const { return spec_; }
    ScoreKind kind() const { return spec_.kind; }
    bool hasAverage() const { return spec_.withAverage; }
    // Heads, plus one for the average (or the layer) when shown; 0 when the value-weighted
    // norms could not be computed (error()).
    int panelCount() const { return static_cast<int>(panels_.size()); }
    // Why there are no panels (core's message), or empty.
    const QString& error() const { return error_; }
    // Value-weighted attention: core's N_i and N this figure shows (value_norms_cache.hpp);
    // null for the other kinds.
    const qkv::ValueNorms* valueNorms() const { return valueNorms_.get(); }
    // The head a panel shows, or -1 for the average (or layer) panel.
    int headOfPanel(int panel) const;
    const qkv::MatrixF& panel(int panel) const { return *panels_[static_cast<std::size_t>(panel)]; }
    QString panelTitle(int panel) const;
    int rows() const;
    int columns() const;
    // A long layer's panels are blocks of positions (pooled_panels.hpp); a held one's cells are
    // positions. The conversions below are the identity then.
    bool pooled() const { return !rowEdges_.empty(); }
    int rowOfPosition(qkv::Index query) const;
    int columnOfPosition(qkv::Index key) const;
    qkv::Index positionOfRow(int row) const;  // the block's first position
    qkv::Index positionOfColumn(int column) const;
    // Positions [first, end) a row's (a column's) block holds: [row, row + 1) when held.
    std::pair<qkv::Index, qkv::Index> rowPositions(int row) const;
    std::pair<qkv::Index, qkv::Index> columnPositions(int column) const;
    const QStringList& rowLabels() const { return rowLabels_; }
    const QStringList& columnLabels() const { return columnLabels_; }
    double minValue() const { return minValue_; }
    double maxValue() const { return maxValue_; }
    // The colour bar's text: the quantity, the range and how it was chosen.
    QString legendLabel() const;
    // True when some values lie beyond the colour scale (drawn in its end colour).
    bool saturates() const { return saturates_; }
    // "Cross-attention · Attention weights · n_q = 7, n_k = 6 · d_model = 64, h = 4, d_k = 16"
    QString caption() const;
    QString rowAxisTitle() const;     // "queries: target sentence"
    QString columnAxisTitle() const;  // "keys and values: source sentence"
    // Colour image of a panel at matrix resolution (cached per colormap).
    const QImage& image(int panel, ColormapName colormap) const;
    // The same image averaged down to at most `pixels` (cached: repaints on hover stay cheap).
    const QImage& imageForPixels(int panel, ColormapName colormap, const QSize& pixels) const;
    // Makes every panel's image and its halvings (each the block means of the one before, down
    // to about 256 pixels), so that imageForPixels averages a few megapixels at most, not the
    // 16.8 million cells of a 4,096-token panel. For the work pool, before the figure is shown.
    // `shownPixels`: the panels' size on screen when known (the canvas's for a figure of the same
    // shape), whose reduced image is then made here too, off the GUI thread.
    // The panels are made side by side on idle threads of the work pool (work_pool.hpp).
    void prepareImages(ColormapName colormap, const QSize& shownPixels = {}) const;

private:
    void preparePanel(int panel, ColormapName colormap, const QSize& shownPixels) const;
    void chooseRange();

    std::shared_ptr<const qkv::Result> result_;
    HeadsFigureSpec spec_;
    // The result's own matrices (sharing its ownership) or the masked copies and the average:
    // no pointer into this object, so a copy of a figure is as valid as the original.
    std::vector<std::shared_ptr<const qkv::MatrixF>> panels_;
    std::shared_ptr<const qkv::ValueNorms> valueNorms_;
    QString error_;
    QStringList rowLabels_, columnLabels_;
    std::vector<qkv::Index> rowEdges_, columnEdges_;  // a long layer's blocks, else empty
    double minValue_ = 0, maxValue_ = 1;
    bool saturates_ = false;
    mutable std::vector<QImage> images_;
    mutable std::vector<QImage> reducedImages_;
    mutable std::vector<std::vector<QImage>> halvings_;  // per panel, largest first
    mutable ColormapName imagesColormap_ = ColormapName::Viridis;
};

}  // namespace qkv::ui
