#pragma once
// What the heads grid shows for each (query, key) cell. One name per quantity everywhere
// (figure_text.hpp): the raw score is q·k, the scaled score q·k/√d_k, the value-weighted
// attention ||a·f(x)|| (core/analysis/value_norms.hpp).

#include <QString>

#include <array>
#include <string_view>

#include "ui/render/colormap.hpp"

namespace qkv::ui {

enum class ScoreKind {
    Attention,      // A_i = softmax(scores_i), each row sums to 1
    ScaledScores,   // scores_i = Q_i K_i^T / sqrt(d_k), before the mask
    MaskedScores,   // scores_i with -inf where masked (what the softmax sees)
    ValueWeighted,  // N_i(q, j) = ||a^i_qj f_i(x_j)||, and the layer's ||sum_i a^i_qj f_i(x_j)||
};

// The session's and the command line's spelling (view.show, --show) of each kind, and the
// colormap it starts with: sequential for weights in [0, 1] and for norms (>= 0, unbounded),
// diverging for signed scores.
struct ScoreKindEntry {
    ScoreKind value;
    std::string_view name;
    ColormapName colormap;
};
inline constexpr std::array<ScoreKindEntry, 4> kScoreKinds{{
    {ScoreKind::Attention, "attention", ColormapName::Viridis},
    {ScoreKind::ScaledScores, "scores", kDivergingColormap},
    {ScoreKind::MaskedScores, "masked-scores", kDivergingColormap},
    {ScoreKind::ValueWeighted, "value-weighted", ColormapName::Magma},
}};
// The colormap a kind starts with (kScoreKinds).
ColormapName defaultColormap(ScoreKind kind);

// "Attention weights", "Scaled scores (before mask)", "Scaled scores after mask",
// "Value-weighted ‖a·f(x)‖".
QString scoreKindName(ScoreKind kind);
// The colour legend's quantity for this kind ("attention weight", "scaled score q·k/√d_k",
// "value-weighted attention ‖a·f(x)‖").
QString scoreKindLegend(ScoreKind kind);
// The session's spelling (view.show): "attention", "scores", "masked-scores", "value-weighted".
QString scoreKindId(ScoreKind kind);
// Back from the spelling; false when unknown.
bool scoreKindFromId(const QString& id, ScoreKind& kind);

}  // namespace qkv::ui
