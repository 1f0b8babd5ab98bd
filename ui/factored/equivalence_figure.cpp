// The equivalence figure (factored_figures.hpp): one head's raw scores computed through the
// thin factors and through the full W_i, side by side, with the sentences that explain them.
#include <QFontMetricsF>
#include <QStringList>

#include <algorithm>

#include "ui/factored/factored_figure_helpers.hpp"
#include "ui/factored/factored_figures.hpp"
#include "ui/background/work_placement.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {

using namespace factored_figure;

// ---- the equivalence --------------------------------------------------------------------

QString equivalenceSentence(const FactoredHeadModel& model)
{
    if (!model.valid() || !model.scoresReady) return {};
    const EquivalenceReport& report = model.scores.report;
    return Text::tr(
               "max |difference| = %1 (relative to the largest score %2: %3). The same scores: "
               "Q_i K_iᵀ = (X_q W_i^Q)(X_kv W_i^K)ᵀ = X_q W_i X_kvᵀ (raw scores q·k, before the 1/√d_k scale).")
        .arg(preciseNumber(report.maxAbsDifference), preciseNumber(report.maxAbsScore),
             preciseNumber(report.relativeError));
}

QString biasSentence(const FactoredHeadModel& model)
{
    if (!model.hasBias()) return {};
    return Text::tr(
        "With biases, (X_q W_i^Q + b_i^Q)(X_kv W_i^K + b_i^K)ᵀ = X_q W_i X_kvᵀ "
        "+ X_q W_i^Q b_i^Kᵀ + b_i^Q (X_kv W_i^K)ᵀ + b_i^Q b_i^Kᵀ: a per-query term, a per-key "
        "term and a constant are added (the constant and the per-query term cancel in the "
        "softmax over each row). The maps above are the bias-free part.");
}

QString rotarySentence(const FactoredHeadModel& model)
{
    if (!model.result || !isRotary(model.result->config.positional)) return {};
    // RoFormer (Su et al. 2021), section 3.4: rotating q by its position t and k by s leaves
    // R_tᵀ R_s = R(s − t) between them.
    return Text::tr(
        "Rotary positions: the head's score is q_tᵀ R(s − t) k_s, q turned by its position t and k by s. "
        "So x_tᵀ W_i^Q R(s − t) (W_i^K)ᵀ x_s: every distance s − t has its own form, and W_i alone "
        "no longer fixes the score; W_i is the form at distance 0 (rank ≤ d_k at every distance). "
        "The maps and the spectrum here are W_i's, before rotation; the heads grid and the step "
        "view show the rotated scores.");
}

QString queryKeyNormSentence(const FactoredHeadModel& model)
{
    if (!model.result || !model.result->weights || !model.result->weights->hasQueryKeyNorm()) return {};
    // The norm divides each q and each k by its own length: no fixed matrix between x_t and x_s.
    return Text::tr(
        "q_norm and k_norm (Qwen3): the head's q and k are each divided by their RMS and scaled by γ^Q, γ^K "
        "before the scores, so the score is not x_tᵀ W_i x_s for a fixed W_i: the maps and the spectrum "
        "here are those of W_i^Q (W_i^K)ᵀ without the norms; the heads grid and the step view show the "
        "normalised scores.");
}

QString equivalenceExplanation(const FactoredHeadModel& model)
{
    QStringList lines;
    for (const QString& line :
         {equivalenceSentence(model), biasSentence(model), queryKeyNormSentence(model), rotarySentence(model)})
        if (!line.isEmpty()) lines << line;
    return lines.join(QLatin1Char('\n'));
}

double scoreEquivalenceWork(const FactoredHeadModel& model)
{
    if (!model.valid() || !model.scoresReady) return 0.0;
    const double entries = static_cast<double>(model.scores.factored.size() + model.scores.full.size());
    return entries * (kMultiplyAddsPerEntry + 2.0);  // the range scan and the float copy, then the colour
}

void paintScoreEquivalence(QPainter& painter, const QRectF& target, const FactoredHeadModel& model,
                           const FigurePalette& palette)
{
    if (model.valid() && !model.scoresReady) {
        painter.setPen(palette.mutedText);
        painter.drawText(target, Qt::AlignCenter | Qt::TextWordWrap,
                         Text::tr("Computing the scores both ways (the full W_i is %1 × %1)…").arg(model.d_model));
        return;
    }
    if (!model.valid() || model.scores.factored.size() == 0) {
        painter.setPen(palette.mutedText);
        painter.drawText(target, Qt::AlignCenter, Text::tr("No scores to compare"));
        return;
    }
    const Result& r = *model.result;
    const QFontMetricsF metrics(painter.font(), painter.device());

    const QString text = equivalenceExplanation(model);
    const double textHeight =
        std::min(wrappedTextRect(metrics, target.width(), text).height() + 2, target.height() * 0.45);
    const bool rotary = isRotary(r.config.positional);
    const QString title =
        (rotary
             ? Text::tr("The same raw scores q·k two ways, before rotation: head %1, %2 queries × %3 keys, no biases")
             : Text::tr("The same raw scores q·k two ways: head %1, %2 queries × %3 keys, no biases"))
            .arg(model.head + 1)
            .arg(model.scores.factored.rows())
            .arg(model.scores.factored.cols());
    painter.setPen(palette.text);
    const double titleBand = paintTitle(painter, target, title) + kGap;
    const double range = symmetricRange(std::max(maxAbs(model.scores.factored), maxAbs(model.scores.full)));
    const double legendWidth = verticalLegendWidth(metrics, -range, range);
    const QRectF maps(target.left(), target.top() + titleBand, target.width() - legendWidth - kGap,
                      target.height() - titleBand - textHeight - kGap);

    HeatmapStyle style;
    style.colormap = kDivergingColormap;
    style.minValue = -range;
    style.maxValue = range;
    style.rowLabels = tokenTexts(r.queryLabels);
    style.columnLabels = tokenTexts(r.keyLabels);
    style.rowAxisTitle = queryAxisTitle(r.config.mode);
    style.columnAxisTitle = keyAxisTitle(r.config.mode);
    style.textColor = palette.text;
    // The two maps share their rows: the labels and the axis title once, on the left, so the
    // cells get the room (and the two maps the same cell size).
    // The columns' axis title once too, under both maps.
    const QString columnsTitle = style.columnAxisTitle;
    style.columnAxisTitle.clear();
    HeatmapStyle right = style;
    right.rowLabels.clear();
    right.rowAxisTitle.clear();
    const QMarginsF leftGutter = HeatmapLayout::gutters(style, metrics);
    const QMarginsF rightGutter = HeatmapLayout::gutters(right, metrics);
    const double n_q = static_cast<double>(model.scores.factored.rows()),
                 n_k = static_cast<double>(model.scores.factored.cols());
    const double titleRow = metrics.height() + 4;
    const double cell =
        std::max(1.0, std::min((maps.width() - 3 * kGap - leftGutter.left() - leftGutter.right() - rightGutter.left() -
                                rightGutter.right()) /
                                   (2 * n_k),
                               (maps.height() - titleRow - leftGutter.top() - leftGutter.bottom()) / n_q));
    const double leftWidth = leftGutter.left() + leftGutter.right() + n_k * cell;
    const double rightWidth = rightGutter.left() + rightGutter.right() + n_k * cell;
    const double x0 = maps.left() + std::max(0.0, (maps.width() - leftWidth - rightWidth - 3 * kGap) / 2);
    style.title = Text::tr("factored: (X_q W_i^Q)(X_kv W_i^K)ᵀ");
    const QRectF leftRect(x0, maps.top(), leftWidth, maps.height() - titleRow);
    paintHeatmap(painter, leftRect, toFloat(model.scores.factored), style);
    right.title = Text::tr("full: X_q W_i X_kvᵀ");
    const QRectF rightRect(x0 + leftWidth + 3 * kGap, maps.top(), rightWidth, maps.height() - titleRow);
    paintHeatmap(painter, rightRect, toFloat(model.scores.full), right);
    const HeatmapLayout leftLayout(leftRect, static_cast<int>(n_q), static_cast<int>(n_k), style, metrics);
    const HeatmapLayout rightLayout(rightRect, static_cast<int>(n_q), static_cast<int>(n_k), right, metrics);
    painter.setPen(palette.text);
    painter.drawText(QRectF(leftLayout.cellsRect().left(), leftLayout.columnLabelsRect().bottom() + 2,
                            rightLayout.cellsRect().right() - leftLayout.cellsRect().left(), titleRow),
                     Qt::AlignCenter, columnsTitle);
    painter.setPen(palette.text);
    paintColorLegend(painter,
                     QRectF(maps.right() + kGap, maps.top() + maps.height() * 0.1, legendWidth, maps.height() * 0.7),
                     kDivergingColormap, -range, range, rawScoreName());
    painter.drawText(QRectF(target.left(), target.bottom() - textHeight, target.width(), textHeight),
                     Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, text);
}

}  // namespace qkv::ui
