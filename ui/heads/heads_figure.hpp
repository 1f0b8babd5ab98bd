#pragma once
// The heads figure: one heatmap per head (queries on rows, keys on columns), an optional
// average of the heads, a shared colour legend and a caption. The data (HeadsFigure), the grid
// layout and the painting are separate from any widget, so the screen and exported PNG, SVG
// and PDF files are the same drawing.

#include <QColor>
#include <QFontMetricsF>
#include <QImage>
#include <QPoint>
#include <QRectF>
#include <QStringList>

#include <memory>
#include <vector>

#include "core/pipeline/compute.hpp"
#include "ui/heads/score_kind.hpp"
#include "ui/render/colormap.hpp"
#include "ui/render/heatmap_style.hpp"

class QPainter;

namespace qkv::ui {

// A value: copies share the (immutable) matrices and are independent otherwise.
class HeadsFigure {
public:
    HeadsFigure() = default;
    HeadsFigure(std::shared_ptr<const qkv::Result> result, ScoreKind kind, bool withAverage);

    const std::shared_ptr<const qkv::Result>& result() const { return result_; }
    ScoreKind kind() const { return kind_; }
    bool hasAverage() const { return withAverage_; }
    // Heads, plus one for the average when shown.
    int panelCount() const { return static_cast<int>(panels_.size()); }
    // The head a panel shows, or -1 for the average panel.
    int headOfPanel(int panel) const;
    const qkv::MatrixF& panel(int panel) const { return *panels_[static_cast<std::size_t>(panel)]; }
    QString panelTitle(int panel) const;
    // What each head is ("same meaning", "edited"), shown as "Head 1 · same meaning"; from the
    // document (ui/document/session_text.hpp). Empty entries keep "Head i".
    void setHeadTitles(QStringList titles) { headTitles_ = std::move(titles); }
    int rows() const;
    int columns() const;
    const QStringList& rowLabels() const { return rowLabels_; }
    const QStringList& columnLabels() const { return columnLabels_; }
    double minValue() const { return minValue_; }
    double maxValue() const { return maxValue_; }
    QString legendLabel() const;
    // True when some values lie beyond the colour scale (drawn in its end colour).
    bool saturates() const { return saturates_; }
    QString caption() const;
    // Colour image of a panel at matrix resolution (cached per colormap).
    const QImage& image(int panel, ColormapName colormap) const;
    // The same image averaged down to at most `pixels` (cached: repaints on hover stay cheap).
    const QImage& imageForPixels(int panel, ColormapName colormap, const QSize& pixels) const;

private:
    std::shared_ptr<const qkv::Result> result_;
    ScoreKind kind_ = ScoreKind::Attention;
    bool withAverage_ = false;
    // The result's own matrices (sharing its ownership) or the masked copies and the average:
    // no pointer into this object, so a copy of a figure is as valid as the original.
    std::vector<std::shared_ptr<const qkv::MatrixF>> panels_;
    QStringList rowLabels_, columnLabels_;
    QStringList headTitles_;
    double minValue_ = 0, maxValue_ = 1;
    bool saturates_ = false;
    mutable std::vector<QImage> images_;
    mutable std::vector<QImage> reducedImages_;
    mutable ColormapName imagesColormap_ = ColormapName::Viridis;
};

// What changes from frame to frame without changing the data.
struct HeadsFigureState {
    ColormapName colormap = ColormapName::Viridis;
    int selectedPanel = -1;
    int highlightedRow = -1;        // in every panel
    int highlightedPanel = -1;      // the panel of highlightedCell
    QPoint highlightedCell{-1, -1}; // (column, row)
    QColor background = Qt::white;
    QColor text = Qt::black;
    QColor selection = QColor(0x30, 0x8c, 0xc6);
};

struct HeadsGridLayout {
    QRectF caption, legend;
    std::vector<QRectF> panels;
    QSizeF size;  // the whole figure
    double cellSize = 0;
    int columns = 1;
};

// Lays the panels out in `available` (the viewport): zoom 1 fits every head without
// scrolling when the cells stay readable, else the figure grows and the caller scrolls.
HeadsGridLayout layoutHeadsGrid(const HeadsFigure& figure, const QSizeF& available, double zoom,
                                const QFontMetricsF& metrics);

// The heatmap style of one panel (labels, title, range, highlights) in `state`.
HeatmapStyle panelStyle(const HeadsFigure& figure, int panel, const HeadsFigureState& state);

void paintHeadsFigure(QPainter& painter, const HeadsFigure& figure, const HeadsGridLayout& layout,
                      const HeadsFigureState& state);

}  // namespace qkv::ui
