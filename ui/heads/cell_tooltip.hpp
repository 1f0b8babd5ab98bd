#pragma once
// The tooltip of one heatmap cell: query token, key token, weight in percent, the raw score
// q·k (= scaled score x sqrt(d_k)) and the scaled score q·k/sqrt(d_k), all from the core.

#include <QString>

#include "core/pipeline/compute.hpp"

namespace qkv::ui {

// head = -1: the average-of-heads panel (mean weight only).
QString cellToolTip(const qkv::Result& result, int head, int queryRow, int keyColumn);

}  // namespace qkv::ui
