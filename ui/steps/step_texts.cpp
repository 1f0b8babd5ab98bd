// The words of the step figure (step_figures.hpp): names and formulas with the core's numbers.
#include <QCoreApplication>

#include <cmath>

#include "core/common/limits.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/steps/step_figures.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::StepFigure)
};

// An equation kept on one line: its spaces do not break (U+00A0), so a wrapped formula never
// leaves "x_jᵀ)" alone on the next line.
QString whole(const QString& equation)
{
    QString out = equation;
    out.replace(QLatin1Char(' '), QChar(0x00A0));
    return out;
}

// The first entries of a vector, then "…".
QString entries(const std::vector<float>& values, std::size_t shown = 6)
{
    QStringList parts;
    for (std::size_t i = 0; i < values.size() && i < shown; ++i) parts << preciseNumber(values[i]);
    if (values.size() > shown) parts << QStringLiteral("…");
    return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
}

QString sharedBy(const StepNumbers& n)
{
    const qkv::Index perGroup = n.headCount / std::max<qkv::Index>(n.keyValueHeadCount, 1);
    const qkv::Index first = n.keyValueHead * perGroup;
    return Text::tr(" · key/value head %1 of %2, read by heads %3–%4 (grouped-query attention)")
        .arg(n.keyValueHead + 1)
        .arg(n.keyValueHeadCount)
        .arg(first + 1)
        .arg(first + perGroup);
}

// Several queries together (gatherSpanStepNumbers): every number is the span's mean. The title
// and the steps say so, and the softmax step says which mean it is.
void sayItIsASpansMean(StepTexts& t, const StepNumbers& n)
{
    const int size = n.queryEnd - n.query;
    const QString span = Text::tr("queries %1–%2").arg(n.query).arg(n.queryEnd - 1);
    t.title = Text::tr("Step by step · %1 · %2 together (%3), their mean at every step · key «%4» (position %5)")
                  .arg(headName(n.head), span)
                  .arg(size)
                  .arg(n.keyLabel)
                  .arg(n.key);
    t.names[0] = Text::tr("① Mean query vector q̄ = mean of the %1 q_i (%2 components)").arg(size).arg(n.d_k);
    t.formulas[0] = Text::tr("q̄ = mean of rows %1–%2 of Q_i = X_q W_i^Q%3")
                        .arg(n.query)
                        .arg(n.queryEnd - 1)
                        .arg(n.hasBias ? Text::tr(" + b_i^Q") : QString());
    if (n.rotary) t.formulas[0] += Text::tr(", each rotated by its own position first (dotted: before rotation)");
    t.names[2] = Text::tr("③ Element-wise product q̄ ⊙ k_j, summed");
    t.formulas[2] = Text::tr("q̄·k = %1: the mean of the span's raw scores (a score is linear in q)")
                        .arg(preciseNumber(n.dotProduct));
    t.formulas[3] = Text::tr("the mean of the span's scaled scores = %1").arg(preciseNumber(n.cappedScore));
    t.formulas[4] = n.masked ? Text::tr("key %1 is hidden from every query of the span: its weight is 0").arg(n.key)
                             : Text::tr("key %1 is visible to some query of the span").arg(n.key);
    t.names[5] = Text::tr("⑥ The span's mean attention row: the mean of the %1 softmax rows").arg(size);
    t.formulas[5] = Text::tr("mean_i a_ij = %1 (%2 %) · not the softmax of the mean scores: the softmax is not linear")
                        .arg(preciseNumber(n.weight))
                        .arg(n.weight * 100.0, 0, 'f', 1);
    t.formulas[7] = Text::tr("mean of head_i rows %1–%2 = Σ_j (mean_i a_ij) v_j = %3")
                        .arg(n.query)
                        .arg(n.queryEnd - 1)
                        .arg(entries(n.headOutput));
    t.names[8] = Text::tr("⑨ Concat(head_1, …, head_%1), the mean of %2's rows (1 × %3)")
                     .arg(n.headCount)
                     .arg(span)
                     .arg(n.concatWidth);
    t.formulas[9] = Text::tr("the mean of output rows %1–%2 = (mean Concat) W^O%3 = %4")
                        .arg(n.query)
                        .arg(n.queryEnd - 1)
                        .arg(n.hasBias ? Text::tr(" + b^O") : QString())
                        .arg(entries(n.output, 5));
}

}  // namespace

StepTexts stepTexts(const StepNumbers& n)
{
    StepTexts t;
    t.names.resize(10);
    t.formulas.resize(10);
    if (!n.valid) return t;
    const bool grouped = n.keyValueHeadCount != n.headCount;
    t.title = Text::tr("Step by step · %1 · query «%2» (position %3) · key «%4» (position %5)")
                  .arg(headName(n.head), n.queryLabel)
                  .arg(n.query)
                  .arg(n.keyLabel)
                  .arg(n.key);
    t.subtitle = Text::tr("%1 · d_model = %2, h = %3, d_k = %4 · equation (1) for one head, then MultiHead")
                     .arg(modeTitle(n.mode))
                     .arg(n.d_model)
                     .arg(n.headCount)
                     .arg(n.d_k);
    if (n.headAblated) t.subtitle += Text::tr(" · %1 is switched off").arg(headName(n.head));
    t.signLegend = Text::tr("sign: orange positive, blue negative, in every bar and heatmap");
    t.valueLegend = Text::tr("v_j (rows of V_i)");
    t.weightedLegend = Text::tr("a_ij v_j");
    t.concatLegend = Text::tr("head outputs (Σ_j row and Concat)");

    t.names[0] = Text::tr("① Query vector q_i (%1 components)").arg(n.d_k);
    t.formulas[0] =
        Text::tr("q_i = row %1 of %2%3")
            .arg(n.query)
            .arg(whole(QStringLiteral("Q_i = X_q W_i^Q")), n.hasBias ? whole(QStringLiteral(" + b_i^Q")) : QString());
    // Qwen3's q_norm and k_norm act between the projection and the rotation.
    if (n.queryKeyNorm) t.formulas[0] += Text::tr(", RMS-normalised and scaled by γ^Q (q_norm)");
    // Partial rotary (GPT-NeoX, Phi): only the first components turn; the others carry no position.
    const QString rotated = n.rotaryDims > 0 ? Text::tr("its first %1 components rotated").arg(n.rotaryDims)
                                             : Text::tr("rotated");
    if (n.rotary)
        t.formulas[0] += Text::tr(", then %1 by its position %2 (dotted: before rotation)").arg(rotated).arg(n.query);

    t.names[1] = Text::tr("② Key vector k_j (%1 components)").arg(n.d_k);
    t.formulas[1] =
        Text::tr("k_j = row %1 of %2%3")
            .arg(n.key)
            .arg(whole(QStringLiteral("K_i = X_kv W_i^K")), n.hasBias ? whole(QStringLiteral(" + b_i^K")) : QString());
    if (grouped) t.formulas[1] += sharedBy(n);
    if (n.queryKeyNorm) t.formulas[1] += Text::tr(", RMS-normalised and scaled by γ^K (k_norm)");
    if (n.rotary)
        t.formulas[1] += Text::tr(", then %1 by its position %2 (dotted: before rotation)").arg(rotated).arg(n.key);
    // A trained full W_i head (its values narrower than d_k = d_model): shown as W_i^Q = W_i and
    // W_i^K = I, so the raw score is x_i W_i x_jᵀ.
    if (qkv::isFullWiLayout({n.headCount, n.keyValueHeadCount, n.d_k, n.d_v}, n.d_model)) {
        t.formulas[0] += Text::tr(" (a full W_i head: %1)").arg(whole(QStringLiteral("W_i^Q = W_i")));
        t.formulas[1] += Text::tr(" (%1: %2, so %3)")
                             .arg(whole(QStringLiteral("W_i^K = I")), whole(QStringLiteral("k_j = x_j")),
                                  whole(QStringLiteral("q·k = x_i W_i x_jᵀ")));
    }

    t.names[2] = Text::tr("③ Element-wise product q_i ⊙ k_j, summed");
    // One name per quantity (ui/figures/figure_text.hpp): raw score q·k, scaled score q·k/√d_k.
    t.formulas[2] = Text::tr("%1 = Σ (q_i ⊙ k_j) = %2").arg(rawScoreName(), preciseNumber(n.dotProduct));
    if (n.rotary) t.formulas[2] += Text::tr(" (the scores use the rotated q and k)");

    t.names[3] = Text::tr("④ Scale");
    if (n.scaled) {
        t.formulas[3] = Text::tr("%1 = %2 / %3 = %4")
                            .arg(scaledScoreName(), preciseNumber(n.dotProduct), preciseNumber(n.sqrtDk),
                                 preciseNumber(n.scaledScore));
        // A full W_i head is shown with d_k = d_model (W_i^K = I) but keeps its model's scale;
        // Gemma scales by its own query_pre_attn_scalar.
        const bool fullWi = qkv::isFullWiLayout({n.headCount, n.keyValueHeadCount, n.d_k, n.d_v}, n.d_model);
        if (std::abs(n.sqrtDk * n.sqrtDk - static_cast<double>(n.d_k)) > 0.5)
            t.formulas[3] += (fullWi ? Text::tr(" (√%1: the d_k = d_model / h the model was trained with)")
                                     : Text::tr(" (√%1: the model's query_pre_attn_scalar, not d_k)"))
                                 .arg(std::lround(n.sqrtDk * n.sqrtDk));
        if (n.softCap > 0)
            t.formulas[3] += Text::tr(", soft-capped: c·tanh(s/c) = %1 (c = %2)")
                                 .arg(preciseNumber(n.cappedScore), preciseNumber(n.softCap));
    }
    else
        t.formulas[3] = Text::tr("no 1/√d_k (this layer does not scale): scaled score = raw score q·k = %1")
                            .arg(preciseNumber(n.scaledScore));

    t.names[4] = Text::tr("⑤ Mask");
    if (n.masked) {
        const bool later = n.mode == qkv::AttentionMode::DecoderCausal && n.key > n.query;
        t.formulas[4] =
            Text::tr("key %1 is hidden from query %2 (%3): its scaled score becomes −∞, its weight exactly 0")
                .arg(n.key)
                .arg(n.query)
                .arg(later ? Text::tr("it comes later") : Text::tr("padding"));
    } else {
        t.formulas[4] = Text::tr("key %1 is visible to query %2: the scaled score stays %3")
                            .arg(n.key)
                            .arg(n.query)
                            .arg(preciseNumber(n.cappedScore));
    }

    t.names[5] = Text::tr("⑥ Softmax over the row (every key for this query)");
    if (n.rowFullyMasked)
        t.formulas[5] = Text::tr("every key of this query is masked: the row is all zeros (flagged, never NaN)");
    else
        t.formulas[5] = Text::tr("a_ij = exp(s_ij − max s) / Σ exp(s − max s) = %1 (%2 %)")
                            .arg(preciseNumber(n.weight))
                            .arg(n.weight * 100.0, 0, 'f', 1);

    t.names[6] = Text::tr("⑦ Value vectors v_j, one row of V_i per key (%1)").arg(shapeText(n.values.rows(), n.d_v));
    t.formulas[6] = Text::tr("v_j = x_j W_i^V%1; key %2 outlined: v_j = %3")
                        .arg(n.hasBias ? Text::tr(" + b_i^V") : QString())
                        .arg(n.key)
                        .arg(entries(n.v, 4));
    if (grouped) t.formulas[6] += sharedBy(n);

    t.names[7] = Text::tr("⑧ Head output: each v_j times its weight a_ij, summed over the keys");
    t.formulas[7] = Text::tr("head_i row %1 = Σ_j a_ij v_j = %2").arg(n.query).arg(entries(n.headOutput));
    if (n.headAblated) t.formulas[7] += Text::tr(" · switched off: computed, then zeroed in Concat");

    t.names[8] =
        Text::tr("⑨ Concat(head_1, …, head_%1) for query %2 (1 × %3)").arg(n.headCount).arg(n.query).arg(n.concatWidth);
    QStringList off;
    for (std::size_t i = 0; i < n.ablated.size(); ++i)
        if (n.ablated[i]) off << headName(static_cast<qkv::Index>(i));
    t.formulas[8] = n.d_v == n.d_k
                        ? Text::tr("each head's d_k = %1 block marked, %2's outlined").arg(n.d_k).arg(headName(n.head))
                        : Text::tr("each head's d_v = %1 block marked, %2's outlined").arg(n.d_v).arg(headName(n.head));
    if (!off.isEmpty())
        t.formulas[8] += Text::tr(" · switched off: %1 (block zeroed before W^O)").arg(off.join(QStringLiteral(", ")));

    t.names[9] = Text::tr("⑩ Output row (1 × %1)").arg(n.d_model);
    t.formulas[9] = Text::tr("output row %1 = Concat W^O%2 = %3")
                        .arg(n.query)
                        .arg(n.hasBias ? Text::tr(" + b^O") : QString())
                        .arg(entries(n.output, 5));
    if (n.isSpan()) sayItIsASpansMean(t, n);
    return t;
}

QString stepsLongLayerNote(const qkv::Result& result)
{
    return Text::tr("This layer is long (n_q = %1, n_k = %2): past %3 tokens each head's map is computed in tiles "
                    "and kept pooled, never held whole. The steps follow one query through its whole row of the "
                    "map (⑥ the softmax, ⑧ Σ_j a_ij v_j), which this tab reads from a map held whole, so it does "
                    "not follow this layer. The Heads tab shows the selected query's whole row exactly and an "
                    "exact region around the selected key; qkv-studio export --rows/--cols writes any region.")
        .arg(groupedInteger(result.attention.queryCount()), groupedInteger(result.attention.keyCount()),
             groupedInteger(qkv::limits::maxFullMapTokens));
}

}  // namespace qkv::ui
