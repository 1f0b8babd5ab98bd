#include "ui/heads/score_kind.hpp"

#include <QCoreApplication>

#include "ui/figures/figure_text.hpp"

namespace qkv::ui {

QString scoreKindName(ScoreKind kind)
{
    switch (kind) {
    case ScoreKind::Attention: return QCoreApplication::translate("ScoreKind", "Attention weights");
    case ScoreKind::ScaledScores: return QCoreApplication::translate("ScoreKind", "Scaled scores (before mask)");
    case ScoreKind::MaskedScores: return QCoreApplication::translate("ScoreKind", "Scaled scores after mask");
    }
    return {};
}

QString scoreKindLegend(ScoreKind kind)
{
    switch (kind) {
    case ScoreKind::Attention: return QCoreApplication::translate("ScoreKind", "attention weight");
    case ScoreKind::ScaledScores: return scaledScoreName();
    case ScoreKind::MaskedScores:
        return QCoreApplication::translate("ScoreKind", "%1 (hatched: masked, −∞)").arg(scaledScoreName());
    }
    return {};
}

QString scoreKindId(ScoreKind kind)
{
    switch (kind) {
    case ScoreKind::Attention: return QStringLiteral("attention");
    case ScoreKind::ScaledScores: return QStringLiteral("scores");
    case ScoreKind::MaskedScores: return QStringLiteral("masked-scores");
    }
    return {};
}

bool scoreKindFromId(const QString& id, ScoreKind& kind)
{
    for (ScoreKind k : {ScoreKind::Attention, ScoreKind::ScaledScores, ScoreKind::MaskedScores})
        if (id == scoreKindId(k)) {
            kind = k;
            return true;
        }
    return false;
}

}  // namespace qkv::ui
