#pragma once
// The words every figure, view and tooltip shares, defined once, so that everything names the
// same thing the same way: the mode, which sentence gives the queries and which the keys and
// values, heads from 1 ("Head 2"), token positions from 0, the shapes, and one name per
// quantity (raw score = q·k, scaled score = q·k/√d_k). Numbers: number_format.hpp.

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

#include "core/pipeline/compute.hpp"
#include "core/session/session.hpp"

namespace qkv::ui {

// "Encoder self-attention", "Decoder masked self-attention", "Cross-attention".
QString modeTitle(qkv::AttentionMode mode);
// The axis of the rows (queries) and of the columns (keys and values), naming the sentence each
// comes from in this mode: "queries: target sentence", "keys and values: source sentence".
// "target sentence" / "source sentence": where the queries (keys and values) come from.
QString querySentence(qkv::AttentionMode mode);
QString keySentence(qkv::AttentionMode mode);
QString queryAxisTitle(qkv::AttentionMode mode);
QString keyAxisTitle(qkv::AttentionMode mode);
// The shapes line of a figure title: "n_q = 13, n_k = 11, d_model = 64, h = 4, d_k = 16"
// (and ", g = 2 key/value heads" under grouped-query attention).
QString shapesLine(const qkv::Result& result);
// "13 × 64".
QString shapeText(qkv::Index rows, qkv::Index columns);

// "Head 2" for the 0-based head 1.
QString headName(qkv::Index head);
// Every token's text, in order (a heatmap's row or column labels).
QStringList tokenTexts(const std::vector<std::string>& labels);
// The token text at a position, or "" when there is no such position.
QString tokenText(const std::vector<std::string>& labels, qkv::Index position);
// «cat» (position 3).
QString tokenName(const std::vector<std::string>& labels, qkv::Index position);
QString tokenName(const QString& text, qkv::Index position);  // the same for a token's text

// The two scores, named the same in colour bars, tooltips and the step view: the raw score is
// the dot product q·k, the scaled score q·k/√d_k (what the softmax takes, before the mask).
QString rawScoreName();     // "raw score q·k"
QString scaledScoreName();  // "scaled score q·k/√d_k"

// "Head 2" or, with a title for it, "Head 2 · same meaning" (heads numbered from 1).
QString headTitle(int head, const QStringList& titles);
// Panel titles from what each head is (session_text.hpp's headTitles: "same meaning",
// "random", ...): "Head 1 · same meaning", "Head 2 · random", ... (an empty origin: "Head i").
// A head in `ablated` (0-based) is switched off: its title ends in " · off".
QStringList panelHeadTitles(const QStringList& origins, const std::vector<qkv::Index>& ablated = {});
QStringList headTitlesOf(const qkv::Session& session);

// What a view or figure that draws every head's full map says of a long layer (Result::
// streamed(): past limits::maxFullMapTokens each map is computed in tiles and kept pooled), and
// where the layer is shown instead.
QString longLayerNote(const qkv::Result& result);

}  // namespace qkv::ui
