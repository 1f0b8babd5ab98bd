// Attention rollout (definitions in attention_rollout.hpp).
//
// Symbols: L layers, n tokens; Ā_l the mean over the heads that are on, Â_l, R_l.
//   (1) check every layer: square, one n for all, finite, non-negative
//   (2) Â_l = D_l^-1 (Ā_l + I)           (I when the layer's heads are all off)
//   (3) R_0 = Â_0, R_l = Â_l R_{l-1} for l = 1..s

#include "core/analysis/attention_rollout.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <string>

#include "core/attention/multi_head_attention.hpp"
#include "core/common/parallelism.hpp"
#include "core/common/shape_text.hpp"

namespace qkv {

namespace {

// (1) Empty when the maps fit; sets n.
std::string layersProblem(const std::vector<MatrixD>& layerMeans, Index lastLayer, Index& n)
{
    const Index layers = static_cast<Index>(layerMeans.size());
    if (layers == 0) return "attention rollout: no layers";
    if (lastLayer < 0 || lastLayer >= layers)
        return "attention rollout: layer " + std::to_string(lastLayer) + " does not exist: the model has " + std::to_string(layers) +
               " layers (0 to " + std::to_string(layers - 1) + ")";
    n = -1;
    for (Index l = 0; l < layers; ++l) {
        const MatrixD& mean = layerMeans[static_cast<std::size_t>(l)];
        if (mean.size() == 0) continue;  // every head off
        const std::string layer = "attention rollout: layer " + std::to_string(l) + "'s attention";
        if (mean.rows() != mean.cols())
            return layer + " is " + shapeText(mean.rows(), mean.cols()) + ", not square: rollout follows self-attention only";
        if (n >= 0 && mean.rows() != n)
            return layer + " is " + shapeText(mean.rows(), mean.cols()) + " but earlier layers' is " + shapeText(n, n);
        n = mean.rows();
        // NaN fails both comparisons; one pass instead of allFinite() plus minCoeff().
        const bool valid = mean.unaryExpr([](double a) { return (a >= 0.0 && a <= 1.0e300) ? 0.0 : 1.0; }).sum() == 0.0;
        if (!valid) return layer + " has NaN, infinite or negative weights";
    }
    if (n < 0) return "attention rollout: every head of every layer is switched off, so the number of tokens is unknown";
    if (n == 0) return "attention rollout: the attention maps have no tokens";
    return {};
}

// (2) Â_l, row-normalised: every row of Ā_l + I sums to at least 1, so the division is safe.
MatrixD residualAttention(const MatrixD& mean)
{
    MatrixD withResidual = mean;
    withResidual.diagonal().array() += 1.0;
    const VectorD rowSums = withResidual.rowwise().sum();
    return rowSums.cwiseInverse().asDiagonal() * withResidual;
}

// (3) Â_l R in row blocks; rows are independent, so one team shares them (parallelism.hpp).
MatrixD multiply(const MatrixD& layer, const MatrixD& rollout)
{
    const Index n = layer.rows();
    MatrixD product(n, n);
    const int threads = threadsFor(2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n));
    const Index blockRows = std::max<Index>(1, (n + 4 * threads - 1) / (4 * threads));
    const Index blocks = (n + blockRows - 1) / blockRows;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
    for (Index block = 0; block < blocks; ++block) {
        const Index r0 = block * blockRows;
        const Index rows = std::min(blockRows, n - r0);
        product.middleRows(r0, rows).noalias() = layer.middleRows(r0, rows) * rollout;
    }
    return product;
}

// (3) for lower-triangular Â_l and R: product(I, J) = sum_{K = J..I} Â_l(I, K) R(K, J) over
// square blocks, J <= I; the blocks above the diagonal stay 0. Block rows are independent.
MatrixD multiplyLowerTriangular(const MatrixD& layer, const MatrixD& rollout)
{
    constexpr Index kBlock = 256;
    const Index n = layer.rows(), blocks = (n + kBlock - 1) / kBlock;
    MatrixD product = MatrixD::Zero(n, n);
    const int threads = threadsFor(static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / 3.0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
    for (Index bi = blocks - 1; bi >= 0; --bi) {  // the longest rows first
        const Index i0 = bi * kBlock, rows = std::min(kBlock, n - i0);
        for (Index bj = 0; bj <= bi; ++bj) {
            const Index j0 = bj * kBlock, columns = std::min(kBlock, n - j0);
            // K runs over [j0, i0 + rows): Â(I, K) is 0 right of the diagonal, R(K, J) above it.
            product.block(i0, j0, rows, columns).noalias() =
                layer.block(i0, j0, rows, i0 + rows - j0) * rollout.block(j0, j0, i0 + rows - j0, columns);
        }
    }
    return product;
}

}  // namespace

Status foldRolloutLayer(MatrixD& rollout, MatrixD mean, bool lowerTriangular)
{
    if (mean.size() == 0) return {};  // Â_l = I
    if (mean.rows() != mean.cols() || (rollout.size() > 0 && rollout.rows() != mean.rows()))
        return Error{"attention rollout: a layer's attention is " + shapeText(mean.rows(), mean.cols()) +
                     (rollout.size() > 0 ? " after layers of " + shapeText(rollout.rows(), rollout.cols()) : std::string()) +
                     ": rollout follows self-attention (n x n, the same n in every layer) only"};
    try {
        // (2) in place: the same products as residualAttention's diagonal scaling.
        mean.diagonal().array() += 1.0;
        const VectorD inverseRowSums = mean.rowwise().sum().cwiseInverse();
        mean.array().colwise() *= inverseRowSums.array();
        if (rollout.size() == 0) rollout = std::move(mean);
        else rollout = lowerTriangular ? multiplyLowerTriangular(mean, rollout) : multiply(mean, rollout);
    } catch (const std::bad_alloc&) {
        return Error{"attention rollout: not enough memory for three " + shapeText(mean.rows(), mean.rows()) +
                     " matrices in double"};
    }
    return {};
}

MatrixD meanAttentionOfActiveHeads(const AttentionResult& attention)
{
    MatrixD mean;
    Index on = 0;
    for (Index i = 0; i < attention.headCount(); ++i) {
        if (attention.isAblated(i)) continue;
        const MatrixF& a = attention.heads[static_cast<std::size_t>(i)].attention;
        if (on++ == 0) mean = a.cast<double>();
        else mean += a.cast<double>();
    }
    if (on > 0) mean /= static_cast<double>(on);
    return mean;
}

Expected<MatrixD> attentionRollout(const std::vector<MatrixD>& layerMeans, Index lastLayer)
{
    Index n = 0;
    if (const std::string problem = layersProblem(layerMeans, lastLayer, n); !problem.empty()) return Error{problem};
    try {
        MatrixD rollout;  // R_l; empty while every layer so far is I
        for (Index l = 0; l <= lastLayer; ++l) {
            const MatrixD& mean = layerMeans[static_cast<std::size_t>(l)];
            if (mean.size() == 0) continue;  // Â_l = I
            rollout = rollout.size() == 0 ? residualAttention(mean) : multiply(residualAttention(mean), rollout);
        }
        if (rollout.size() == 0) rollout = MatrixD::Identity(n, n);  // layers 0..s all off
        return rollout;
    } catch (const std::bad_alloc&) {
        return Error{"attention rollout: not enough memory for three " + shapeText(n, n) + " matrices in double"};
    }
}

Expected<MatrixD> attentionRollout(const std::vector<const AttentionResult*>& layers, Index lastLayer)
{
    std::vector<MatrixD> means;
    means.reserve(layers.size());
    Index n = -1;  // from every head, switched off or not
    bool anyOn = false;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        if (layers[l] == nullptr) return Error{"attention rollout: layer " + std::to_string(l) + " has no result"};
        for (const HeadAttention& head : layers[l]->heads) {
            if (head.attention.rows() != head.attention.cols() || (n >= 0 && head.attention.rows() != n))
                return Error{"attention rollout: layer " + std::to_string(l) + " has a head of " +
                             shapeText(head.attention.rows(), head.attention.cols()) + " weights" +
                             (n >= 0 ? " after heads of " + shapeText(n, n) : std::string()) +
                             ": rollout follows self-attention (n x n, the same n in every layer) only"};
            n = head.attention.rows();
        }
        means.push_back(meanAttentionOfActiveHeads(*layers[l]));
        anyOn |= means.back().size() > 0;
    }
    // Every head of the model off: nothing mixes the tokens, R = I. The kernel cannot tell n
    // from empty maps, the heads' sizes can.
    if (!anyOn && n > 0 && lastLayer >= 0 && lastLayer < static_cast<Index>(layers.size())) return MatrixD(MatrixD::Identity(n, n));
    return attentionRollout(means, lastLayer);
}

}  // namespace qkv
