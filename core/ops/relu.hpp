#pragma once
// ReLU (the paper's FFN, section 3.3, equation (2): max(0, x W_1 + b_1)), forward beside
// backward. Header only: no arithmetic, so the bits do not depend on the including file's flags.
//
// Symbols: R rows (tokens), d_ff the MLP's inner width.

#include "core/common/matrix.hpp"
#include "core/ops/matrix_views.hpp"

namespace qkv {

// hidden = max(0, a), elementwise (the trainable model).                 R x d_ff each
template <typename Scalar>
void reluForward(MatrixView<Scalar> hidden, ConstMatrixView<Scalar> preActivation)
{
    hidden = preActivation.cwiseMax(Scalar(0));
}

// da = dh where a > 0, else 0. Written, not added (the pre-activation has no other reader).
template <typename Scalar>
void reluBackward(MatrixView<Scalar> dPreActivation, ConstMatrixView<Scalar> dHidden,
                  ConstMatrixView<Scalar> preActivation)
{
    dPreActivation = (preActivation.array() > Scalar(0)).select(dHidden, Scalar(0)).matrix();
}

// In place over `count` floats: a > 0 ? a : 0 (a pretrained block's MLP). Unlike cwiseMax, a
// NaN or -0 becomes +0; kept so, as the loaded models' outputs were computed that way.
inline void reluInPlace(float* a, Index count)
{
    for (Index i = 0; i < count; ++i) a[i] = a[i] > 0.0f ? a[i] : 0.0f;
}

}  // namespace qkv
