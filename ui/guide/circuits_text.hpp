#pragma once
// What the guide's circuits step says it sees on a learned model, measured by core/circuits
// (Elhage et al. 2021): the strongest induction head's OV circuit (does it copy what it attends
// to: its copying score, how many eigenvalues have a positive real part, for how many of the
// prompt's tokens its OV circuit promotes the token itself first) and the strongest
// previous-token head's QK circuit over token identities (how large its best key scores are,
// beside the induction head's). Every number comes from core; this file only picks and words them.

#include <QString>

#include "core/pipeline/model_overview.hpp"

namespace qkv::ui {

// One or two sentences; empty when the model has no circuits, names no such heads, or is too
// large to measure here (the step runs on the demo model: a vocabulary of 283, d_model 64).
QString circuitsText(const qkv::ModelOverview& overview);

}  // namespace qkv::ui
