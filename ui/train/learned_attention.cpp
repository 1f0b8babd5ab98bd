#include "ui/train/learned_attention.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_painter.hpp"
#include "ui/train/variant_text.hpp"

namespace qkv::ui {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("qkv::ui::TrainTab", text); }

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
    if (s->alignment >= 0) return tr("%1% aligned").arg(std::round(100 * s->alignment));
    if (s->induction >= 0 && s->induction >= s->previousToken) return tr("induction %1").arg(s->induction, 0, 'f', 2);
    if (s->previousToken >= 0) return tr("previous token %1").arg(s->previousToken, 0, 'f', 2);
    return {};
}

HeatmapStyle panelStyle(const LearnedAttention& attention, int head, const QColor& text)
{
    HeatmapStyle style;
    style.colormap = attention.colormap;
    style.minValue = 0;
    style.maxValue = 1;
    style.rowLabels = attention.rowLabels;
    style.columnLabels = attention.columnLabels;
    style.title = head >= 0 && head < attention.headTitles.size() ? attention.headTitles[head] : QString();
    style.textColor = text;
    return style;
}

QString legendLabel() { return tr("attention weight (0 to 1 at every step)"); }

}  // namespace

LearnedAttention learnedAttention(const TrainingSnapshot& snapshot, std::size_t variant, qkv::Index layer)
{
    LearnedAttention out;
    if (variant >= snapshot.variants.size()) return out;
    const TrainedVariant& v = snapshot.variants[variant];
    const auto& layers = v.trace.layers;
    if (layer < 0 || layer >= static_cast<qkv::Index>(layers.size())) return out;
    const qkv::AttentionLayerTrace& trace = layers[static_cast<std::size_t>(layer)];
    out.title = tr("%1 · step %2").arg(variantTitle(v.variant()), groupedInteger(snapshot.steps));
    out.heads = trace.attention;
    for (qkv::Index head = 0; head < static_cast<qkv::Index>(trace.attention.size()); ++head) {
        const QString score = scoreText(v.scores(layer, head));
        out.headTitles << (score.isEmpty() ? headName(head) : tr("%1 · %2").arg(headName(head), score));
    }
    out.rowLabels = labelsOf(snapshot.queryTokens(trace.info));
    out.columnLabels = labelsOf(snapshot.keyTokens(trace.info));
    out.caption = tr("%1 · %2").arg(queryAxisTitle(trace.info.kind), keyAxisTitle(trace.info.kind));
    return out;
}

LearnedAttentionLayout layoutLearnedAttention(const LearnedAttention& attention, const QRectF& target,
                                              const QFontMetricsF& metrics)
{
    LearnedAttentionLayout out;
    const double line = metrics.height() + 4;
    out.title = QRectF(target.left(), target.top(), target.width(), line);
    // The caption wraps in a narrow panel rather than lose its end.
    const QRectF wrapped = metrics.boundingRect(QRectF(0, 0, std::max(1.0, target.width()), 1e6),
                                                Qt::TextWordWrap, attention.caption);
    out.caption = QRectF(target.left(), out.title.bottom(), target.width(), wrapped.height() + 4);
    const double legendWidth = std::min(kLegendWidth, target.width());
    const double legendHeight = horizontalLegendHeight(metrics, legendWidth, legendLabel());
    out.legend = QRectF(target.center().x() - legendWidth / 2, target.bottom() - legendHeight, legendWidth, legendHeight);
    const QRectF area(target.left(), out.caption.bottom() + 4, target.width(),
                      std::max(0.0, out.legend.top() - kGap - out.caption.bottom() - 4));
    const int heads = static_cast<int>(attention.heads.size());
    if (heads == 0) return out;
    const int rows = static_cast<int>(attention.heads.front().rows());
    const int columns = static_cast<int>(attention.heads.front().cols());
    const QMarginsF g = HeatmapLayout::gutters(panelStyle(attention, 0, Qt::black), metrics);
    // As many panels per row as give the largest cells.
    int best = 1;
    double bestCell = -1;
    for (int perRow = 1; perRow <= heads; ++perRow) {
        const int panelRows = (heads + perRow - 1) / perRow;
        const double w = (area.width() - (perRow - 1) * kGap) / perRow;
        const double h = (area.height() - (panelRows - 1) * kGap) / panelRows;
        const double cell = std::min((w - g.left() - g.right()) / std::max(columns, 1),
                                     (h - g.top() - g.bottom()) / std::max(rows, 1));
        if (cell > bestCell + 1e-9) {
            bestCell = cell;
            best = perRow;
        }
    }
    const int panelRows = (heads + best - 1) / best;
    const double w = (area.width() - (best - 1) * kGap) / best;
    const double h = (area.height() - (panelRows - 1) * kGap) / panelRows;
    for (int head = 0; head < heads; ++head)
        out.panels.emplace_back(area.left() + (head % best) * (w + kGap), area.top() + (head / best) * (h + kGap), w, h);
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
                     QFontMetricsF(bold, painter.device()).elidedText(attention.title, Qt::ElideRight, layout.title.width()));
    bold.setBold(false);
    painter.setFont(bold);
    painter.drawText(layout.caption, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, attention.caption);
    for (std::size_t head = 0; head < attention.heads.size(); ++head)
        paintHeatmap(painter, layout.panels[head], attention.heads[head], panelStyle(attention, static_cast<int>(head), text));
    painter.setPen(text);
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
        const HeatmapStyle style = panelStyle(attention, static_cast<int>(head), Qt::black);
        const HeatmapLayout cells(layout.panels[head], static_cast<int>(weights.rows()),
                                  static_cast<int>(weights.cols()), style, metrics);
        const QPoint cell = cells.cellAt(position);
        if (cell.x() < 0) return {};
        const auto token = [](const QStringList& labels, int i) {
            return i < labels.size() ? QStringLiteral("«%1»").arg(labels[i].toHtmlEscaped()) : QString();
        };
        return tr("<b>%1</b><br>query %2 (position %3) → key %4 (position %5): <b>%6</b>")
            .arg(style.title.toHtmlEscaped(), token(attention.rowLabels, cell.y()))
            .arg(cell.y())
            .arg(token(attention.columnLabels, cell.x()))
            .arg(cell.x())
            .arg(weights(cell.y(), cell.x()), 0, 'f', 3);
    }
    return {};
}

}  // namespace qkv::ui
