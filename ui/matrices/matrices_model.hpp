#pragma once
// The matrices of one layer for one head, as the matrices view draws them (the paper's
// Figure 2 as data flows): X_q, X_kv, Q, K, V, Q_i, K_i, V_i, the scaled scores, A_i, A_i V_i,
// Concat, W^O and the output. Each keeps a picture (matrix_picture.hpp: one image, pooled to
// the resolution drawn) and answers exact values from the core's Result, so hover shows the
// stored number, never a pooled one.
//
// Symbols: n_q queries, n_k keys, d_model, h heads, g key/value heads, d_k = d_model / h.
// Building costs one pass over each matrix (~6 n d_model + d_model^2 floats); the pictures that
// do not depend on the head are shared with the previous model of the same Result, so a change
// of head redraws only the head's six matrices.

#include <QString>

#include <array>
#include <memory>

#include "core/pipeline/compute.hpp"
#include "ui/matrices/matrix_picture.hpp"

namespace qkv::ui {

enum class LayerMatrix {
    QueryInput,        // X_q, n_q x d_model
    KeyValueInput,     // X_kv, n_k x d_model
    Query,             // Q, n_q x d_model (after rotation when rotary)
    Key,               // K, n_k x g d_k
    Value,             // V, n_k x g d_k
    QueryHead,         // Q_i, n_q x d_k
    KeyHead,           // K_i, n_k x d_k
    ValueHead,         // V_i, n_k x d_k
    Scores,            // Q_i K_i^T / sqrt(d_k), n_q x n_k, -inf where masked
    Attention,         // A_i, n_q x n_k
    HeadOutput,        // A_i V_i, n_q x d_k
    Concat,            // n_q x d_model, switched-off heads' blocks zero (as W^O receives it)
    OutputProjection,  // W^O, d_model x d_model
    Output,            // n_q x d_model
};
constexpr int kLayerMatrixCount = 14;

// What a matrix's rows are: queries, keys (and values), or model dimensions (W^O).
enum class MatrixRows { Queries, Keys, Model };

class MatricesModel {
public:
    // `previous` (may be null): a model of the same result whose head-independent pictures are reused.
    static std::shared_ptr<const MatricesModel> build(std::shared_ptr<const qkv::Result> result, qkv::Index head,
                                                      const std::shared_ptr<const MatricesModel>& previous = {});

    const qkv::Result& result() const { return *result_; }
    const std::shared_ptr<const qkv::Result>& resultPointer() const { return result_; }
    qkv::Index head() const { return head_; }
    qkv::Index keyValueHead() const { return result_->attention.grouping.keyValueHeadOf(head_); }

    const MatrixPicture& picture(LayerMatrix m) const;
    qkv::Index rows(LayerMatrix m) const;
    qkv::Index columns(LayerMatrix m) const;
    MatrixRows rowKind(LayerMatrix m) const;
    // The stored value at (row, column): the core's number (0 in a switched-off head's Concat block).
    double value(LayerMatrix m, qkv::Index row, qkv::Index column) const;
    // "Q_i", "A_i", ...; and how it is made: "X_q W^Q", "softmax(scores)", ...
    QString name(LayerMatrix m) const;
    QString formula(LayerMatrix m) const;
    // The end of A_i's colour range [0, this]: its 99th percentile rounded up (larger weights saturate).
    double attentionRange() const { return pictures_[static_cast<std::size_t>(LayerMatrix::Attention)]->maxValue; }

    // Rough cost of build() in multiply-adds (each matrix entry coloured counts as
    // kMultiplyAddsPerEntry), for choosing inline or background work (work_placement.hpp).
    static double buildWork(const qkv::Result& result);

private:
    std::shared_ptr<const qkv::Result> result_;
    qkv::Index head_ = 0;
    std::array<std::shared_ptr<const MatrixPicture>, kLayerMatrixCount> pictures_;
};

}  // namespace qkv::ui
