#pragma once
// The tooltip of one heatmap cell: query token, key token, weight in percent, the raw score
// q·k (= scaled score x sqrt(d_k)) and the scaled score q·k/sqrt(d_k), and with the value-weighted
// norms N_i(q, j) = a^i_qj ||f_i(x_j)|| and what they mean, all from the core.

#include <QString>

#include <utility>

#include "core/analysis/value_norms.hpp"
#include "core/pipeline/compute.hpp"

namespace qkv::ui {

// head = -1: the average-of-heads panel (mean weight only), or with `norms` the layer panel
// (N(q, j) = ||sum_i a^i_qj f_i(x_j)||). `norms` (optional): core's value-weighted norms of
// `result`, shown when the grid shows them.
QString cellToolTip(const qkv::Result& result, int head, int queryRow, int keyColumn,
                    const qkv::ValueNorms* norms = nullptr);

// A long layer's block (Result::streamed(); pooled_panels.hpp): block `row`, `column` of the
// pooled maps, holding query positions `queries` [first, end) and key positions `keys`; its mean
// and largest weight (head -1: the heads' mean of each).
QString pooledCellToolTip(const qkv::Result& result, int head, int row, int column,
                          std::pair<qkv::Index, qkv::Index> queries, std::pair<qkv::Index, qkv::Index> keys);

// The same cell in one plain sentence, the name a screen reader reads (the tooltip, as plain
// text, is its description): "Head 2, query «chat» (position 3), key «cat» (position 1):
// weight 41.0 % (largest in its row)". Same labels and numbers as cellToolTip.
QString cellSentence(const qkv::Result& result, int head, int queryRow, int keyColumn,
                     const qkv::ValueNorms* norms = nullptr);

// A long layer's block in one plain sentence (pooledCellToolTip's numbers).
QString pooledCellSentence(const qkv::Result& result, int head, int row, int column,
                           std::pair<qkv::Index, qkv::Index> queries, std::pair<qkv::Index, qkv::Index> keys);

}  // namespace qkv::ui
