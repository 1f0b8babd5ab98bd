#include "ui/circuits/copying_grid_figure.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/number_format.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/colormap.hpp"
#include "ui/render/heatmap_painter.hpp"
#include "ui/wholemodel/whole_model_figure_parts.hpp"

namespace qkv::ui {
namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::CopyingGrid)
};

constexpr double kLegendWidth = 90;

QString subtitleOf(const CopyingGridData& data)
{
    return Text::tr(
               "%1 · Σ Re λ / Σ |λ| over the eigenvalues of W_O W_U W_E W_V: +1 the head writes the tokens it "
               "attends to into the prediction, −1 it suppresses them")
        .arg(data.modelLine);
}

}  // namespace

CopyingGridLayout::CopyingGridLayout(const QRectF& rect, const CopyingGridData& data, const QFontMetricsF& metrics)
    : rows_(data.scores.rows()), columns_(data.scores.cols()), lineHeight_(metrics.height())
{
    title_ = QRectF(rect.left() + 8, rect.top() + 4, rect.width() - 16, lineHeight_ * 1.4);
    subtitle_ = QRectF(title_.left(), title_.bottom(), title_.width(),
                       wrappedTextRect(metrics, title_.width(), subtitleOf(data)).height() + 4);
    const double labelWidth = widestText(data.layerNames, metrics, 160) + lineHeight_ * 1.6 + 8;
    const QRectF body(rect.left() + 8 + labelWidth, subtitle_.bottom() + 6,
                      std::max(20.0, rect.width() - 16 - labelWidth - kLegendWidth - 12),
                      std::max(20.0, rect.bottom() - subtitle_.bottom() - 6 - lineHeight_ * 2.6));
    // Square cells where they fit, at most 150 px a side.
    const double side = std::min(
        {body.width() / std::max<qkv::Index>(1, columns_), body.height() / std::max<qkv::Index>(1, rows_), 150.0});
    cells_ = QRectF(body.left(), body.top(), side * static_cast<double>(columns_), side * static_cast<double>(rows_));
    legend_ = QRectF(cells_.right() + 16, cells_.top(), kLegendWidth - 16, std::max(cells_.height(), 160.0));
}

QRectF CopyingGridLayout::cell(qkv::Index layer, qkv::Index head) const
{
    const double w = cells_.width() / static_cast<double>(std::max<qkv::Index>(1, columns_));
    const double h = cells_.height() / static_cast<double>(std::max<qkv::Index>(1, rows_));
    return {cells_.left() + static_cast<double>(head) * w, cells_.top() + static_cast<double>(layer) * h, w, h};
}

qkv::ModelHead CopyingGridLayout::headAt(const QPointF& position) const
{
    if (!cells_.contains(position) || rows_ == 0 || columns_ == 0) return {-1, -1};
    const auto head =
        static_cast<qkv::Index>((position.x() - cells_.left()) / cells_.width() * static_cast<double>(columns_));
    const auto layer =
        static_cast<qkv::Index>((position.y() - cells_.top()) / cells_.height() * static_cast<double>(rows_));
    return {std::clamp<qkv::Index>(layer, 0, rows_ - 1), std::clamp<qkv::Index>(head, 0, columns_ - 1)};
}

namespace {

void paintAxes(QPainter& painter, const CopyingGridLayout& layout, const CopyingGridData& data, double lineHeight)
{
    const qkv::Index rows = data.scores.rows(), columns = data.scores.cols();
    for (qkv::Index l = 0; l < rows; ++l) {
        const QRectF cell = layout.cell(l, 0);
        painter.drawText(QRectF(layout.cells().left() - 208, cell.top(), 200, cell.height()),
                         Qt::AlignRight | Qt::AlignVCenter, data.layerNames.value(static_cast<int>(l)));
    }
    for (qkv::Index h = 0; h < columns; ++h) {
        const QRectF cell = layout.cell(rows - 1, h);
        painter.drawText(QRectF(cell.left(), cell.bottom() + 2, cell.width(), lineHeight), Qt::AlignCenter,
                         QString::number(h + 1));
    }
    painter.drawText(QRectF(layout.cells().left(), layout.cells().bottom() + lineHeight + 2, layout.cells().width(),
                            lineHeight * 1.2),
                     Qt::AlignCenter, Text::tr("head"));
    painter.save();
    painter.translate(layout.title().left(), layout.cells().center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-100, 0, 200, lineHeight * 1.2), Qt::AlignCenter, Text::tr("layer"));
    painter.restore();
}

void paintValues(QPainter& painter, const CopyingGridLayout& layout, const CopyingGridData& data)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const QRectF first = layout.cell(0, 0);
    if (first.width() < metrics.horizontalAdvance(QStringLiteral("−0.00")) + 4 || first.height() < metrics.height())
        return;
    for (qkv::Index l = 0; l < data.scores.rows(); ++l)
        for (qkv::Index h = 0; h < data.scores.cols(); ++h) {
            const double value = data.scores(l, h);
            if (!std::isfinite(value)) continue;
            // Dark text on the pale middle of the scale, white on its saturated ends.
            painter.setPen(std::abs(value) > 0.55 ? Qt::white : Qt::black);
            painter.drawText(layout.cell(l, h), Qt::AlignCenter,
                             QString::number(value, 'f', 2).replace('-', QChar(0x2212)));
        }
}

}  // namespace

void paintCopyingGrid(QPainter& painter, const QRectF& rect, const CopyingGridData& data, const FigureOptions& options,
                      qkv::ModelHead selected)
{
    painter.save();
    painter.setFont(options.font);
    const QFontMetricsF metrics(options.font, painter.device());
    const CopyingGridLayout layout(rect, data, metrics);
    paintFigureHeading(painter, layout.title(), layout.subtitle(), Text::tr("Copying score of every head"),
                       subtitleOf(data), options);
    if (data.scores.size() > 0) {
        const qkv::MatrixF values = data.scores.cast<float>();
        drawCellImage(painter, layout.cells(), heatmapImage(values, kDivergingColormap, -1.0, 1.0));
    }
    painter.setPen(options.text);
    paintAxes(painter, layout, data, metrics.height());
    paintValues(painter, layout, data);
    painter.setPen(options.text);
    paintColorLegend(painter, layout.legend(), kDivergingColormap, -1.0, 1.0, Text::tr("copying score"));
    if (options.showSelection && selected.layer >= 0) {
        painter.setPen(QPen(kSelectionColor, 2.5));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(layout.cell(selected.layer, selected.head).adjusted(1, 1, -1, -1));
    }
    painter.restore();
}

}  // namespace qkv::ui
