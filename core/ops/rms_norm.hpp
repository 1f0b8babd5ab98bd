#pragma once
// RMSNorm (Zhang & Sennrich 2019, "Root Mean Square Layer Normalization", equation (4)): the
// norm of LLaMA-style blocks. No centring and no bias, unlike LayerNorm:
//   y = x / RMS(x) * gamma,   RMS(x) = sqrt(mean_j x_j^2 + epsilon)
// as Hugging Face's LlamaRMSNorm computes it (epsilon inside the root, config.json's
// rms_norm_eps).
// Two evaluations, both kept because the loaded models' outputs hold their bits:
//   rmsNormForward       the row's sum and the product in double, rounded once: a block's norms
//   rmsNormSegments      the mean square in double, the factor rounded to float and the product in
//                        float: Qwen3's and Gemma 3's q/k norms over each head's d_k entries
//
// Symbols: R rows (tokens), d_model, d_k.

#include "core/common/matrix.hpp"
#include "core/ops/matrix_views.hpp"

namespace qkv {

// Per row of x: y = x rsqrt(mean(x^2) + epsilon) * gamma, computed in double and rounded once
// (a float row loses nothing to the sum); y may be x itself (in place).
template <typename Scalar>
void rmsNormForward(MatrixView<Scalar> y,         // R x d_model
                    ConstMatrixView<Scalar> x,    // R x d_model
                    const Scalar* gamma,          // d_model
                    double epsilon);

// In place, each row's consecutive segments of gamma.size() entries (one head's d_k, or the whole
// row) become x / sqrt(mean(x^2) + eps) * gamma, the mean accumulated in double.
void rmsNormSegments(MatrixF& projected,         // R x (segments * width)
                     const RowVectorF& gamma,    // 1 x width
                     float epsilon);

}  // namespace qkv
