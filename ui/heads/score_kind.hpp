#pragma once
// What the heads grid shows for each (query, key) cell.

#include <QString>

namespace qkv::ui {

enum class ScoreKind {
    Attention,     // A_i = softmax(scores_i), each row sums to 1
    RawScores,     // scores_i = Q_i K_i^T / sqrt(d_k), before the mask
    MaskedScores,  // scores_i with -inf where masked (what the softmax sees)
};

QString scoreKindName(ScoreKind kind);
// The colour legend's label for this kind.
QString scoreKindLegend(ScoreKind kind);

}  // namespace qkv::ui
