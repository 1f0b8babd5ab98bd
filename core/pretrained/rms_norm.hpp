#pragma once
// RMSNorm (Zhang & Sennrich 2019, "Root Mean Square Layer Normalization", equation (4)): the
// norm of LLaMA-style blocks. No centring and no bias, unlike LayerNorm:
//   y = x / RMS(x) * gamma,   RMS(x) = sqrt(mean_j x_j^2 + epsilon)
// as Hugging Face's LlamaRMSNorm computes it (epsilon inside the root, config.json's
// rms_norm_eps).
//
// Symbols: R rows (tokens), d_model.

#include "core/model/model_steps.hpp"

namespace qkv {

// Per row of x: y = x rsqrt(mean(x^2) + epsilon) * gamma, computed in double and rounded once
// (a float row loses nothing to the sum); y may be x itself (in place).
template <typename Scalar>
void rmsNormForward(MatrixView<Scalar> y,         // R x d_model
                    ConstMatrixView<Scalar> x,    // R x d_model
                    const Scalar* gamma,          // d_model
                    double epsilon);

}  // namespace qkv
