#include "ui/patching/patch_grid_figure.hpp"

#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/text_layout.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/heatmap_painter.hpp"
#include "ui/wholemodel/whole_model_figure_parts.hpp"

namespace qkv::ui {
namespace {

constexpr double kLegendWidth = 96;
constexpr double kMaxCell = 120;

// Column labels stand upright under narrow cells (tokens of a long prompt), level under wide ones.
bool uprightColumns(double cellWidth, const QStringList& labels, const QFontMetricsF& metrics)
{
    return widestText(labels, metrics, 400) + 4 > cellWidth;
}

}  // namespace

double symmetricRange(const qkv::MatrixD& values)
{
    double m = 1.0;
    for (qkv::Index i = 0; i < values.size(); ++i)
        if (std::isfinite(values.data()[i])) m = std::max(m, std::abs(values.data()[i]));
    return m;
}

PatchGridLayout::PatchGridLayout(const QRectF& rect, const PatchGridData& data, const QFontMetricsF& metrics)
    : rows_(static_cast<int>(data.values.rows())), columns_(static_cast<int>(data.values.cols())),
      lineHeight_(metrics.height())
{
    title_ = QRectF(rect.left() + 8, rect.top() + 4, rect.width() - 16, lineHeight_ * 1.4);
    subtitle_ = QRectF(title_.left(), title_.bottom(), title_.width(),
                       data.subtitle.isEmpty() ? 0.0 : wrappedTextRect(metrics, title_.width(), data.subtitle).height() + 4);
    rowLabelWidth_ = widestText(data.rowLabels, metrics, 160) + 6;
    const double left = rect.left() + 8 + lineHeight_ * 1.4 + rowLabelWidth_;
    const double width = std::max(20.0, rect.right() - 8 - kLegendWidth - 12 - left);
    // First guess of the cell width decides whether the column labels stand upright.
    const double guess = width / std::max(1, columns_);
    const double columnLabels =
        uprightColumns(guess, data.columnLabels, metrics) ? widestText(data.columnLabels, metrics, 140) + 6 : lineHeight_ + 4;
    const double top = subtitle_.bottom() + 6;
    const double height = std::max(20.0, rect.bottom() - top - columnLabels - lineHeight_ * 1.5 - 4);
    const double cellWidth = std::min(width / std::max(1, columns_), kMaxCell * 1.6);
    const double cellHeight = std::min(height / std::max(1, rows_), kMaxCell);
    cells_ = QRectF(left, top, cellWidth * columns_, cellHeight * rows_);
    legend_ = QRectF(cells_.right() + 16, cells_.top(), kLegendWidth - 16, std::max(cells_.height(), 150.0));
}

QRectF PatchGridLayout::cell(int row, int column) const
{
    const double w = cells_.width() / std::max(1, columns_);
    const double h = cells_.height() / std::max(1, rows_);
    return {cells_.left() + column * w, cells_.top() + row * h, w, h};
}

TableCell PatchGridLayout::cellAt(const QPointF& position) const
{
    if (!cells_.contains(position) || rows_ == 0 || columns_ == 0) return {};
    const int column = static_cast<int>((position.x() - cells_.left()) / cells_.width() * columns_);
    const int row = static_cast<int>((position.y() - cells_.top()) / cells_.height() * rows_);
    return {std::clamp(row, 0, rows_ - 1), std::clamp(column, 0, columns_ - 1)};
}

namespace {

void paintRowLabels(QPainter& painter, const PatchGridLayout& layout, const PatchGridData& data)
{
    for (int r = 0; r < data.values.rows(); ++r) {
        const QRectF cell = layout.cell(r, 0);
        drawFittedText(painter, QRectF(cell.left() - layout.rowLabelWidth() - 2, cell.top(), layout.rowLabelWidth(), cell.height()),
                       Qt::AlignRight | Qt::AlignVCenter, painter.font(), data.rowLabels.value(r));
    }
    painter.save();
    painter.translate(layout.cells().left() - layout.rowLabelWidth() - layout.lineHeight() * 1.3, layout.cells().center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-layout.cells().height() / 2 - 60, 0, layout.cells().height() + 120, layout.lineHeight() * 1.2),
                     Qt::AlignCenter, data.rowAxis);
    painter.restore();
}

// The tokens that differ: bold and underlined, in the emphasis colour.
double paintColumnLabels(QPainter& painter, const PatchGridLayout& layout, const PatchGridData& data,
                         const FigureOptions& options)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const int rows = static_cast<int>(data.values.rows());
    const bool upright = uprightColumns(layout.cell(0, 0).width(), data.columnLabels, metrics);
    const double labelHeight = upright ? widestText(data.columnLabels, metrics, 140) + 6 : metrics.height() + 4;
    for (int c = 0; c < data.values.cols(); ++c) {
        const QRectF cell = layout.cell(std::max(0, rows - 1), c);
        const bool marked = c < static_cast<int>(data.markedColumns.size()) && data.markedColumns[static_cast<std::size_t>(c)];
        QFont font = painter.font();
        font.setBold(marked);
        font.setUnderline(marked);
        painter.save();
        painter.setFont(font);
        if (marked) painter.setPen(emphasisColor(options));
        const QString label = data.columnLabels.value(c);
        if (upright) {
            painter.translate(cell.center().x(), cell.bottom() + 3);
            painter.rotate(-90);
            drawFittedText(painter, QRectF(-labelHeight, -cell.width() / 2, labelHeight, cell.width()),
                           Qt::AlignRight | Qt::AlignVCenter, font, label);
        } else {
            drawFittedText(painter, QRectF(cell.left(), cell.bottom() + 2, cell.width(), metrics.height()), Qt::AlignCenter,
                           font, label);
        }
        painter.restore();
    }
    const double y = layout.cells().bottom() + labelHeight + 2;
    painter.drawText(QRectF(layout.cells().left() - 60, y, layout.cells().width() + 120, metrics.height() * 1.2),
                     Qt::AlignCenter, data.columnAxis);
    return labelHeight;
}

void paintCellTexts(QPainter& painter, const PatchGridLayout& layout, const PatchGridData& data)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const QRectF first = layout.cell(0, 0);
    const bool numbers = data.cellTexts.isEmpty();
    // Numbers shrink to fit (drawFittedText, down to 6 pt): printed while a cell has about half
    // their width at the base size.
    if (numbers && (first.width() < metrics.horizontalAdvance(QStringLiteral("−0.00")) * 0.55 || first.height() < metrics.height()))
        return;
    if (!numbers && first.height() < metrics.height() * 0.8) return;
    const double span = data.high - data.low;
    for (int r = 0; r < data.values.rows(); ++r)
        for (int c = 0; c < data.values.cols(); ++c) {
            const double value = data.values(r, c);
            if (!std::isfinite(value)) continue;
            // Dark text on the pale middle of a diverging scale, white on its saturated ends; on a
            // sequential scale (dark at its low end) white below the middle.
            const double t = span > 0 ? (value - data.low) / span : 0.5;
            const bool dark = Colormap::get(data.colormap).isDiverging() ? std::abs(t - 0.5) > 0.3 : t < 0.55;
            painter.setPen(dark ? Qt::white : Qt::black);
            const QString text = numbers ? QString::number(value, 'f', 2).replace('-', QChar(0x2212))
                                         : data.cellTexts.value(r * static_cast<int>(data.values.cols()) + c);
            drawFittedText(painter, layout.cell(r, c).adjusted(2, 0, -2, 0), Qt::AlignCenter, painter.font(), text);
        }
}

}  // namespace

void paintPatchGrid(QPainter& painter, const QRectF& rect, const PatchGridData& data, const FigureOptions& options,
                    TableCell selected)
{
    painter.save();
    painter.setFont(options.font);
    const QFontMetricsF metrics(options.font, painter.device());
    const PatchGridLayout layout(rect, data, metrics);
    paintFigureHeading(painter, layout.title(), layout.subtitle(), data.title, data.subtitle, options);
    painter.setFont(options.font);
    if (data.values.size() > 0) {
        const qkv::MatrixF values = data.values.cast<float>();
        drawCellImage(painter, layout.cells(), heatmapImage(values, data.colormap, data.low, data.high));
    }
    painter.setPen(options.text);
    paintRowLabels(painter, layout, data);
    paintColumnLabels(painter, layout, data, options);
    paintCellTexts(painter, layout, data);
    painter.setPen(options.text);
    paintColorLegend(painter, layout.legend(), data.colormap, data.low, data.high, data.legendLabel);
    if (options.showSelection && selected.valid() && selected.row < data.values.rows() && selected.column < data.values.cols()) {
        painter.setPen(QPen(kSelectionColor, 2.5));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(layout.cell(selected.row, selected.column).adjusted(1, 1, -1, -1));
    }
    painter.restore();
}

}  // namespace qkv::ui
