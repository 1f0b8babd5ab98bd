#pragma once
// GELU (Hendrycks & Gimpel 2016, "Gaussian Error Linear Units", equation (1)), the exact erf
// form, forward beside backward:
//   GELU(a) = a Phi(a) = a (1 + erf(a / sqrt 2)) / 2,   GELU'(a) = Phi(a) + a phi(a)
// and its tanh approximation (the same paper, section 2), forward only:
//   a (1 + tanh(sqrt(2/pi) (a + 0.044715 a^3))) / 2.
// Two evaluations of the erf form, both kept because each feeds tests that hold its bits:
//   geluForward / Backward  std::erf per element, in the Scalar of the run (float trains, double
//                           checks the gradients against PyTorch float64): the trainable model
//   geluErfInPlace          Eigen's vectorised erf (a rational approximation within a few float
//                           ulps of std::erf): a pretrained block's MLP, where libm's erff, a call
//                           per element, took a tenth of a BERT-base forward pass
// gelu.cpp holds the pretrained forms; gelu_model.cpp the model's, compiled as core/trainable is
// (-ffp-contract=off: the model's bits do not depend on where the heap put a buffer).
//
// Symbols: R rows (tokens), d_ff the MLP's inner width.

#include "core/common/matrix.hpp"
#include "core/ops/matrix_views.hpp"

namespace qkv {

// hidden = GELU(a), elementwise with std::erf.                           R x d_ff each
template <typename Scalar>
void geluForward(MatrixView<Scalar> hidden, ConstMatrixView<Scalar> preActivation);
// da = dh * (Phi(a) + a phi(a)). Written, not added (the pre-activation has no other reader).
template <typename Scalar>
void geluBackward(MatrixView<Scalar> dPreActivation, ConstMatrixView<Scalar> dHidden,
                  ConstMatrixView<Scalar> preActivation);

// In place, x = GELU(x) with Eigen's vectorised erf.                     R x d_ff
void geluErfInPlace(MatrixF& x);

// In place, x = the tanh approximation of GELU(x), with Eigen's vectorised tanh (a libm call
// per element took a fifth of a GPT-2-small forward pass, n d_ff L = 9.4 M calls at 256 tokens).
void geluTanhInPlace(MatrixF& x);

}  // namespace qkv
