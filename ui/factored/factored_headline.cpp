// The Factored tab's headline and the trade-off under it (factored_figures.hpp).
#include "ui/factored/factored_figure_helpers.hpp"
#include "ui/factored/factored_figures.hpp"
#include "ui/figures/number_format.hpp"

namespace qkv::ui {

using namespace factored_figure;

namespace {

// A trained full W_i head, shown as W_i^Q = W_i and W_i^K = I (attention_weights.hpp).
bool showsFullWi(const FactoredHeadModel& model)
{
    return model.result && isFullWiLayout(model.result->attention.grouping, model.d_model);
}

}  // namespace

QString factoredHeadline(const FactoredHeadModel& model)
{
    if (showsFullWi(model))
        return Text::tr("Head %1 learned one full W_i, a %2 × %2 matrix of rank up to d_model = %2, shown here as "
                        "W_i^Q = W_i and W_i^K = I")
            .arg(model.head + 1)
            .arg(model.d_model);
    // The factors give the scores of their product, not of any d_model x d_model matrix: the
    // sentence says so, since "the same as one W_i" is the misunderstanding people ask about.
    // With heads wider than d_model the bound is d_model itself: W_i is d_model x d_model.
    if (model.d_k >= model.d_model)
        return Text::tr(
                   "Head %1: two matrices W_i^Q and W_i^K (d_k = %3 columns each) give the same scores as their "
                   "product W_i = W_i^Q (W_i^K)ᵀ, a %2 × %2 matrix of rank at most d_model = %2")
            .arg(model.head + 1)
            .arg(model.d_model)
            .arg(model.d_k);
    return Text::tr(
               "Head %1: two thin matrices W_i^Q and W_i^K give the same scores as their product "
               "W_i = W_i^Q (W_i^K)ᵀ, a %2 × %2 matrix of rank at most d_k = %3")
        .arg(model.head + 1)
        .arg(model.d_model)
        .arg(model.d_k);
}

QString factoredTradeOff(const FactoredHeadModel& model)
{
    const Index d = model.d_model, d_k = model.d_k, h = model.headCount;
    if (showsFullWi(model)) {
        const Index thin = model.result->attention.d_v();  // the factored model's d_k = d_model / h
        return Text::tr("It costs %1 × %1 = %2 numbers; two thin factors of d_k = %3 would cost 2 · %1 · %3 = %4 and "
                        "limit its rank to %3. The singular values below show how many of its %1 directions it uses.")
            .arg(d)
            .arg(groupedInteger(d * d))
            .arg(thin)
            .arg(groupedInteger(2 * d * thin));
    }
    const QString factors = groupedInteger(2 * d * d_k), full = groupedInteger(d * d);
    const QString cost =
        2 * d_k < d    ? Text::tr("They cost 2 · %1 · %2 = %3 numbers instead of the %1 × %1 = %4 of a full W_i.")
        : 2 * d_k == d ? Text::tr("They cost 2 · %1 · %2 = %3 numbers, as many as the %1 × %1 = %4 of a full W_i.")
                       : Text::tr(
                             "They cost 2 · %1 · %2 = %3 numbers, more than the %1 × %1 = %4 of a full W_i: "
                             "the factors save numbers only when d_k < d_model / 2.");
    // Section 3.2.2: each head projects to d_k = d_model / h dimensions; the heads are concatenated.
    // Models that set their own d_k (Qwen3, Gemma) concatenate h d_k, more or less than d_model.
    QString limit;
    if (d_k >= d)
        limit = Text::tr("Each head's d_k = %1 is at least d_model = %2: its W_i may have any rank up to d_model.")
                    .arg(d_k)
                    .arg(d);
    else if (h * d_k == d)
        limit = h > 1 ? Text::tr("The trade-off: each head's W_i is limited to rank %1, so a head compares queries and "
                                 "keys in a %1-dimensional space; the h = %2 heads together reach d_model = %3.")
                            .arg(d_k)
                            .arg(h)
                            .arg(d)
                      : Text::tr("With h = 1, d_k = d_model: the one head's W_i may have any rank up to d_model = %1.")
                            .arg(d);
    else
        limit = Text::tr("The trade-off: each head's W_i is limited to rank %1, so a head compares queries and keys in "
                         "a %1-dimensional space; the h = %2 heads of their own width together span h · d_k = %3 "
                         "dimensions, d_model = %4.")
                    .arg(d_k)
                    .arg(h)
                    .arg(h * d_k)
                    .arg(d);
    return cost.arg(d).arg(d_k).arg(factors, full) + QLatin1Char(' ') + limit;
}

}  // namespace qkv::ui
