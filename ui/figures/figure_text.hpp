#pragma once
// The words every figure shares, defined once: what the axes are for each mode, the mode's
// name, the shapes, the quantities' names (one name per quantity, issue 9 section 6).

#include <QString>
#include <QStringList>

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
// "n_q = 7, n_k = 6 · d_model = 64, h = 4, d_k = 16"
QString shapeSummary(const qkv::Result& result);

// The two scores, named the same in colour bars, tooltips and the step view: the raw score is
// the dot product q·k, the scaled score q·k/√d_k (what the softmax takes, before the mask).
QString rawScoreName();     // "raw score q·k"
QString scaledScoreName();  // "scaled score q·k/√d_k"

// "Head 2" or, with a title for it, "Head 2 · same meaning" (heads numbered from 1).
QString headTitle(int head, const QStringList& titles);
// Panel titles from what each head is (session_text.hpp's headTitles: "same meaning",
// "random", ...): "Head 1 · same meaning", "Head 2 · random", ... (an empty origin: "Head i").
QStringList panelHeadTitles(const QStringList& origins);
QStringList headTitlesOf(const qkv::Session& session);

}  // namespace qkv::ui
