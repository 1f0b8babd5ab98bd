#include "ui/train/progress_text.hpp"

#include <QCoreApplication>
#include <QStringList>

#include <cmath>

#include "ui/figures/number_format.hpp"
#include "ui/train/variant_text.hpp"

namespace qkv::ui {
namespace {

// The Train tab's translation context (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::TrainTab)
};

QString percent(double fraction) { return QString::number(100.0 * fraction, 'f', 1) + QLatin1Char('%'); }

// The last curve point with held-out numbers, or null.
const qkv::CurvePoint* lastEvaluation(const std::vector<qkv::CurvePoint>& curve)
{
    for (auto it = curve.rbegin(); it != curve.rend(); ++it)
        if (std::isfinite(it->heldOutAccuracy)) return &*it;
    return nullptr;
}

}  // namespace

QString durationText(double seconds)
{
    const long total = std::lround(std::max(0.0, seconds));
    if (total < 60) return Text::tr("%1 s").arg(total);
    if (total < 3600) return Text::tr("%1 min %2 s").arg(total / 60).arg(total % 60, 2, 10, QLatin1Char('0'));
    return Text::tr("%1 h %2 min").arg(total / 3600).arg((total % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QString progressText(const TrainingSnapshot& s)
{
    const QString sofar = durationText(s.seconds);
    switch (s.state) {
    case TrainingSnapshot::State::Finished: return Text::tr("Done: %1 steps in %2").arg(groupedInteger(s.steps), sofar);
    case TrainingSnapshot::State::Paused:
        return Text::tr("Paused at step %1 · %2 so far").arg(groupedInteger(s.steps), sofar);
    case TrainingSnapshot::State::Running:
        break;
    }
    const double left = s.secondsLeft();
    const QString pace = Text::tr("%1 steps/s").arg(readableNumber(s.stepsPerSecond));
    if (left < 0) return Text::tr("%1 · %2 so far").arg(pace, sofar);
    return Text::tr("%1 · %2 left · %3 so far").arg(pace, durationText(left), sofar);
}

QString variantsText(const TrainingSnapshot& s)
{
    QStringList lines;
    const bool sequences = !s.targetTokens.empty();
    for (const TrainedVariant& v : s.variants) {
        const auto& curve = v.model->curve;
        QString line = curve.empty() || curve.back().step == 0
                           ? Text::tr("%1: untrained").arg(variantName(v.variant()))
                           : Text::tr("%1: loss %2").arg(variantName(v.variant()), readableNumber(curve.back().loss));
        if (const qkv::CurvePoint* e = lastEvaluation(curve)) {
            line += sequences ? Text::tr(" · held-out %1 of tokens, %2 of sequences")
                                    .arg(percent(e->heldOutAccuracy), percent(e->heldOutSequenceAccuracy))
                              : Text::tr(" · held-out %1 of tokens").arg(percent(e->heldOutAccuracy));
        }
        lines << line;
    }
    return lines.join(QLatin1Char('\n'));
}

}  // namespace qkv::ui
