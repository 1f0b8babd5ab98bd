#include "core/attention/multi_head_attention.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/attention/head_blocks.hpp"
#include "core/attention/projections.hpp"
#include "core/common/row_products.hpp"
#include "core/ops/rms_norm.hpp"

namespace qkv {

AttentionResult projectAttentionInputs(const MatrixF& queryInput, const MatrixF& keyValueInput,
                                       const AttentionWeights& weights, const HeadGrouping& grouping,
                                       const AttentionOptions& options)
{
    const AttentionMask& mask = options.mask;
    const Index d_model = weights.d_model();
    const Index headCount = grouping.headCount;
    const Index d_k = grouping.d_k;
    assert(weights.shapeProblem(headCount).empty() && weights.grouping(headCount) == grouping);
    assert(queryInput.cols() == d_model && keyValueInput.cols() == d_model);
    assert(mask.keyPadding.empty() || static_cast<Index>(mask.keyPadding.size()) == keyValueInput.rows());
    assert(!mask.causal || queryInput.rows() == keyValueInput.rows());
    assert(options.rotary == RotaryLayout::None || d_k % 2 == 0);
    (void)d_model;

    AttentionResult result;
    result.grouping = grouping;
    result.rotary = options.rotary;
    result.rotaryDims = options.rotary == RotaryLayout::None ? 0 : options.conventions.rotaryDims;
    result.scoreSoftCap = options.conventions.scoreSoftCap;
    result.mask = mask;
    result.ablated = options.ablated;
    result.ablated.resize(static_cast<std::size_t>(headCount), false);

    // 1. Projections (one GEMM each over all heads: the fused layout), shared by one team.
    projectTogether({{queryInput, weights.queryProjection, result.query},       // n_q x h d_k
                     {keyValueInput, weights.keyProjection, result.key},        // n_k x g d_k
                     {keyValueInput, weights.valueProjection, result.value}});  // n_k x g d_v
    if (weights.hasBias()) {
        result.query.rowwise() += *weights.queryBias;
        result.key.rowwise() += *weights.keyBias;
        result.value.rowwise() += *weights.valueBias;
    }
    // 1b. Qwen3's norms of q and k (AttentionWeights::queryNorm), before any rotation.
    if (weights.hasQueryKeyNorm()) {
        rmsNormSegments(result.query, *weights.queryNorm, weights.queryKeyNormEpsilon);
        rmsNormSegments(result.key, *weights.keyNorm, weights.queryKeyNormEpsilon);
    }
    // 1c. Rotary positions turn q and k by their positions; the step view shows both.
    if (options.rotary != RotaryLayout::None) {
        result.queryBeforeRotation = result.query;
        result.keyBeforeRotation = result.key;
        applyRotary(result.query, d_k, options.rotary, options.conventions.ropeBase, options.conventions.ropeScaling, options.conventions.rotaryDims,
                    options.firstPosition);
        applyRotary(result.key, d_k, options.rotary, options.conventions.ropeBase, options.conventions.ropeScaling, options.conventions.rotaryDims,
                    options.firstPosition);
    }
    // The scale of equation (1), 1/sqrt(d_k) (or of the model's own d).
    const Index scoreDim = options.conventions.scoreDim > 0 ? options.conventions.scoreDim : d_k;
    result.scoreScale = options.scaleScores ? 1.0f / std::sqrt(static_cast<float>(scoreDim)) : 1.0f;
    result.scoreDivisor = options.scaleScores ? std::sqrt(static_cast<double>(scoreDim)) : 1.0;
    result.heads.resize(static_cast<std::size_t>(headCount));
    return result;
}

void projectAttentionOutput(AttentionResult& result, const AttentionWeights& weights, Index firstRow)
{
    const Index n_q = result.headOutputs.rows();
    if (firstRow == 0) result.output.resize(n_q, weights.d_model());
    // Every row of the product depends on its own row of Concat (row_products.hpp), so rows
    // from firstRow have the bits a whole product gives them.
    const MatrixF concat = firstRow == 0 ? MatrixF() : MatrixF(result.headOutputs.bottomRows(n_q - firstRow));
    const MatrixF& rows = firstRow == 0 ? result.headOutputs : concat;  // (n_q - firstRow) x h d_v
    auto output = result.output.bottomRows(n_q - firstRow);            // (n_q - firstRow) x d_model
    // An ablated head's block of Concat counts as zero (its rows of W^O are skipped), the usual
    // head ablation.
    const bool anyAblated = std::find(result.ablated.begin(), result.ablated.end(), true) != result.ablated.end();
    if (!anyAblated && firstRow == 0) {
        projectTogether({{rows, weights.outputProjection, result.output}});  // n_q x d_model
    } else if (!anyAblated) {
        MatrixF product;
        projectTogether({{rows, weights.outputProjection, product}});
        output = product;
    } else {
        output.setZero();
        for (Index head = 0; head < result.headCount(); ++head)
            if (!result.isAblated(head))
                multiplyRowsStable(rows.middleCols(head * result.d_v(), result.d_v()),
                                   weights.outputHead(head, result.grouping), output, true);
    }
    if (weights.hasBias()) output.rowwise() += *weights.outputBias;
}

AttentionResult multiHeadAttentionForward(const MatrixF& queryInput, const MatrixF& keyValueInput,
                                          const AttentionWeights& weights, const HeadGrouping& grouping,
                                          const AttentionOptions& options)
{
    // 1. Projections, norms, rotation.
    AttentionResult result = projectAttentionInputs(queryInput, keyValueInput, weights, grouping, options);
    // 2-4. Scores, softmax and head_i = A_i V_j for every head, fused over blocks of query rows
    //      (head_blocks.hpp), shared among at most threadsFor(work) threads (parallelism.hpp).
    result.headOutputs.resize(queryInput.rows(), grouping.concatWidth());  // n_q x h d_v
    attendHeadsInRowBlocks(result, options.keepScores, 0, options.keepWeights);
    // 5. Output projection.
    projectAttentionOutput(result, weights);
    return result;
}

}  // namespace qkv
