#pragma once
// Two jobs a head of a causal language model is known to learn, measured on the typed tokens
// (Olsson et al. 2022, "In-context Learning and Induction Heads", section 2):
//   previous-token score  mean over positions t >= 1 of a_{t, t-1}: the weight on the token just
//                         before (a head that copies each token's predecessor into its position)
//   induction score       mean over positions t whose token occurred before, at s < t (the latest
//                         such s), of a_{t, s+1}: the weight on the token that followed the current
//                         one last time (a head that completes "A B ... A" with B)
//   duplicate-token score mean over positions t whose token occurred before of sum_{s < t, id_s = id_t}
//                         a_{t,s}: the weight on the earlier copies of the current token (Wang et
//                         al. 2022, "Interpretability in the Wild", section 3: duplicate token heads)
//   first-token score     mean over every position t of a_{t,0}: the weight resting on the first
//                         token (BOS), the "attention sink" (Xiao et al. 2023)
// All need queries and keys over one sequence (self-attention); the induction score also needs
// a token that repeats (the same id: GPT-2's "a" and "·a" are two tokens), and is NaN without
// one. A head scoring at least kRoleThreshold on one of them is named for it (the larger, when
// both are): 0.4 of a row's weight on one chosen key is far above chance (1/t over t keys) and
// below what the clear cases score (the demo model's heads: 0.46 to 0.93; the others under 0.4). The README of docs/demo-model lists what its
// heads score on one sentence; these functions are how the app finds them on any.

#include <cstdint>
#include <vector>

#include "core/common/matrix.hpp"

namespace qkv {

inline constexpr double kRoleThreshold = 0.4;

enum class HeadRole { None, PreviousToken, Induction };

// NaN with fewer than two positions.
double previousTokenScore(const MatrixF& attention);
// `tokenIds`: the sequence's ids, one per row and column of `attention` (n x n). NaN when no
// token repeats, or when the sizes disagree.
double inductionScore(const MatrixF& attention, const std::vector<std::int32_t>& tokenIds);
// `tokenIds` as for inductionScore. NaN when no token repeats, or when the sizes disagree.
double duplicateTokenScore(const MatrixF& attention, const std::vector<std::int32_t>& tokenIds);
// NaN without a position.
double firstTokenScore(const MatrixF& attention);
// The role two scores show (NaN scores count as 0).
HeadRole headRole(double previousToken, double induction);

}  // namespace qkv
