#pragma once
// LayerNorm (Ba et al. 2016, "Layer Normalization", equations (3)-(4)) over each row, forward
// beside backward: mean mu, biased variance sigma^2 (divided by d_model, as PyTorch),
//   y = (x - mu) / sqrt(sigma^2 + epsilon) * gamma + beta.
// Two evaluations, both kept because trained and loaded models hold their bits:
//   layerNormForward / Backward  in the Scalar of the run (float trains, double checks the
//                                gradients): the trainable model (core/trainable)
//   layerNormRows                sums and normalisation in double, stored as float: a
//                                pretrained model's input and blocks (core/embedding,
//                                core/pretrained), so layer 0 gets the same bits either way
//
// Symbols: R rows (tokens), d_model columns.

#include "core/common/matrix.hpp"
#include "core/ops/matrix_views.hpp"

namespace qkv {

// y = gamma * xhat + beta, xhat = (x - mu) rstd, rstd = 1 / sqrt(var + epsilon), per row; mean
// and rstd (R each) are kept for the backward.
template <typename Scalar>
void layerNormForward(MatrixView<Scalar> y,              // R x d_model
                      Scalar* mean, Scalar* rstd,        // R each, kept for the backward
                      ConstMatrixView<Scalar> x,         // R x d_model
                      const Scalar* gamma, const Scalar* beta, double epsilon);
// dbeta += sum_r dy; dgamma += sum_r dy * xhat;
// dx += rstd (g - mean(g) - xhat mean(g * xhat)) with g = dy * gamma.
template <typename Scalar>
void layerNormBackward(MatrixView<Scalar> dx, Scalar* dGamma, Scalar* dBeta, ConstMatrixView<Scalar> dy,
                       ConstMatrixView<Scalar> x, const Scalar* mean, const Scalar* rstd, const Scalar* gamma);

struct LayerNormParameters {
    RowVectorF gamma;  // 1 x d_model (the checkpoint's "weight")
    RowVectorF beta;   // 1 x d_model (the checkpoint's "bias")
    double epsilon = 1e-5;
};

// LayerNorm of each row of `rows` (R x d_model) in double; the result as float. Assumes the
// shapes were checked (gamma and beta have rows.cols() entries).
MatrixF layerNormRows(const MatrixD& rows, const LayerNormParameters& norm);

}  // namespace qkv
