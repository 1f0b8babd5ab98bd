// The fused layout figure (factored_figures.hpp): the whole W^Q with each head's column block
// outlined, the selected head emphasised.
#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

#include "ui/factored/factored_figure_helpers.hpp"
#include "ui/factored/factored_figures.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {

using namespace factored_figure;

namespace {

QString fusedTitle(const FactoredHeadModel& model)
{
    return Text::tr("Fused layout: one W^Q (%1 × %2) split into h = %3 heads of d_k = %4 columns")
        .arg(model.d_model)
        .arg(model.headCount * model.d_k)
        .arg(model.headCount)
        .arg(model.d_k);
}

// The heads' colour ranges in words: each one for a few heads, the smallest and largest for many.
QString rangesSentence(const std::vector<double>& ranges)
{
    if (ranges.empty()) return {};
    const auto range = [&](std::size_t i) { return Text::tr("head %1 ±%2").arg(i + 1).arg(readableNumber(ranges[i])); };
    QStringList parts;
    if (ranges.size() <= 8) {
        for (std::size_t i = 0; i < ranges.size(); ++i) parts << range(i);
    } else {
        const auto [low, high] = std::minmax_element(ranges.begin(), ranges.end());
        parts << Text::tr("from %1 to %2")
                     .arg(range(static_cast<std::size_t>(low - ranges.begin())),
                          range(static_cast<std::size_t>(high - ranges.begin())));
    }
    return Text::tr(
               "Each head's block has its own colour range, ±its largest |w|, so a head of small weights "
               "stays visible: %1.")
        .arg(parts.join(QStringLiteral(" · ")));
}

QString fusedCaption(const FactoredHeadModel& model)
{
    return Text::tr(
               "Rows: the d_model = %1 input features. Columns: head i owns [(i−1)·d_k, i·d_k); head %2 (outlined) is "
               "columns %3–%4 (from 0). Changing h re-partitions the same matrix. %5")
        .arg(model.d_model)
        .arg(model.head + 1)
        .arg(model.head * model.d_k)
        .arg((model.head + 1) * model.d_k - 1)
        .arg(rangesSentence(headColorRanges(model)));
}

}  // namespace

// ---- the fused layout -----------------------------------------------------------------

std::vector<std::pair<Index, Index>> headColumnPartition(Index queryWidth, Index headCount)
{
    std::vector<std::pair<Index, Index>> blocks;
    if (headCount < 1 || queryWidth < 1 || queryWidth % headCount != 0) return blocks;
    const Index d_k = queryWidth / headCount;
    for (Index i = 0; i < headCount; ++i) blocks.emplace_back(i * d_k, d_k);  // W_i^Q = W^Q[:, i*d_k : (i+1)*d_k]
    return blocks;
}

std::vector<QRectF> headBlockOutlines(const QRectF& cells, Index queryWidth, Index headCount)
{
    std::vector<QRectF> outlines;
    const double scale = queryWidth > 0 ? cells.width() / static_cast<double>(queryWidth) : 0.0;
    for (const auto& [first, width] : headColumnPartition(queryWidth, headCount)) {
        outlines.emplace_back(cells.left() + static_cast<double>(first) * scale, cells.top(),
                              static_cast<double>(width) * scale, cells.height());
    }
    return outlines;
}

std::vector<double> headColorRanges(const FactoredHeadModel& model)
{
    std::vector<double> ranges;
    for (const double largest : model.headLargestQueryWeights) ranges.push_back(symmetricRange(largest));
    return ranges;
}

double fusedLayoutWork(const FactoredHeadModel& model)
{
    // Every entry of W^Q (d_model x h d_k) is copied and summed into its cell's block mean.
    const double d = static_cast<double>(model.d_model), width = static_cast<double>(model.headCount * model.d_k);
    return model.valid() ? 2.0 * d * width : 0.0;
}

FusedLayoutGeometry fusedLayoutGeometry(const QRectF& target, const QFontMetricsF& metrics,
                                        const FactoredHeadModel& model)
{
    FusedLayoutGeometry g;
    const double line = metrics.height();
    // Bold titles are ~10 % wider: measured with room to spare.
    const double titleBand = wrappedTextRect(metrics, target.width() / 1.2, fusedTitle(model)).height() * 1.1 + kGap;
    const double headLabels = line + 4;
    const double caption = wrappedTextRect(metrics, target.width(), fusedCaption(model)).height() + kGap;
    const double legendWidth = verticalLegendWidth(metrics, QStringLiteral("−0.125"));
    const double availableWidth = target.width() - legendWidth - 3 * kGap;
    const double availableHeight = target.height() - titleBand - headLabels - caption;
    // W^Q is d_model rows by h d_k columns: square when d_k = d_model / h, wider or narrower
    // when the heads have their own width. Cells keep that aspect.
    const Index queryWidth = std::max<Index>(1, model.headCount * model.d_k);
    const double aspect = static_cast<double>(queryWidth) / static_cast<double>(std::max<Index>(1, model.d_model));
    double height = std::max(8.0, std::min(availableHeight, availableWidth / aspect));
    g.rowBins = std::clamp<Index>(static_cast<Index>(std::floor(height)), 1, std::max<Index>(1, model.d_model));
    height = std::floor(height / static_cast<double>(g.rowBins)) * static_cast<double>(g.rowBins);
    height = std::max(height, static_cast<double>(g.rowBins));
    const double width = std::max(8.0, height * aspect);
    const Index heads = std::max<Index>(1, model.headCount);
    g.headColumnBins = std::clamp<Index>(static_cast<Index>(std::floor(width / static_cast<double>(heads))), 1,
                                         std::max<Index>(1, model.d_k));
    const double blockWidth = width + 3 * kGap + legendWidth;
    const double x0 = target.left() + std::max(0.0, (target.width() - blockWidth) / 2.0);
    const double free = availableHeight - height;
    g.title = QRectF(target.left(), target.top(), target.width(), titleBand - kGap);
    g.cells = QRectF(x0, target.top() + titleBand + std::max(0.0, free / 2) + headLabels, width, height);
    // Taller than wide, so the bar stands beside the cells (paintColorLegend's orientation
    // follows its rectangle's): the cells' whole height when 80 % of it would be too short.
    const double legendHeight = height * 0.8 > legendWidth ? height * 0.8 : height;
    g.legend = QRectF(g.cells.right() + 3 * kGap, g.cells.top() + (height - legendHeight) / 2, legendWidth, legendHeight);
    g.caption = QRectF(target.left(), g.cells.bottom() + kGap, target.width(), caption - kGap);
    g.outlines = headBlockOutlines(g.cells, queryWidth, model.headCount);
    return g;
}

void paintFusedLayout(QPainter& painter, const QRectF& target, const FactoredHeadModel& model,
                      const FigurePalette& palette)
{
    if (!model.valid()) return;
    const Result& r = *model.result;
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double line = metrics.height();
    const FusedLayoutGeometry g = fusedLayoutGeometry(target, metrics, model);

    // Each head's block of W^Q at the resolution of its cells, on its own colour range.
    const MatrixF& wq = r.weights->queryProjection;  // d_model x h d_k
    const std::vector<double> ranges = headColorRanges(model);
    const auto partition = headColumnPartition(wq.cols(), model.headCount);
    for (std::size_t i = 0; i < partition.size() && i < g.outlines.size(); ++i) {
        const auto [first, width] = partition[i];
        const MatrixF block = poolMatrix(wq, MatrixWindow{0, first, wq.rows(), width}, g.rowBins, g.headColumnBins);
        paintMatrixCells(painter, g.outlines[i], block.cast<double>(), ranges[i]);
    }

    // Dim the other heads a little, then outline every block; the selected one stands out.
    for (std::size_t i = 0; i < g.outlines.size(); ++i)
        if (static_cast<Index>(i) != model.head) painter.fillRect(g.outlines[i], QColor(255, 255, 255, 70));
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(palette.outline, 1.0));
    for (const QRectF& block : g.outlines) painter.drawRect(block);

    // Head numbers above the blocks, thinned so they never overlap.
    const double blockWidth = g.outlines.empty() ? 0.0 : g.outlines.front().width();
    const double labelWidth = metrics.horizontalAdvance(QString::number(model.headCount)) + 4.0;
    const Index step = blockWidth > 0 ? std::max<Index>(1, static_cast<Index>(std::ceil(labelWidth / blockWidth))) : 1;
    for (std::size_t i = 0; i < g.outlines.size(); ++i) {
        const bool selected = static_cast<Index>(i) == model.head;
        if (!selected && static_cast<Index>(i) % step != 0) continue;
        const QRectF label(g.outlines[i].center().x() - labelWidth, g.cells.top() - line - 2, 2 * labelWidth, line);
        QFont font = painter.font();
        font.setBold(selected);
        painter.save();
        painter.setFont(font);
        painter.setPen(selected ? palette.emphasis : palette.mutedText);
        painter.drawText(label, Qt::AlignCenter, QString::number(i + 1));
        painter.restore();
    }
    if (model.head >= 0 && model.head < static_cast<Index>(g.outlines.size())) {
        const QRectF block = g.outlines[static_cast<std::size_t>(model.head)];
        painter.setPen(QPen(Qt::white, 4.0));
        painter.drawRect(block);
        painter.setPen(QPen(palette.emphasis, 2.5));
        painter.drawRect(block);
    }
    painter.setPen(palette.text);
    paintTitle(painter, g.title, fusedTitle(model));
    painter.setPen(palette.mutedText);
    painter.drawText(g.caption, Qt::TextWordWrap | Qt::AlignHCenter | Qt::AlignTop, fusedCaption(model));
    painter.setPen(palette.text);
    // The legend's numbers are the selected head's; the caption gives the others'.
    const double selected = model.head >= 0 && model.head < static_cast<Index>(ranges.size())
                                ? ranges[static_cast<std::size_t>(model.head)]
                                : 1.0;
    paintColorLegend(painter, g.legend, kDivergingColormap, -selected, selected,
                     Text::tr("W^Q, head %1's range").arg(model.head + 1));
}

}  // namespace qkv::ui
