#include "ui/compare/compare_figures.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/matrices/matrix_picture.hpp"
#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::CompareFigure)
};

constexpr double kMargin = 8.0;
constexpr double kGap = 14.0;
constexpr qkv::Index kLabelledTokens = 40;  // token labels on the panels up to this many rows and columns

QString panelTitle(const AttentionDifference& d, qkv::Index head)
{
    QString title = headName(head);
    if (d.mode == CompareMode::HeadsMinusReference && head == d.reference) return Text::tr("%1 (reference)").arg(title);
    return Text::tr("%1 · max |Δ| %2").arg(title, preciseNumber(d.largest[static_cast<std::size_t>(head)]));
}

void drawLabels(QPainter& painter, const HeatmapLayout& layout, const HeatmapStyle& style, const QFontMetricsF& metrics)
{
    painter.setPen(style.textColor);
    const QRectF rows = layout.rowLabelsRect();
    for (int r = 0; r < layout.rows() && r < style.rowLabels.size(); r += layout.rowLabelStep()) {
        const double y = layout.rowRect(r).center().y();
        painter.drawText(QRectF(rows.left(), y - metrics.height() / 2, rows.width() - 4, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter,
                         metrics.elidedText(style.rowLabels[r], Qt::ElideRight, rows.width() - 4));
    }
    const QRectF columns = layout.columnLabelsRect();
    const double width = columns.height() - 6;
    for (int c = 0; c < layout.columns() && c < style.columnLabels.size() && width > 0; c += layout.columnLabelStep()) {
        painter.save();
        painter.translate(layout.cellRect(0, c).center().x(), columns.top() + 4);
        painter.rotate(-90);
        painter.drawText(QRectF(-width, -metrics.height() / 2, width, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter,
                         metrics.elidedText(style.columnLabels[c], Qt::ElideRight, width));
        painter.restore();
    }
}

}  // namespace

int CompareGeometry::headAt(const QPointF& point) const
{
    for (std::size_t i = 0; i < panels.size(); ++i)
        if (panels[i].contains(point)) return static_cast<int>(i);
    return -1;
}

CompareGeometry compareGeometry(const QRectF& target, const AttentionDifference& d, const QFontMetricsF& metrics)
{
    CompareGeometry g;
    const double line = metrics.lineSpacing();
    const QRectF area = target.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    g.title = QRectF(area.left(), area.top(), area.width(), line * 1.3);
    g.subtitle = QRectF(area.left(), g.title.bottom(), area.width(), line);
    g.legend = QRectF(area.left(), g.subtitle.bottom() + 4, std::min(area.width(), 620.0), line * 2.6);
    const QRectF grid(area.left(), g.legend.bottom() + 6, area.width(), area.bottom() - g.legend.bottom() - 6);
    g.message = grid;
    if (!d.ok() || d.differences.empty()) return g;
    const qkv::Result& r = *d.live;
    const qkv::Index nq = r.attention.queryCount(), nk = r.attention.keyCount();
    g.style.title = QStringLiteral("Head");
    if (nq <= kLabelledTokens && nk <= kLabelledTokens) {
        g.style.rowLabels = tokenTexts(r.queryLabels);
        g.style.columnLabels = tokenTexts(r.keyLabels);
    }
    g.style.rowAxisTitle = queryAxisTitle(r.config.mode);
    g.style.columnAxisTitle = keyAxisTitle(r.config.mode);
    const QMarginsF gutters = HeatmapLayout::gutters(g.style, metrics);
    const int count = static_cast<int>(d.differences.size());
    int bestColumns = 1;
    double bestCell = 0;
    for (int columns = 1; columns <= count; ++columns) {
        const int rows = (count + columns - 1) / columns;
        const double w = (grid.width() - (columns - 1) * kGap) / columns - gutters.left() - gutters.right();
        const double h = (grid.height() - (rows - 1) * kGap) / rows - gutters.top() - gutters.bottom();
        const double cell = std::min(w / static_cast<double>(nk), h / static_cast<double>(nq));
        if (cell > bestCell) {
            bestCell = cell;
            bestColumns = columns;
        }
    }
    const int rows = (count + bestColumns - 1) / bestColumns;
    const double w = (grid.width() - (bestColumns - 1) * kGap) / bestColumns;
    const double h = (grid.height() - (rows - 1) * kGap) / rows;
    for (int i = 0; i < count; ++i)
        g.panels.emplace_back(grid.left() + (i % bestColumns) * (w + kGap), grid.top() + (i / bestColumns) * (h + kGap),
                              w, h);
    return g;
}

CompareHit compareHitAt(const CompareGeometry& g, const AttentionDifference& d, const QPointF& point,
                        const QFontMetricsF& metrics)
{
    CompareHit hit;
    hit.head = g.headAt(point);
    if (hit.head < 0 || !d.ok()) return hit;
    const qkv::MatrixF& m = d.differences[static_cast<std::size_t>(hit.head)];
    const HeatmapLayout layout(g.panels[static_cast<std::size_t>(hit.head)], static_cast<int>(m.rows()),
                               static_cast<int>(m.cols()), g.style, metrics);
    const QPoint cell = layout.cellAt(point);
    if (cell.x() >= 0) {
        hit.query = cell.y();
        hit.key = cell.x();
    }
    return hit;
}

void paintCompare(QPainter& painter, const QRectF& target, const AttentionDifference& d, const FigureOptions& options)
{
    painter.save();
    painter.setFont(options.font);
    painter.fillRect(target, options.background);
    const QFontMetricsF metrics(painter.font(), painter.device());
    const CompareGeometry g = compareGeometry(target, d, metrics);
    QColor muted = options.text;
    muted.setAlpha(170);

    QString title = d.mode == CompareMode::PinnedMinusLive
                        ? Text::tr("Compare: pinned − live attention, head by head")
                        : Text::tr("Compare: every head − %1").arg(headName(d.reference));
    if (d.quantity == CompareQuantity::ScaledScores) title.replace(Text::tr("attention"), Text::tr("scaled scores"));
    QFont big = painter.font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.12);
    painter.setFont(big);
    painter.setPen(options.text);
    painter.drawText(g.title, Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(big, painter.device()).elidedText(title, Qt::ElideRight, g.title.width()));
    painter.setFont(options.font);
    if (d.live) {
        painter.setPen(muted);
        painter.drawText(
            g.subtitle, Qt::AlignLeft | Qt::AlignVCenter,
            metrics.elidedText(Text::tr("%1 · %2").arg(modeTitle(d.live->config.mode), shapesLine(*d.live)),
                               Qt::ElideRight, g.subtitle.width()));
    }
    if (!d.ok()) {
        painter.setPen(options.text);
        painter.drawText(g.message.adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap, d.problem);
        painter.restore();
        return;
    }
    painter.setPen(options.text);
    const double range = d.colourRange;
    QString legend = differenceLegend(d);
    if (!(d.range > 0)) legend += Text::tr(" (identical: every difference is 0)");
    paintColorLegend(painter, g.legend, kDivergingColormap, -range, range, legend);

    HeatmapStyle style = g.style;
    style.textColor = options.text;
    for (std::size_t i = 0; i < g.panels.size(); ++i) {
        const qkv::MatrixF& m = d.differences[i];
        style.title = panelTitle(d, static_cast<qkv::Index>(i));
        const HeatmapLayout layout(g.panels[i], static_cast<int>(m.rows()), static_cast<int>(m.cols()), style, metrics);
        const bool chosen = options.showSelection && static_cast<qkv::Index>(i) == options.head;
        QFont titleFont = options.font;
        titleFont.setBold(chosen);
        painter.setFont(titleFont);
        painter.setPen(chosen ? kSelectionColor : options.text);
        painter.drawText(layout.titleRect(), Qt::AlignCenter,
                         QFontMetricsF(titleFont, painter.device())
                             .elidedText(style.title, Qt::ElideRight, layout.titleRect().width()));
        painter.setFont(options.font);
        paintPicture(painter, layout.cellsRect(), d.pictures[i]);
        painter.setRenderHint(QPainter::Antialiasing, false);
        painter.setBrush(Qt::NoBrush);
        painter.setPen(chosen ? QPen(kSelectionColor, 2) : QPen(muted, 1));
        painter.drawRect(layout.cellsRect());
        drawLabels(painter, layout, style, metrics);
        painter.setPen(options.text);
        if (!layout.rowAxisTitleRect().isNull()) {
            const QRectF a = layout.rowAxisTitleRect();
            painter.save();
            painter.translate(a.center());
            painter.rotate(-90);
            painter.drawText(QRectF(-a.height() / 2, -a.width() / 2, a.height(), a.width()), Qt::AlignCenter,
                             metrics.elidedText(style.rowAxisTitle, Qt::ElideRight, a.height()));
            painter.restore();
        }
        if (!layout.columnAxisTitleRect().isNull())
            painter.drawText(
                layout.columnAxisTitleRect(), Qt::AlignCenter,
                metrics.elidedText(style.columnAxisTitle, Qt::ElideRight, layout.columnAxisTitleRect().width()));
        if (chosen && options.query >= 0 && options.key >= 0 && options.query < m.rows() && options.key < m.cols()) {
            painter.setPen(QPen(kSelectionColor, 2));
            painter.drawRect(
                layout.cellRect(static_cast<int>(options.query), static_cast<int>(options.key)).adjusted(-1, -1, 1, 1));
        }
    }
    painter.restore();
}

std::vector<Figure> compareFigures()
{
    Figure pinned;
    pinned.name = QStringLiteral("compare");
    pinned.title = Text::tr("Compare: pinned − live attention per head");
    pinned.view = kCompareViewId;
    pinned.defaultSize = QSizeF(1200, 900);
    pinned.unavailable = [](const FigureInput& input) {
        if (!input.result) return whyNoResult(input);
        if (!input.pinned) return Text::tr("Nothing is pinned: pin a result in the Compare tab first.");
        return compareShapeProblem(*input.pinned, *input.result);
    };
    pinned.paint = [](QPainter& painter, const QRectF& rect, const FigureInput& input) {
        paintCompare(painter, rect,
                     *AttentionDifference::pinnedMinusLive(input.pinned, input.result, CompareQuantity::Attention),
                     input.options);
    };
    Figure heads = perHeadFigure(
        QStringLiteral("compare-heads"), Text::tr("Compare: every head − the selected head"), kCompareViewId,
        QSizeF(1200, 900), [](QPainter& painter, const QRectF& rect, const FigureInput& input) {
            paintCompare(
                painter, rect,
                *AttentionDifference::headsMinusReference(input.result, input.options.head, CompareQuantity::Attention),
                input.options);
        });
    return {pinned, heads};
}

}  // namespace qkv::ui
