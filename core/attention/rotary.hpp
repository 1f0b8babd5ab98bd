#pragma once
// Rotary positions (Su et al. 2021, "RoFormer", section 3.4): each head's q and k are rotated
// pairwise by an angle proportional to their position, so that
//   (R(t) q)^T (R(s) k) = q^T R(s - t) k:
// the score depends on the offset s - t, and W_i = W_i^Q (W_i^K)^T alone no longer fixes it.
// Pair j of a head (0 <= j < d_k / 2) turns by pos * theta_j, theta_j = base^(-2j / d_k),
// stretched for long-context models by RopeScaling (core/config/rope_scaling.hpp).

#include "core/common/matrix.hpp"
#include "core/config/rope_scaling.hpp"

namespace qkv {

enum class RotaryLayout {
    None,
    RotateHalf,   // pairs (j, j + d_k/2): Hugging Face LLaMA's rotate_half
    Interleaved,  // pairs (2j, 2j + 1): RoFormer, GPT-J, Meta's original LLaMA
};

// Rotates every head block of `projected` (n x (heads d_k); row = position 0..n-1) in place.
// Partial rotary (GPT-NeoX's rotary_pct, Phi's partial_rotary_factor): only the first
// `rotaryDims` components of each head turn, as a head of that width would (its own pairs and
// frequencies base^(-2j / rotaryDims)); the other d_k - rotaryDims pass unchanged. 0: all d_k.
// Precondition: d_k and rotaryDims even, rotaryDims <= d_k, projected.cols() a multiple of d_k.
void applyRotary(MatrixF& projected, Index d_k, RotaryLayout layout, double base, const RopeScaling& scaling = {},
                 Index rotaryDims = 0, Index firstPosition = 0);

// theta_j for j = 0 .. d_k/2 - 1 (double), scaled, as applyRotary uses them.
Eigen::VectorXd rotaryFrequencies(Index d_k, double base, const RopeScaling& scaling = {});

}  // namespace qkv
