#pragma once
// What the weights editor draws for one head: the head's four
// blocks W_i^Q, W_i^K, W_i^V (d_model x d_k) and W_i^O (its d_k rows of W^O, d_k x d_model),
// each as a picture pooled to the resolution drawn (block means, matrix_picture.hpp), plus the
// core's head-ablation effects of the result (core/analysis/head_ablation.hpp).
//
// The blocks are those of result.unscaledWeights: the weights the user edits (before the four
// scale sliders), so a typed value is the value shown. Under grouped-query attention (g < h)
// W_i^K and W_i^V are the blocks of the head's key/value head j, shared by its group.
//
// Building costs one pass over the four blocks (4 d_model d_k floats) and the ablation norms
// (a thin QR of each head's W^O rows); at d_model 1024 it runs off the GUI thread.

#include <QString>

#include <array>
#include <memory>
#include <optional>

#include "core/analysis/head_ablation.hpp"
#include "core/pipeline/compute.hpp"
#include "core/weights/head_edits.hpp"
#include "ui/matrices/matrix_picture.hpp"

namespace qkv::ui {

constexpr int kHeadMatrixCount = 4;
constexpr std::array<qkv::HeadMatrix, kHeadMatrixCount> kHeadMatrices = {
    qkv::HeadMatrix::Query, qkv::HeadMatrix::Key, qkv::HeadMatrix::Value, qkv::HeadMatrix::Output};

class HeadWeightsModel {
public:
    static std::shared_ptr<const HeadWeightsModel> build(std::shared_ptr<const qkv::Result> result, qkv::Index head,
                                                         Index maxSide = kPictureSide);
    // Rough cost of build() in multiply-adds, for choosing inline or background work
    // (work_placement.hpp).
    static double buildWork(const qkv::Result& result);

    const qkv::Result& result() const { return *result_; }
    const std::shared_ptr<const qkv::Result>& resultPointer() const { return result_; }
    qkv::Index head() const { return head_; }
    qkv::Index keyValueHead() const { return result_->config.grouping().keyValueHeadOf(head_); }
    bool grouped() const;  // g < h: W_i^K and W_i^V are shared by the key/value group

    const MatrixPicture& picture(qkv::HeadMatrix m) const { return pictures_[index(m)]; }
    const qkv::MatrixF& block(qkv::HeadMatrix m) const { return blocks_[index(m)]; }
    qkv::Index rows(qkv::HeadMatrix m) const { return blocks_[index(m)].rows(); }
    qkv::Index columns(qkv::HeadMatrix m) const { return blocks_[index(m)].cols(); }
    // "W_2^Q", or "W_2^K (key/value head 1's)" under grouping.
    QString name(qkv::HeadMatrix m) const;
    // "W_2^K" alone, and what it is shared as: "(key/value head 1's)" under grouping, else "".
    QString symbol(qkv::HeadMatrix m) const;
    QString sharedAs(qkv::HeadMatrix m) const;
    // "d_model × d_k = 64 × 16".
    QString shapeText(qkv::HeadMatrix m) const;

    // The core's ablation effects, or its error message (effects() is then null).
    const qkv::AblationEffects* effects() const { return effects_ ? &*effects_ : nullptr; }
    const QString& effectsError() const { return effectsError_; }

    static std::size_t index(qkv::HeadMatrix m) { return static_cast<std::size_t>(m); }

private:
    std::shared_ptr<const qkv::Result> result_;
    qkv::Index head_ = 0;
    std::array<qkv::MatrixF, kHeadMatrixCount> blocks_;
    std::array<MatrixPicture, kHeadMatrixCount> pictures_;
    std::optional<qkv::AblationEffects> effects_;
    QString effectsError_;
};

// "W_2^Q" for head 1 (0-based) and the query block.
QString headMatrixSymbol(qkv::HeadMatrix m, qkv::Index head);

}  // namespace qkv::ui
