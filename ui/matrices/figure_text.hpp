#pragma once
// Words shared by the figures of the step, matrices, Q/K map, compare and statistics views, so
// that every figure names the same thing the same way: the mode, which sentence gives the
// queries and which the keys and values, heads from 1 ("Head 2"), token positions from 0, and
// one name per quantity (raw score = q·k, scaled score = q·k/√d_k).

#include <QString>

#include <string>
#include <vector>

#include "core/pipeline/compute.hpp"

namespace qkv::ui::figuretext {

// "Cross-attention", "Encoder self-attention", "Decoder masked self-attention".
QString modeTitle(qkv::AttentionMode mode);
// "queries: target sentence" / "keys and values: source sentence" for this mode.
QString queryAxisTitle(const qkv::Config& config);
QString keyAxisTitle(const qkv::Config& config);
// "target sentence" / "source sentence": where the queries (keys and values) come from.
QString querySentence(qkv::AttentionMode mode);
QString keySentence(qkv::AttentionMode mode);
// "Head 2" for the 0-based head 1.
QString headName(qkv::Index head);
// The token text at a position, or "" when there is no label.
QString label(const std::vector<std::string>& labels, qkv::Index position);
// «cat» (position 3).
QString token(const std::vector<std::string>& labels, qkv::Index position);
// "13 × 64".
QString shape(qkv::Index rows, qkv::Index columns);
// 4 significant digits, an exponent only when needed, "−∞" for masked scores.
QString number(double value);
// Rounds up to 1, 2, 2.5 or 5 x 10^k, so a colour bar ends on a round number (1 for <= 0).
double niceCeiling(double value);
// The shapes line of a figure title: "n_q = 13, n_k = 11, d_model = 64, h = 4, d_k = 16"
// (and ", g = 2" under grouped-query attention).
QString shapesLine(const qkv::Result& result);

}  // namespace qkv::ui::figuretext
