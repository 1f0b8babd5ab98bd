#pragma once
// The math steps of the model, each forward with its backward beside it (the llm.c way). The
// forward pass (model_forward.cpp) strings them together over a packed batch.
//
// Symbols (model_spec.hpp's legend): V vocabulary, P positions, d_model, h heads,
// d_k = d_model / h, d_ff; R rows of a packed batch (every sequence's tokens back to back),
// n_q and n_k the query and key rows of one sequence; w the width of one head's query
// (d_k for factored heads, d_model for full ones).
//
// Conventions:
//   - Row vectors: a token is a row (docs/architecture.md, "Numerical conventions"); y = x W + b.
//   - Every backward ADDS into the gradients it writes (inputs and parameters alike), as llm.c
//     does: a tensor read by several steps (the residual stream, self-attention's X_q = X_kv,
//     the encoder output read by every cross-attention) collects each reader's share, and the
//     caller zeroes a gradient once before the first reader adds to it. The exceptions say
//     "written": softmax, activation and cross-entropy backward, whose input has one reader.
//   - Templated on Scalar: float trains, double checks the gradients (tests against PyTorch
//     float64 and finite differences). Instantiated for both in model_steps.cpp.

#include <cstdint>
#include <span>

#include <Eigen/Core>

#include "core/common/matrix.hpp"
#include "core/trainable/model_spec.hpp"
#include "core/ops/layer_norm.hpp"
#include "core/ops/matrix_views.hpp"
#include "core/ops/softmax.hpp"

namespace qkv {

// ---- Token embedding and positions (paper sections 3.4 and 3.5) --------------------------------

// PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(...), pos from 0; P x d_model.
// Computed in double (for float the same bits as core/embedding's positionalEncoding).
template <typename Scalar>
RowMajorMatrix<Scalar> sinusoidalPositions(Index positions, Index d_model);

// x[r] = scale * E[ids[r]] + PE[positions[r]]; scale = sqrt(d_model) with scaleEmbedding.
template <typename Scalar>
void embeddingForward(MatrixView<Scalar> x,                     // R x d_model
                      std::span<const std::int32_t> ids,        // R
                      std::span<const Index> positions,         // R, from 0 in each sequence
                      ConstMatrixView<Scalar> tokenTable,       // E, V x d_model
                      ConstMatrixView<Scalar> positionTable,    // PE or learned, P x d_model
                      Scalar scale);
// dE[ids[r]] += scale dx[r]; dP[positions[r]] += dx[r] when the table is learned (dPositionTable
// not empty).
template <typename Scalar>
void embeddingBackward(MatrixView<Scalar> dTokenTable, MatrixView<Scalar> dPositionTable, ConstMatrixView<Scalar> dx,
                       std::span<const std::int32_t> ids, std::span<const Index> positions, Scalar scale);

// ---- LayerNorm (Ba et al., 2016): core/ops/layer_norm.hpp's layerNormForward / Backward -------

// ---- Linear map -----------------------------------------------------------------------------------

// y = x W (+ b when b is not null).                      x: R x m, W: m x n, y: R x n
template <typename Scalar>
void linearForward(MatrixView<Scalar> y, ConstMatrixView<Scalar> x, ConstMatrixView<Scalar> W, const Scalar* b);
// dW += x^T dy; db += sum_r dy (db not null); dx += dy W^T (skipped when dx is empty).
template <typename Scalar>
void linearBackward(MatrixView<Scalar> dx, MatrixView<Scalar> dW, Scalar* db, ConstMatrixView<Scalar> dy,
                    ConstMatrixView<Scalar> x, ConstMatrixView<Scalar> W);

// ---- Softmax over rows (paper equation (1)): core/ops/softmax.hpp's softmaxRowsForward / Backward --

// ---- Multi-head attention of ONE sequence (paper section 3.2) -------------------------------------

// Head i's scores are scale * Q_i K_i^T with Q_i = queries[:, i w : (i+1) w] and
//   factored: w = d_k, K_i = keys[:, i d_k : (i+1) d_k]   (Q = X_q W^Q, K = X_kv W^K)
//   full:     w = d_model, K_i = keys = X_kv for every head (Q_i = X_q W_i, so that
//             Q_i K_i^T = X_q W_i X_kv^T)
// scale = 1 / sqrt(d_k) in both forms. A_i = softmax(scores_i) (causal for decoder self-
// attention); head_i = A_i V_i with V_i = values[:, i d_k : (i+1) d_k]; Concat into headOutputs.
struct AttentionShape {
    Index headCount = 1;   // h
    Index d_k = 1;
    Index queryWidth = 1;  // w
    bool sharedKeys = false;  // full form: every head's keys are X_kv
    bool causal = false;
};

template <typename Scalar>
void attentionForward(MatrixView<Scalar> headOutputs,      // Concat(head_1..head_h), n_q x d_model
                      Scalar* attention,                   // A_1..A_h, h x n_q x n_k
                      ConstMatrixView<Scalar> queries,     // n_q x h w
                      ConstMatrixView<Scalar> keys,        // n_k x h w (factored) or n_k x d_model (full)
                      ConstMatrixView<Scalar> values,      // n_k x d_model
                      const AttentionShape& shape);
// dV_i += A_i^T dhead_i; dA_i = dhead_i V_i^T; dS_i = softmax backward; dQ_i += scale dS_i K_i;
// dK_i += scale dS_i^T Q_i. `scratch` holds n_q x n_k values.
template <typename Scalar>
void attentionBackward(MatrixView<Scalar> dQueries, MatrixView<Scalar> dKeys, MatrixView<Scalar> dValues,
                       ConstMatrixView<Scalar> dHeadOutputs, const Scalar* attention, ConstMatrixView<Scalar> queries,
                       ConstMatrixView<Scalar> keys, ConstMatrixView<Scalar> values, const AttentionShape& shape,
                       Scalar* scratch);

// ---- MLP activation (paper section 3.3: ReLU; GELU, Hendrycks & Gimpel 2016, the erf form) ----

// h = max(0, a) or h = a Phi(a) = a (1 + erf(a / sqrt 2)) / 2 (core/ops/relu.hpp, gelu.hpp).
template <typename Scalar>
void activationForward(MatrixView<Scalar> hidden, ConstMatrixView<Scalar> preActivation, Activation activation);
// da = dh * f'(a): ReLU 1 where a > 0; GELU Phi(a) + a phi(a). Written, not added (the
// pre-activation has no other reader).
template <typename Scalar>
void activationBackward(MatrixView<Scalar> dPreActivation, ConstMatrixView<Scalar> dHidden,
                        ConstMatrixView<Scalar> preActivation, Activation activation);

// ---- Residual connection (paper section 3.1) ----------------------------------------------------------

// out = x + sublayer.
template <typename Scalar>
void residualForward(MatrixView<Scalar> out, ConstMatrixView<Scalar> x, ConstMatrixView<Scalar> sublayer);
// dx += dout; dsublayer += dout (the stream's gradient reaches both summands unchanged).
template <typename Scalar>
void residualBackward(MatrixView<Scalar> dx, MatrixView<Scalar> dSublayer, ConstMatrixView<Scalar> dOut);

// ---- Readout and cross-entropy ---------------------------------------------------------------------------

// probabilities = softmax(logits) per row (R x V). Returns sum over labelled rows of
// -log p[label] (natural log, from log-sum-exp, never log(0)); labels[r] = -1 takes no loss.
// predictions[r]: the row's argmax (the first maximum), for the accuracy.
template <typename Scalar>
double crossEntropyForward(MatrixView<Scalar> probabilities, ConstMatrixView<Scalar> logits,
                           std::span<const std::int32_t> labels, std::span<std::int32_t> predictions);
// dlogits = dLoss (p - onehot(label)) for labelled rows, 0 for the others (written, not added).
template <typename Scalar>
void crossEntropyBackward(MatrixView<Scalar> dLogits, ConstMatrixView<Scalar> probabilities,
                          std::span<const std::int32_t> labels, Scalar dLoss);

}  // namespace qkv
