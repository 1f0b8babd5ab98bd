#include "core/trainable/model_steps.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/ops/gelu.hpp"
#include "core/ops/relu.hpp"

namespace qkv {

template <typename Scalar>
RowMajorMatrix<Scalar> sinusoidalPositions(Index positions, Index d_model)
{
    // Column 2i holds the sine and 2i+1 the cosine of the same frequency (paper section 3.5).
    RowMajorMatrix<Scalar> table(positions, d_model);  // P x d_model
    for (Index column = 0; column < d_model; ++column) {
        const Index pairStart = column - (column % 2);  // 2i
        const double frequency = 1.0 / std::pow(10000.0, static_cast<double>(pairStart) / static_cast<double>(d_model));
        for (Index position = 0; position < positions; ++position) {
            const double angle = static_cast<double>(position) * frequency;
            table(position, column) = static_cast<Scalar>(column % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    }
    return table;
}

template <typename Scalar>
void embeddingForward(MatrixView<Scalar> x, std::span<const std::int32_t> ids, std::span<const Index> positions,
                      ConstMatrixView<Scalar> tokenTable, ConstMatrixView<Scalar> positionTable, Scalar scale)
{
    assert(static_cast<Index>(ids.size()) == x.rows() && ids.size() == positions.size());
    for (Index r = 0; r < x.rows(); ++r)
        x.row(r) = scale * tokenTable.row(ids[static_cast<std::size_t>(r)]) +
                   positionTable.row(positions[static_cast<std::size_t>(r)]);
}

template <typename Scalar>
void embeddingBackward(MatrixView<Scalar> dTokenTable, MatrixView<Scalar> dPositionTable, ConstMatrixView<Scalar> dx,
                       std::span<const std::int32_t> ids, std::span<const Index> positions, Scalar scale)
{
    for (Index r = 0; r < dx.rows(); ++r) {
        dTokenTable.row(ids[static_cast<std::size_t>(r)]) += scale * dx.row(r);
        if (dPositionTable.size() > 0) dPositionTable.row(positions[static_cast<std::size_t>(r)]) += dx.row(r);
    }
}

template <typename Scalar>
void linearForward(MatrixView<Scalar> y, ConstMatrixView<Scalar> x, ConstMatrixView<Scalar> W, const Scalar* b)
{
    y.noalias() = x * W;
    if (b != nullptr)
        y.rowwise() += Eigen::Map<const Eigen::Matrix<Scalar, 1, Eigen::Dynamic>>(b, W.cols());
}

template <typename Scalar>
void linearBackward(MatrixView<Scalar> dx, MatrixView<Scalar> dW, Scalar* db, ConstMatrixView<Scalar> dy,
                    ConstMatrixView<Scalar> x, ConstMatrixView<Scalar> W)
{
    dW.noalias() += x.transpose() * dy;
    if (db != nullptr) {
        // Row by row, not dy.colwise().sum(): Eigen's column reduction rounds differently with
        // the destination's alignment, and a gradient must not depend on where the heap put it.
        Eigen::Map<Eigen::Matrix<Scalar, 1, Eigen::Dynamic>> bias(db, dy.cols());
        for (Index r = 0; r < dy.rows(); ++r) bias += dy.row(r);
    }
    if (dx.size() > 0) dx.noalias() += dy * W.transpose();
}

// dst (+)= left right for one sequence's tiny products (n ~ 10, d_k ~ 16). Eigen's GEMM packs
// both operands first, which costs more than the product itself here, so below ~32k
// multiply-adds a row-major left operand is multiplied coefficient by coefficient. A transposed
// (column-major) left operand stays with the GEMM: Eigen's coefficient-based product reads it
// with a stride and ran 10-20x slower (measured at n 6-30, d_k 16 and 64).
template <bool accumulate, class Destination, class Left, class Right>
void sequenceProduct(Destination&& destination, const Left& left, const Right& right)
{
    constexpr bool leftRowMajor = (Left::Flags & Eigen::RowMajorBit) != 0;
    const bool coefficientwise = leftRowMajor && left.rows() * left.cols() * right.cols() < 32768;
    if constexpr (accumulate) {
        if (coefficientwise) destination.noalias() += left.lazyProduct(right);
        else destination.noalias() += left * right;
    } else {
        if (coefficientwise) destination.noalias() = left.lazyProduct(right);
        else destination.noalias() = left * right;
    }
}

template <typename Scalar>
void attentionForward(MatrixView<Scalar> headOutputs, Scalar* attention, ConstMatrixView<Scalar> queries,
                      ConstMatrixView<Scalar> keys, ConstMatrixView<Scalar> values, const AttentionShape& shape)
{
    using Map = Eigen::Map<RowMajorMatrix<Scalar>>;
    const Index n_q = queries.rows(), n_k = keys.rows(), w = shape.queryWidth, d_k = shape.d_k;
    const Scalar scale = Scalar(1) / std::sqrt(static_cast<Scalar>(d_k));
    for (Index i = 0; i < shape.headCount; ++i) {
        Map A(attention + i * n_q * n_k, n_q, n_k);  // A_i, n_q x n_k
        // 1. scores_i = Q_i K_i^T / sqrt(d_k)
        const auto keyHead = keys.middleCols(shape.sharedKeys ? 0 : i * w, w);  // n_k x w
        sequenceProduct<false>(A, queries.middleCols(i * w, w), keyHead.transpose());
        A *= scale;
        // 2. A_i = softmax(scores_i), masked for decoder self-attention
        softmaxRowsForward(A.data(), n_q, n_k, shape.causal);
        // 3. head_i = A_i V_i                                                  n_q x d_k
        sequenceProduct<false>(headOutputs.middleCols(i * d_k, d_k), A, values.middleCols(i * d_k, d_k));
    }
}

template <typename Scalar>
void attentionBackward(MatrixView<Scalar> dQueries, MatrixView<Scalar> dKeys, MatrixView<Scalar> dValues,
                       ConstMatrixView<Scalar> dHeadOutputs, const Scalar* attention, ConstMatrixView<Scalar> queries,
                       ConstMatrixView<Scalar> keys, ConstMatrixView<Scalar> values, const AttentionShape& shape,
                       Scalar* scratch)
{
    using Map = Eigen::Map<RowMajorMatrix<Scalar>>;
    using ConstMap = Eigen::Map<const RowMajorMatrix<Scalar>>;
    const Index n_q = queries.rows(), n_k = keys.rows(), w = shape.queryWidth, d_k = shape.d_k;
    const Scalar scale = Scalar(1) / std::sqrt(static_cast<Scalar>(d_k));
    Map dS(scratch, n_q, n_k);  // dA_i, then dscores_i in place
    for (Index i = 0; i < shape.headCount; ++i) {
        const ConstMap A(attention + i * n_q * n_k, n_q, n_k);
        const auto dHead = dHeadOutputs.middleCols(i * d_k, d_k);  // n_q x d_k
        // 3. head_i = A_i V_i:  dV_i += A_i^T dhead_i,  dA_i = dhead_i V_i^T
        sequenceProduct<true>(dValues.middleCols(i * d_k, d_k), A.transpose(), dHead);
        sequenceProduct<false>(dS, dHead, values.middleCols(i * d_k, d_k).transpose());
        // 2. softmax
        softmaxRowsBackward(dS.data(), dS.data(), A.data(), n_q, n_k);
        dS *= scale;
        // 1. scores_i = scale Q_i K_i^T
        const Index keyColumn = shape.sharedKeys ? 0 : i * w;
        sequenceProduct<true>(dQueries.middleCols(i * w, w), dS, keys.middleCols(keyColumn, w));
        sequenceProduct<true>(dKeys.middleCols(keyColumn, w), dS.transpose(), queries.middleCols(i * w, w));
    }
}

template <typename Scalar>
void activationForward(MatrixView<Scalar> hidden, ConstMatrixView<Scalar> preActivation, Activation activation)
{
    if (activation == Activation::Relu) reluForward<Scalar>(hidden, preActivation);
    else geluForward<Scalar>(hidden, preActivation);
}

template <typename Scalar>
void activationBackward(MatrixView<Scalar> dPreActivation, ConstMatrixView<Scalar> dHidden,
                        ConstMatrixView<Scalar> preActivation, Activation activation)
{
    if (activation == Activation::Relu) reluBackward<Scalar>(dPreActivation, dHidden, preActivation);
    else geluBackward<Scalar>(dPreActivation, dHidden, preActivation);
}

template <typename Scalar>
void residualForward(MatrixView<Scalar> out, ConstMatrixView<Scalar> x, ConstMatrixView<Scalar> sublayer)
{
    out = x + sublayer;
}

template <typename Scalar>
void residualBackward(MatrixView<Scalar> dx, MatrixView<Scalar> dSublayer, ConstMatrixView<Scalar> dOut)
{
    dx += dOut;
    dSublayer += dOut;
}

template <typename Scalar>
double crossEntropyForward(MatrixView<Scalar> probabilities, ConstMatrixView<Scalar> logits,
                           std::span<const std::int32_t> labels, std::span<std::int32_t> predictions)
{
    double loss = 0.0;
    for (Index r = 0; r < logits.rows(); ++r) {
        Index argmax = 0;
        const Scalar maximum = logits.row(r).maxCoeff(&argmax);
        probabilities.row(r) = (logits.row(r).array() - maximum).exp().matrix();
        const Scalar sum = probabilities.row(r).sum();
        probabilities.row(r) /= sum;
        const std::int32_t label = labels[static_cast<std::size_t>(r)];
        predictions[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(argmax);
        // -log p[label] = log(sum exp(l - max)) - (l[label] - max)
        if (label >= 0) loss += std::log(static_cast<double>(sum)) - static_cast<double>(logits(r, label) - maximum);
    }
    return loss;
}

template <typename Scalar>
void crossEntropyBackward(MatrixView<Scalar> dLogits, ConstMatrixView<Scalar> probabilities,
                          std::span<const std::int32_t> labels, Scalar dLoss)
{
    for (Index r = 0; r < probabilities.rows(); ++r) {
        const std::int32_t label = labels[static_cast<std::size_t>(r)];
        if (label < 0) {
            dLogits.row(r).setZero();
            continue;
        }
        dLogits.row(r) = dLoss * probabilities.row(r);
        dLogits(r, label) -= dLoss;
    }
}

#define QKV_INSTANTIATE_MODEL_STEPS(Scalar)                                                                         \
    template RowMajorMatrix<Scalar> sinusoidalPositions<Scalar>(Index, Index);                                     \
    template void embeddingForward<Scalar>(MatrixView<Scalar>, std::span<const std::int32_t>,                      \
                                           std::span<const Index>, ConstMatrixView<Scalar>,                        \
                                           ConstMatrixView<Scalar>, Scalar);                                       \
    template void embeddingBackward<Scalar>(MatrixView<Scalar>, MatrixView<Scalar>, ConstMatrixView<Scalar>,       \
                                            std::span<const std::int32_t>, std::span<const Index>, Scalar);        \
    template void linearForward<Scalar>(MatrixView<Scalar>, ConstMatrixView<Scalar>, ConstMatrixView<Scalar>,      \
                                        const Scalar*);                                                            \
    template void linearBackward<Scalar>(MatrixView<Scalar>, MatrixView<Scalar>, Scalar*, ConstMatrixView<Scalar>, \
                                         ConstMatrixView<Scalar>, ConstMatrixView<Scalar>);                        \
    template void attentionForward<Scalar>(MatrixView<Scalar>, Scalar*, ConstMatrixView<Scalar>,                   \
                                           ConstMatrixView<Scalar>, ConstMatrixView<Scalar>, const AttentionShape&); \
    template void attentionBackward<Scalar>(MatrixView<Scalar>, MatrixView<Scalar>, MatrixView<Scalar>,            \
                                            ConstMatrixView<Scalar>, const Scalar*, ConstMatrixView<Scalar>,       \
                                            ConstMatrixView<Scalar>, ConstMatrixView<Scalar>,                      \
                                            const AttentionShape&, Scalar*);                                       \
    template void activationForward<Scalar>(MatrixView<Scalar>, ConstMatrixView<Scalar>, Activation);              \
    template void activationBackward<Scalar>(MatrixView<Scalar>, ConstMatrixView<Scalar>, ConstMatrixView<Scalar>, \
                                             Activation);                                                          \
    template void residualForward<Scalar>(MatrixView<Scalar>, ConstMatrixView<Scalar>, ConstMatrixView<Scalar>);   \
    template void residualBackward<Scalar>(MatrixView<Scalar>, MatrixView<Scalar>, ConstMatrixView<Scalar>);       \
    template double crossEntropyForward<Scalar>(MatrixView<Scalar>, ConstMatrixView<Scalar>,                       \
                                                std::span<const std::int32_t>, std::span<std::int32_t>);                   \
    template void crossEntropyBackward<Scalar>(MatrixView<Scalar>, ConstMatrixView<Scalar>,                        \
                                               std::span<const std::int32_t>, Scalar);

QKV_INSTANTIATE_MODEL_STEPS(float)
QKV_INSTANTIATE_MODEL_STEPS(double)
#undef QKV_INSTANTIATE_MODEL_STEPS

}  // namespace qkv
