#pragma once
// What the guide's steps on a learned model say they see, measured on the overview the Model and
// Predict tabs draw (core/pipeline/model_overview.hpp): the heads the app names previous-token and
// induction heads with their scores (core/analysis/head_roles.hpp), the strongest induction head,
// and in one sentence what switching it off did to the model's next-token prediction. Every
// number comes from core; this file only picks and words them.

#include <QString>

#include <optional>

#include "core/pipeline/model_overview.hpp"

namespace qkv::ui {

// The head with the largest induction score of at least kRoleThreshold, named for it by
// headRole(); none when no head is an induction head on these tokens.
std::optional<qkv::ModelHead> strongestInductionHead(const qkv::ModelOverview& overview);

// "Previous-token heads: 0.1 (0.93), 0.3 (0.86). Induction heads: 1.1 (0.86), …" (heads as
// --ablate names them, scores rounded as the Model tab shows them), or that none scores 0.4.
QString learnedRolesText(const qkv::ModelOverview& overview);

// With `overview`'s heads switched off: "With head 1.1 off, p(«h») after «g» falls from 98.9 % to
// 16.8 %." for the token the model found most likely with every head on, at the position a causal
// model predicts next (the last); empty without heads off or a prediction there.
QString switchedOffText(const qkv::ModelOverview& overview);

}  // namespace qkv::ui
