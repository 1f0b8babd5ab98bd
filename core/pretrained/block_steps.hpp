#pragma once
// The math steps of a pretrained block that the training engine's steps (core/trainable/model_steps.hpp)
// do not have, forward only, llm.c style: one function per step, named after it.
//
// Symbols: R rows (tokens), d_model columns of the residual stream, d_ff the MLP's inner width.
// Row vectors throughout: a token is a row, y = x W + b (docs/architecture.md, "Numerical conventions").

#include <vector>

#include "core/common/matrix.hpp"
#include "core/families/family_recipe.hpp"
#include "core/pretrained/pretrained_model.hpp"

namespace qkv {

// LayerNorm (Ba et al. 2016) of each row: (x - mean) / sqrt(var + eps) * gamma + beta, biased
// variance, sums in double (core/ops/layer_norm.hpp's layerNormRows, which also builds the
// first layer's input: the same function, so layer 0 gets the same bits).           R x d_model
MatrixF layerNormRowsForward(const MatrixF& x, const NormWeights& norm, double epsilon);

// RMSNorm (Zhang & Sennrich 2019, equation (4)): x / sqrt(mean(x^2) + eps) * gamma, per row,
// sums in double.                                                                   R x d_model
MatrixF rmsNormRowsForward(const MatrixF& x, const NormWeights& norm, double epsilon);

// The recipe's norm (LayerNorm or RMSNorm).
MatrixF normRowsForward(const MatrixF& x, const NormWeights& norm, PretrainedNorm kind, double epsilon);

// y = x W (+ b when b is not empty), x: R x m, W: m x n. Large products run as row blocks of
// one team (core/attention/projections.hpp), the same numbers whatever the thread count.
MatrixF denseForward(const MatrixF& x, const MatrixF& W, const RowVectorF& b);

// In place, each element a of `x`:
//   GeluErf   a Phi(a) = a (1 + erf(a / sqrt 2)) / 2         (Hendrycks & Gimpel 2016, eq. (1))
//   GeluTanh  a (1 + tanh(sqrt(2/pi) (a + 0.044715 a^3))) / 2   (the same paper, section 2)
//   Relu      max(0, a)
//   Silu      a sigmoid(a) = a / (1 + exp(-a))                 (Elfwing et al. 2018, eq. (4))
// SwiGlu is not elementwise (swiGluForward); asking for it here is a programming error.
void blockActivationForward(MatrixF& x, BlockActivation activation);

// SwiGLU's hidden: SiLU(gate) * up elementwise, written into `up`.                  R x d_ff
void swiGluForward(MatrixF& up, const MatrixF& gate);

// MLP(x) = act(x W_1 + b_1) W_2 + b_2, or with a gate (act(x W_gate) * x W_up) W_down: SwiGLU
// with SiLU, GeGLU with GELU.                                                         R x d_model
MatrixF feedForwardForward(const MatrixF& x, const FeedForwardWeights& weights, BlockActivation activation);

// logits = t E^T (+ b): E is V x d_model as stored (a token table read as the readout), so no
// transposed copy of it is made. Row blocks of one team when large.                    R x V
MatrixF tiedLogitsForward(const MatrixF& t, const MatrixF& E, const RowVectorF& b);

// Rows `rows` of tiedLogitsForward(t, E, b), in that order, with the same bits, for
// rows.size() d_model V multiply-adds instead of R d_model V.                     rows.size() x V
MatrixF tiedLogitsRowsForward(const MatrixF& t, const std::vector<Index>& rows, const MatrixF& E,
                              const RowVectorF& b);

}  // namespace qkv
