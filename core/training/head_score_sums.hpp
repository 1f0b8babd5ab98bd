#pragma once
// The sums behind a head's task scores (task_scores.hpp), one example at a time, so that a score
// pools every scored position of every held-out example (not a mean of per-example means).
//
// (effectiveRank, declared in task_scores.hpp, is defined beside these: arithmetic on numbers
// that needs no model.)
//
// Symbols: n_q query positions (rows of A), n_k key positions (columns), L the period of an
// induction example (targetInput = <bos> x_1 .. x_L x_1 .. x_L, n_q = n_k = 2L + 1).

#include <cstdint>
#include <vector>

#include "core/common/matrix.hpp"

namespace qkv {

struct HeadScoreSums {
    double alignmentHits = 0.0, alignmentPositions = 0.0;  // argmax on the gold key / positions with one
    double inductionWeight = 0.0, inductionPositions = 0.0;
    double previousWeight = 0.0, previousPositions = 0.0;

    // The scores, -1 where nothing was counted.
    double alignment() const { return alignmentPositions > 0 ? alignmentHits / alignmentPositions : -1.0; }
    double induction() const { return inductionPositions > 0 ? inductionWeight / inductionPositions : -1.0; }
    double previousToken() const { return previousPositions > 0 ? previousWeight / previousPositions : -1.0; }
};

// Cross-attention A (n_q x n_k) and the gold source position of each query (-1: none): counts the
// queries with a gold position, and those whose largest weight lies on it (ties go to the first
// key, so a uniform row scores only when the gold key is the first).
void addAlignment(const MatrixF& attention, const std::vector<std::int32_t>& gold, HeadScoreSums& sums);
// Causal self-attention A on an induction example of period L: the weight from every position t
// of the second copy (t = L+1 .. 2L) to t - L + 1, the key right after the token's first occurrence.
void addInduction(const MatrixF& attention, Index period, HeadScoreSums& sums);
// Causal self-attention A: the weight from every position t >= 1 to t - 1.
void addPreviousToken(const MatrixF& attention, HeadScoreSums& sums);

}  // namespace qkv
