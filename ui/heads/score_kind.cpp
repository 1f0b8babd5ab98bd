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
    case ScoreKind::ValueWeighted: return QCoreApplication::translate("ScoreKind", "Value-weighted ‖a·f(x)‖");
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
    case ScoreKind::ValueWeighted:
        // a = the head's weight, f(x) = (x W^V + b^V) W^O: the length of what the key adds to
        // the query's output through the head (Kobayashi et al. 2020).
        return QCoreApplication::translate("ScoreKind", "value-weighted attention ‖a·f(x)‖");
    }
    return {};
}

QString scoreKindId(ScoreKind kind)
{
    const std::string_view id = nameOf(kScoreKinds, kind);
    return QString::fromLatin1(id.data(), static_cast<qsizetype>(id.size()));
}

bool scoreKindFromId(const QString& id, ScoreKind& kind) { return parseName(kScoreKinds, id.toStdString(), kind); }

ColormapName defaultColormap(ScoreKind kind)
{
    const ScoreKindEntry* entry = entryOf(kScoreKinds, kind);
    return entry ? entry->colormap : ColormapName::Viridis;
}

}  // namespace qkv::ui
