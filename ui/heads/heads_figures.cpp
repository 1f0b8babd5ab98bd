#include "ui/heads/heads_figures.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>

#include "ui/figures/figure_text.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/heads/heads_grid.hpp"
#include "ui/heads/long_row_strip.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::HeadsFigures)
};

constexpr double kMargin = 12.0;

HeadsFigureState stateFor(const FigureInput& input, const HeadsFigure& figure)
{
    const FigureOptions& o = input.options;
    HeadsFigureState state;
    state.colormap = headsColormap(o);
    state.background = o.background;
    state.text = o.text;
    if (o.showSelection) {
        state.selectedPanel = static_cast<int>(o.head);
        state.highlightedPanel = static_cast<int>(o.head);
        state.highlightedCell = QPoint(figure.columnOfPosition(o.key), figure.rowOfPosition(o.query));
    }
    return state;
}

void paintHeadsGrid(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    const HeadsFigure figure(input.result, headsFigureSpec(input.options));
    const HeadsGridLayout layout =
        layoutHeadsGrid(figure, rect.size(), 1.0, painter.font(), painter.device(), GridFit::Page);
    painter.save();
    painter.translate(rect.topLeft());
    paintHeadsFigure(painter, figure, layout, stateFor(input, figure));
    painter.restore();
}

// One head, large: title, colour bar, then the heatmap with its axis titles.
void paintOneHead(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    HeadsFigureSpec spec = headsFigureSpec(input.options);
    spec.withAverage = false;
    const HeadsFigure figure(input.result, spec);
    if (figure.panelCount() == 0) return;
    const int head = std::clamp(static_cast<int>(input.options.head), 0, figure.panelCount() - 1);
    const HeadsFigureState state = stateFor(input, figure);
    const QRectF page = rect.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    const QFontMetricsF metrics(painter.font(), painter.device());
    const QFont titleFont = figureTitleFont(painter.font());
    const QFontMetricsF titleMetrics(titleFont, painter.device());

    const QString title = Text::tr("%1 · %2").arg(figure.panelTitle(head), figure.caption());
    const QRectF titleBox = wrappedTextRect(titleMetrics, page.width(), title);
    painter.setPen(state.text);
    painter.setFont(titleFont);
    painter.drawText(QRectF(page.left(), page.top(), page.width(), titleBox.height()), Qt::TextWordWrap | Qt::AlignLeft,
                     title);
    painter.setFont(QFont(input.options.font));
    const double legendWidth = std::min(page.width(), std::max(360.0, page.width() * 0.5));
    const double legendHeight = horizontalLegendHeight(metrics, legendWidth, figure.legendLabel());
    const QRectF legend(page.left(), page.top() + titleBox.height() + 6, legendWidth, legendHeight);
    paintColorLegend(painter, legend,
                     ColorLegend{state.colormap, figure.minValue(), figure.maxValue(), figure.legendLabel()});

    HeatmapStyle style = panelStyle(figure, head, state);
    style.title.clear();  // the figure's title says which head
    style.rowAxisTitle = figure.rowAxisTitle();
    style.columnAxisTitle = figure.columnAxisTitle();
    const QRectF map(page.left(), legend.bottom() + 10, page.width(), page.bottom() - legend.bottom() - 10);
    paintHeatmap(painter, map, figure.panel(head), style);
}

// The row of the selected query, or a span's mean row: long_row_strip.hpp's strip, computed here
// (a row of 32,768 keys in about a millisecond; a span's rows a block at a time).
void paintQueryRow(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    const FigureOptions& o = input.options;
    const qkv::Index end = std::max(o.queryEnd, o.query + 1);
    const qkv::Expected<RowStrip> strip = computeRowStrip(*input.result, static_cast<int>(o.head), o.query, end);
    painter.save();
    painter.setPen(o.text);
    const QRectF page = rect.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    if (!strip) {
        painter.drawText(page, Qt::AlignCenter | Qt::TextWordWrap, QString::fromStdString(strip.error()));
    } else {
        RowStripStyle style;
        style.text = o.text;
        if (o.showSelection) style.selectedKey = o.key;
        paintRowStrip(painter, page, *strip, style);
    }
    painter.restore();
}

// The query or span must lie inside the result.
QString whyNoQueryRow(const FigureInput& input)
{
    if (const QString why = whyNoSelectedHead(input); !why.isEmpty()) return why;
    const FigureOptions& o = input.options;
    const qkv::Index n_q = input.result->attention.queryCount();
    if (o.query < 0 || o.query >= n_q || o.queryEnd > n_q)
        return Text::tr("The selected queries are outside this result's %1 positions.").arg(n_q);
    return {};
}

}  // namespace

HeadsFigureSpec headsFigureSpec(const FigureOptions& options)
{
    HeadsFigureSpec spec;
    scoreKindFromId(QString::fromStdString(options.view.show), spec.kind);
    spec.withAverage = options.view.averageOfHeads;
    spec.colorRange = options.view.colorRange;
    spec.blockMaxima = options.view.blockMaxima;
    spec.headTitles = options.headTitles;
    return spec;
}

ColormapName headsColormap(const FigureOptions& options)
{
    const HeadsFigureSpec spec = headsFigureSpec(options);
    ColormapName name = defaultColormap(spec.kind);
    colormapFromId(QString::fromStdString(options.view.colormap), name);
    return name;
}

std::vector<Figure> headsFigures()
{
    const QString view = kHeadsViewId;
    // Both draw a long layer in blocks (pooled_panels.hpp).
    return {
        Figure{QStringLiteral("heads"), Text::tr("Heads grid"), view, QSizeF(1400, 900), QSizeF(480, 360), nullptr,
               &paintHeadsGrid, {}, true},
        Figure{QStringLiteral("head"), Text::tr("One head"), view, QSizeF(900, 800), QSizeF(420, 380), nullptr,
               &paintOneHead, {}, true},
        Figure{QStringLiteral("query-row"), Text::tr("The selected query's row (or a span's mean row)"), view,
               QSizeF(1100, 380), QSizeF(520, 260), &whyNoQueryRow, &paintQueryRow, {}, true},
    };
}

}  // namespace qkv::ui
