#include "ui/train/verdict_text.hpp"

#include <QCoreApplication>
#include <QStringList>

#include <vector>

#include "core/training/training_report.hpp"
#include "core/training/variant_comparison.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/train/progress_text.hpp"
#include "ui/train/variant_text.hpp"

namespace qkv::ui {
namespace {

// The Train tab's translation context (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::TrainTab)
};

QString reachedText(const qkv::VariantOutcome& o)
{
    if (!o.atTarget) return Text::tr("%1 not yet").arg(variantName(o.form));
    return Text::tr("%1 at step %2 (%3)")
        .arg(variantName(o.form), groupedInteger(o.atTarget->step), durationText(o.atTarget->seconds));
}

// Per head 2 d_model d_k for the two thin factors, d_model^2 for one W_i (the Costs tab has the
// formulas); the line stays short enough for a 1000-pixel window.
QString costText(const qkv::VariantOutcome& o)
{
    return Text::tr("%1 %2").arg(variantName(o.form), groupedInteger(static_cast<long long>(o.scoreParameters)));
}

}  // namespace

QString verdictText(const TrainingSnapshot& s, qkv::Index layer)
{
    if (s.variants.empty() || s.state == TrainingSnapshot::State::Running) return {};
    const qkv::TaskKind task = s.variants.front().model->settings.task.kind;
    std::vector<qkv::VariantOutcome> outcomes;
    QStringList reached, costs;
    for (const TrainedVariant& v : s.variants) {
        outcomes.push_back(qkv::variantOutcome(v.model->parameters.spec, v.model->curve, task));
        reached << reachedText(outcomes.back());
        costs << costText(outcomes.back());
    }
    QStringList sentences;
    QString first;
    if (outcomes.size() > 1) {
        const std::optional<std::size_t> winner = qkv::firstToTarget(outcomes);
        first = winner ? Text::tr(": %1 first").arg(variantName(outcomes[*winner].form)) : Text::tr(": neither yet");
    }
    sentences << Text::tr("Target, %1: %2%3.")
                     .arg(QString::fromStdString(qkv::trainingTarget(task).description()), reached.join(QStringLiteral(", ")), first);
    sentences << Text::tr("Score parameters: %1.").arg(costs.join(QStringLiteral(", ")));
    for (const TrainedVariant& v : s.variants) {
        const std::optional<qkv::RankUse> use = qkv::fullRankUse(v.heads, layer, v.model->parameters.spec);
        if (!use) continue;
        const QString count = use->fewest == use->most ? QString::number(use->fewest)
                                                       : Text::tr("%1 to %2").arg(use->fewest).arg(use->most);
        sentences << Text::tr("Full W_i: %1 of %2 singular values hold 99% of the energy; a factored W_i has rank ≤ "
                              "d_k = %3.")
                         .arg(count)
                         .arg(use->d_model)
                         .arg(use->d_k);
    }
    return sentences.join(QLatin1Char(' '));
}

}  // namespace qkv::ui
