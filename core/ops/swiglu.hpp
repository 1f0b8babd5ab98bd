#pragma once
// The gated MLP of LLaMA-style blocks (Shazeer 2020, "GLU Variants Improve Transformer",
// equation (6)):
//   FFN_SwiGLU(x) = (SiLU(x W_gate) * (x W_up)) W_down        (* elementwise; no biases)
// with SiLU(a) = a sigmoid(a) (Elfwing et al. 2018; "swish" with beta = 1, Ramachandran et al.
// 2017, the spelling of Marian's activation_function).
//
// Symbols: R rows (tokens), d_model, d_ff the inner width (config.json's intermediate_size).

#include "core/common/matrix.hpp"
#include "core/ops/matrix_views.hpp"

namespace qkv {

// hidden = SiLU(a) = a / (1 + exp(-a)), elementwise; hidden may be a itself. A very negative a
// gives -0 (exp(-a) overflows to inf), never NaN.
template <typename Scalar>
void siluForward(MatrixView<Scalar> hidden,          // R x d_ff
                 ConstMatrixView<Scalar> a);         // R x d_ff

// hidden = SiLU(gate) * up, elementwise: the gated product between the MLP's two projections
// gate = x W_gate and up = x W_up. hidden may be gate or up itself.
template <typename Scalar>
void swigluForward(MatrixView<Scalar> hidden,        // R x d_ff
                   ConstMatrixView<Scalar> gate,     // R x d_ff
                   ConstMatrixView<Scalar> up);      // R x d_ff

}  // namespace qkv
