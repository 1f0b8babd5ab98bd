#pragma once
// One labelled grid, the drawing the patching page and its figures share: rows x columns cells
// coloured by value (a diverging scale centred on 0 for recovered fractions, a sequential one for
// probabilities), row and column labels, both axes titled, a colour bar with its quantity, each
// cell's number (or its own text, such as the logit lens's top token) where it has room, and the
// columns named in `markedColumns` (the tokens that differ between the prompts) in bold,
// underlined. Widget-free, in logical units: the screen, PNG, SVG, PDF and `qkv-studio figure`
// call the same painter.

#include <QFontMetricsF>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <vector>

#include "core/common/matrix.hpp"
#include "ui/accessibility/cell_table.hpp"
#include "ui/figures/figure.hpp"
#include "ui/render/colormap.hpp"

class QPainter;

namespace qkv::ui {

struct PatchGridData {
    QString title;
    QString subtitle;
    qkv::MatrixD values;            // rows x columns; NaN: not computed (yet)
    QStringList rowLabels;          // one per row
    QStringList columnLabels;       // one per column
    QString rowAxis, columnAxis;    // the axes' titles
    QString legendLabel;            // the colour bar's quantity
    std::vector<bool> markedColumns;  // empty, or one per column
    QStringList cellTexts;          // row-major texts drawn instead of the numbers (empty: numbers)
    ColormapName colormap = kDivergingColormap;
    double low = -1.0, high = 1.0;  // the colour range
};

// The symmetric range a diverging grid is drawn over: [-m, m] with m = max(1, max |v|).
double symmetricRange(const qkv::MatrixD& values);

// Where everything goes in `rect`; the screen's hit tests use the painter's own geometry.
class PatchGridLayout {
public:
    PatchGridLayout(const QRectF& rect, const PatchGridData& data, const QFontMetricsF& metrics);
    QRectF cell(int row, int column) const;
    // The cell under `position` (invalid: none).
    TableCell cellAt(const QPointF& position) const;
    const QRectF& cells() const { return cells_; }
    const QRectF& legend() const { return legend_; }
    const QRectF& title() const { return title_; }
    const QRectF& subtitle() const { return subtitle_; }
    double rowLabelWidth() const { return rowLabelWidth_; }
    double lineHeight() const { return lineHeight_; }

private:
    int rows_ = 0, columns_ = 0;
    QRectF title_, subtitle_, cells_, legend_;
    double lineHeight_ = 0, rowLabelWidth_ = 0;
};

// `selected`: outlined when options.showSelection.
void paintPatchGrid(QPainter& painter, const QRectF& rect, const PatchGridData& data, const FigureOptions& options,
                    TableCell selected = {});

}  // namespace qkv::ui
