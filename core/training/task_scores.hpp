#pragma once
// What a trained model's heads do, measured on held-out examples.
//   alignment       (reverse, copy, sort, translate; cross-attention heads): the fraction of
//                   target positions with a gold source position whose largest attention weight
//                   lies on it.
//   induction       (decoder-only; paper: Olsson et al. 2022): the mean weight from position t of
//                   the second copy to t - L + 1, the key right after the token's first occurrence.
//   previous_token  the mean weight from position t to t - 1 (t >= 1).
//   effective rank  of a head's W_i: how many singular values carry 99% of its energy
//                   (sum of sigma^2), from the thin factors for factored heads.

#include <vector>

#include "core/trainable/model_forward.hpp"
#include "core/training/tasks.hpp"

namespace qkv {

struct HeadScores {
    Index layer = 0, head = 0;
    double alignment = -1.0;      // -1: not measured for this layer or task
    double induction = -1.0;
    double previousToken = -1.0;
    Index effectiveRank = 0;
    std::vector<double> singularValues;  // of W_i, descending
};

// Every head of every attention layer, over `examples` (the held-out set).
std::vector<HeadScores> scoreHeads(const ModelParameters<float>& parameters, TaskKind task,
                                   const std::vector<TaskExample>& examples);
// The number of leading singular values whose squares sum to >= `energy` of the total.
Index effectiveRank(const std::vector<double>& singularValues, double energy = 0.99);

}  // namespace qkv
