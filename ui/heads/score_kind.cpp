#include "ui/heads/score_kind.hpp"

#include <QCoreApplication>

namespace qkv::ui {

QString scoreKindName(ScoreKind kind)
{
    switch (kind) {
    case ScoreKind::Attention: return QCoreApplication::translate("ScoreKind", "Attention weights");
    case ScoreKind::RawScores: return QCoreApplication::translate("ScoreKind", "Raw scores (before mask)");
    case ScoreKind::MaskedScores: return QCoreApplication::translate("ScoreKind", "Scores after mask");
    }
    return {};
}

QString scoreKindLegend(ScoreKind kind)
{
    switch (kind) {
    case ScoreKind::Attention: return QCoreApplication::translate("ScoreKind", "attention weight");
    case ScoreKind::RawScores: return QCoreApplication::translate("ScoreKind", "score q·k/√d_k");
    case ScoreKind::MaskedScores:
        return QCoreApplication::translate("ScoreKind", "score q·k/√d_k (hatched: masked)");
    }
    return {};
}

}  // namespace qkv::ui
