#include "ui/train/learned_attention.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_painter.hpp"
#include "ui/train/variant_text.hpp"

namespace qkv::ui {
namespace {

// The Train tab's translation context (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::TrainTab)
};

constexpr double kGap = 10;
constexpr double kLegendWidth = 360;

QStringList labelsOf(const std::vector<std::string>& tokens)
{
    QStringList out;
    for (const std::string& t : tokens) out << QString::fromStdString(t);
    return out;
}

// What the head does, in the task's terms: its alignment with the gold source word, or its
// previous-token and induction scores, whichever is larger.
QString scoreText(const qkv::HeadScores* s)
{
    if (!s) return {};
    if (s->alignment >= 0) return Text::tr("%1% aligned").arg(std::round(100 * s->alignment));
    if (s->induction >= 0 && s->induction >= s->previousToken)
        return Text::tr("induction %1").arg(s->induction, 0, 'f', 2);
    if (s->previousToken >= 0) return Text::tr("previous token %1").arg(s->previousToken, 0, 'f', 2);
    return {};
}

// What the number in the heads' titles measures, said once under them (the short titles
// "1 · 73%" have no room for the words).
QString scoreKey(const qkv::HeadScores* s)
{
    if (!s) return {};
    if (s->alignment >= 0) return Text::tr("n · p%: head n's attention on the aligned source word.");
    if (s->induction >= 0 || s->previousToken >= 0)
        return Text::tr("n · s: head n's induction or previous-token score, the larger (hover for both).");
    return {};
}

// A head's heatmap as the layout decided: its title, and the tokens when the cells have room.
// The same number alone ("94%", "0.62"), for a title that has no room for words.
QString shortScoreText(const qkv::HeadScores* s)
{
    if (!s) return {};
    if (s->alignment >= 0) return Text::tr("%1%").arg(std::round(100 * s->alignment));
    if (s->induction >= 0 && s->induction >= s->previousToken) return QString::number(s->induction, 'f', 2);
    if (s->previousToken >= 0) return QString::number(s->previousToken, 'f', 2);
    return {};
}

HeatmapStyle panelStyle(const LearnedAttention& attention, bool labels, const QString& title, const QColor& text)
{
    HeatmapStyle style;
    style.colormap = attention.colormap;
    style.minValue = 0;
    style.maxValue = 1;
    style.drawLabels = labels;
    if (labels) {
        style.rowLabels = attention.rowLabels;
        style.columnLabels = attention.columnLabels;
    }
    style.title = title;
    style.textColor = text;
    return style;
}

HeatmapStyle panelStyle(const LearnedAttention& attention, const LearnedAttentionLayout& layout, std::size_t head,
                        const QColor& text)
{
    const auto i = static_cast<qsizetype>(head);
    return panelStyle(attention, layout.labels, i < layout.headTitles.size() ? layout.headTitles[i] : QString(), text);
}

// Cells smaller than this leave no room for token labels: then the cells take the room and the
// tooltip names the tokens.
constexpr double kMinLabelledCell = 6.0;

struct Grid {
    int perRow = 1;
    double cell = 0, width = 0, height = 0;
};

// As many panels per row as give the largest cells.
Grid bestGrid(const QRectF& area, int heads, int rows, int columns, const QMarginsF& g)
{
    Grid best;
    best.cell = -1;
    for (int perRow = 1; perRow <= heads; ++perRow) {
        const int panelRows = (heads + perRow - 1) / perRow;
        const double w = std::max(1.0, (area.width() - (perRow - 1) * kGap) / perRow);
        const double h = std::max(1.0, (area.height() - (panelRows - 1) * kGap) / panelRows);
        const double cell =
            std::min((w - g.left() - g.right()) / std::max(columns, 1), (h - g.top() - g.bottom()) / std::max(rows, 1));
        if (cell > best.cell + 1e-9) best = {perRow, cell, w, h};
    }
    return best;
}

// The scale is the same at every step (0 to 1), so that one picture compares with the next.
QString legendLabel() { return Text::tr("attention weight"); }

}  // namespace

LearnedAttention learnedAttention(const TrainingSnapshot& snapshot, std::size_t variant, qkv::Index layer)
{
    LearnedAttention out;
    if (variant >= snapshot.variants.size()) return out;
    const TrainedVariant& v = snapshot.variants[variant];
    const auto& layers = v.trace.layers;
    if (layer < 0 || layer >= static_cast<qkv::Index>(layers.size())) return out;
    const qkv::AttentionLayerTrace& trace = layers[static_cast<std::size_t>(layer)];
    out.title = Text::tr("%1 · step %2").arg(variantTitle(v.variant()), groupedInteger(snapshot.steps));
    out.shortTitle = Text::tr("%1 · step %2").arg(variantName(v.variant()), groupedInteger(snapshot.steps));
    out.heads = trace.attention;
    for (qkv::Index head = 0; head < static_cast<qkv::Index>(trace.attention.size()); ++head) {
        const qkv::HeadScores* scores = v.scores(layer, head);
        const QString score = scoreText(scores);
        out.headTitles << (score.isEmpty() ? headName(head) : Text::tr("%1 · %2").arg(headName(head), score));
        const QString number = shortScoreText(scores);
        out.shortHeadTitles << (number.isEmpty() ? QString::number(head + 1)
                                                 : Text::tr("%1 · %2").arg(head + 1).arg(number));
    }
    out.rowLabels = labelsOf(snapshot.queryTokens(trace.info));
    out.columnLabels = labelsOf(snapshot.keyTokens(trace.info));
    out.caption = Text::tr("%1 · %2").arg(queryAxisTitle(trace.info.kind), keyAxisTitle(trace.info.kind));
    out.scoreKey = scoreKey(v.scores(layer, 0));
    return out;
}

LearnedAttentionLayout layoutLearnedAttention(const LearnedAttention& attention, const QRectF& target,
                                              const QFontMetricsF& metrics)
{
    LearnedAttentionLayout out;
    const double line = metrics.height() + 4;
    out.title = QRectF(target.left(), target.top(), target.width(), line);
    const double legendWidth = std::min(kLegendWidth, target.width());
    const double legendHeight = horizontalLegendHeight(metrics, legendWidth, legendLabel());
    // A short panel (the Train tab in a 1000 x 700 window, a spectrum under the heads) gives
    // its height to the heads: the colour bar stands at the right instead of under them.
    const bool side = target.height() - line - 4 - kGap - legendHeight < 2.5 * legendHeight;
    const double sideWidth = verticalLegendWidth(metrics, 0.0, 1.0);
    double bottom = target.bottom();
    double right = target.right();
    if (side) {
        right -= sideWidth + kGap;
        out.legend = QRectF(right + kGap, out.title.bottom() + 4, sideWidth,
                            std::max(0.0, target.bottom() - out.title.bottom() - 4));
    } else {
        out.legend = QRectF(target.center().x() - legendWidth / 2, target.bottom() - legendHeight, legendWidth,
                            legendHeight);
        bottom = out.legend.top();
    }
    const double width = std::max(0.0, right - target.left());
    // The key only where it leaves the heads most of the room (a third at most).
    double keyHeight = 0;
    const double room = bottom - kGap - out.title.bottom() - 4;
    if (!attention.scoreKey.isEmpty()) {
        keyHeight = wrappedTextRect(metrics, width, attention.scoreKey).height();
        if (keyHeight > 2 * metrics.height() + 1 || keyHeight * 3 > room) keyHeight = 0;
        else out.key = QRectF(target.left(), bottom - 4 - keyHeight, width, keyHeight);
    }
    const double above = keyHeight > 0 ? out.key.top() : bottom;
    const QRectF area(target.left(), out.title.bottom() + 4, width,
                      std::max(0.0, above - kGap - out.title.bottom() - 4));
    const int heads = static_cast<int>(attention.heads.size());
    out.titleText = attention.title;
    if (heads == 0) return out;
    const int rows = static_cast<int>(attention.heads.front().rows());
    const int columns = static_cast<int>(attention.heads.front().cols());
    const QString widest = attention.headTitles.value(0);
    Grid grid = bestGrid(area, heads, rows, columns,
                         HeatmapLayout::gutters(panelStyle(attention, true, widest, Qt::black), metrics));
    if (grid.cell < kMinLabelledCell) {
        out.labels = false;
        grid = bestGrid(area, heads, rows, columns,
                        HeatmapLayout::gutters(panelStyle(attention, false, widest, Qt::black), metrics));
    }
    for (int head = 0; head < heads; ++head) {
        out.panels.emplace_back(area.left() + (head % grid.perRow) * (grid.width + kGap),
                                area.top() + (head / grid.perRow) * (grid.height + kGap), grid.width, grid.height);
        // "Head 1 · 94% aligned" where it fits, else "1 · 94%", else "1".
        QString title = attention.headTitles.value(head);
        if (metrics.horizontalAdvance(title) > grid.width) title = attention.shortHeadTitles.value(head);
        if (metrics.horizontalAdvance(title) > grid.width) title = QString::number(head + 1);
        out.headTitles << title;
    }
    out.titleText = metrics.horizontalAdvance(attention.title) <= target.width() ? attention.title : attention.shortTitle;
    return out;
}

void paintLearnedAttention(QPainter& painter, const QRectF& target, const LearnedAttention& attention,
                           const QColor& text)
{
    if (attention.heads.empty()) return;
    painter.save();
    const QFontMetricsF metrics(painter.font(), painter.device());
    const LearnedAttentionLayout layout = layoutLearnedAttention(attention, target, metrics);
    painter.setPen(text);
    QFont bold = painter.font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.drawText(layout.title, Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(bold, painter.device()).elidedText(layout.titleText, Qt::ElideRight, layout.title.width()));
    bold.setBold(false);
    painter.setFont(bold);
    for (std::size_t head = 0; head < attention.heads.size(); ++head)
        paintHeatmap(painter, layout.panels[head], attention.heads[head], panelStyle(attention, layout, head, text));
    painter.setPen(text);
    if (!layout.key.isEmpty()) painter.drawText(layout.key, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, attention.scoreKey);
    paintColorLegend(painter, layout.legend, attention.colormap, 0.0, 1.0, legendLabel());
    painter.restore();
}

QString learnedAttentionToolTip(const LearnedAttention& attention, const QRectF& target,
                                const QFontMetricsF& metrics, const QPointF& position)
{
    const LearnedAttentionLayout layout = layoutLearnedAttention(attention, target, metrics);
    for (std::size_t head = 0; head < layout.panels.size(); ++head) {
        if (!layout.panels[head].contains(position)) continue;
        const qkv::MatrixF& weights = attention.heads[head];
        const HeatmapStyle style = panelStyle(attention, layout, head, Qt::black);
        const HeatmapLayout cells(layout.panels[head], static_cast<int>(weights.rows()),
                                  static_cast<int>(weights.cols()), style, metrics);
        const QPoint cell = cells.cellAt(position);
        if (cell.x() < 0) return {};
        const auto token = [](const QStringList& labels, int i) {
            return i < labels.size() ? QStringLiteral("«%1»").arg(labels[i].toHtmlEscaped()) : QString();
        };
        return Text::tr("<b>%1</b><br>query %2 (position %3) → key %4 (position %5): <b>%6</b>")
            .arg(attention.headTitles.value(static_cast<qsizetype>(head)).toHtmlEscaped(),
                 token(attention.rowLabels, cell.y()))
            .arg(cell.y())
            .arg(token(attention.columnLabels, cell.x()))
            .arg(cell.x())
            .arg(weights(cell.y(), cell.x()), 0, 'f', 3);
    }
    return {};
}

}  // namespace qkv::ui
