#include "core/attention/multi_head_attention.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace qkv {

namespace {

// Keys [0, visibleEnd) may be seen by query q before key padding: all keys, or 0..q when causal.
Index visibleEnd(const AttentionMask& mask, Index q, Index n_k)
{
    return mask.causal ? std::min(q + 1, n_k) : n_k;
}

}  // namespace

MatrixF softmaxForward(const MatrixF& scores, const AttentionMask& mask, std::vector<bool>& fullyMasked)
{
    const Index n_q = scores.rows();
    const Index n_k = scores.cols();
    MatrixF attention(n_q, n_k);  // n_q x n_k; masked entries are set to exactly 0
    fullyMasked.assign(static_cast<std::size_t>(n_q), false);
    constexpr float infinity = std::numeric_limits<float>::infinity();
    const bool padded = !mask.keyPadding.empty();

    // Rows are independent; vector<bool> flags are written after the loop (not thread-safe).
    // As many threads as Eigen may use: the app gives Eigen one thread per computation
    // (design.md section 5), and two OpenMP teams on two cores fight.
    std::vector<char> rowMasked(static_cast<std::size_t>(n_q), 0);
#pragma omp parallel for schedule(static) num_threads(Eigen::nbThreads()) if (n_q * n_k > 262144)
    for (Index q = 0; q < n_q; ++q) {
        const Index end = visibleEnd(mask, q, n_k);
        const auto s = scores.row(q).head(end);
        auto a = attention.row(q).head(end);
        attention.row(q).tail(n_k - end).setZero();  // future keys of a causal query

        // 3a. The row maximum over visible keys, starting from -infinity (no magic lower bound),
        //     so exp() never overflows whatever the logits' magnitude.
        float rowMax = -infinity;
        if (!padded) {
            if (end > 0) rowMax = s.maxCoeff();
        } else {
            for (Index k = 0; k < end; ++k)
                if (!mask.keyPadding[static_cast<std::size_t>(k)]) rowMax = std::max(rowMax, s(k));
        }
        if (rowMax == -infinity) {
            // Every key masked (or every logit -inf): no distribution exists. Zeros, flagged.
            a.setZero();
            rowMasked[static_cast<std::size_t>(q)] = 1;
            continue;
        }

        // 3b. exp(s - max). A +inf logit is the limit of ever larger finite logits: the infinite
        //     entries share the weight equally.
        if (rowMax == infinity) a = (s.array() == infinity).cast<float>().matrix();
        else a = (s.array() - rowMax).exp().matrix();  // vectorised exp
        if (padded) {
            for (Index k = 0; k < end; ++k)
                if (mask.keyPadding[static_cast<std::size_t>(k)]) a(k) = 0.0f;
        }
        // 3c. Normalise; the sum is >= 1 because the maximum contributes exp(0) = 1.
        a /= a.sum();
    }
    for (Index q = 0; q < n_q; ++q) fullyMasked[static_cast<std::size_t>(q)] = rowMasked[static_cast<std::size_t>(q)] != 0;
    return attention;
}

AttentionResult multiHeadAttentionForward(const MatrixF& queryInput, const MatrixF& keyValueInput,
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

    AttentionResult result;
    const Index n_q = queryInput.rows();
    const Index n_k = keyValueInput.rows();
    result.grouping = grouping;
    result.rotary = options.rotary;
    result.mask = mask;
    result.ablated = options.ablated;
    result.ablated.resize(static_cast<std::size_t>(headCount), false);

    // 1. Projections (one GEMM each over all heads: the fused layout).
    result.query.noalias() = queryInput * weights.queryProjection;     // n_q x d_model
    result.key.noalias() = keyValueInput * weights.keyProjection;      // n_k x g d_k
    result.value.noalias() = keyValueInput * weights.valueProjection;  // n_k x g d_k
    if (weights.hasBias()) {
        result.query.rowwise() += *weights.queryBias;
        result.key.rowwise() += *weights.keyBias;
        result.value.rowwise() += *weights.valueBias;
    }
    // 1b. Rotary positions turn q and k by their positions; the step view shows both.
    if (options.rotary != RotaryLayout::None) {
        result.queryBeforeRotation = result.query;
        result.keyBeforeRotation = result.key;
        applyRotary(result.query, d_k, options.rotary, options.ropeBase);
        applyRotary(result.key, d_k, options.rotary, options.ropeBase);
    }

    result.scoreScale = options.scaleScores ? 1.0f / std::sqrt(static_cast<float>(d_k)) : 1.0f;
    result.heads.resize(static_cast<std::size_t>(headCount));
    result.headOutputs.resize(n_q, d_model);  // n_q x d_model
    std::vector<bool> fullyMasked;
    for (Index head = 0; head < headCount; ++head) {
        HeadAttention& h = result.heads[static_cast<std::size_t>(head)];
        const auto q_i = result.queryHead(head);  // n_q x d_k
        const auto k_j = result.keyHead(head);    // n_k x d_k (its key/value head)
        const auto v_j = result.valueHead(head);  // n_k x d_v

        // 2. Scaled scores, equation (1): Q_i K_j^T / sqrt(d_k).
        // The scale goes on the thin Q_i (n_q d_k multiplies, not n_q n_k), and not into the
        // product expression: Eigen evaluates "(A * B) * s" with noalias() as a lazy
        // coefficient-wise product, ten times slower than its GEMM.
        const MatrixF scaledQuery = q_i * result.scoreScale;  // n_q x d_k
        h.scores.resize(n_q, n_k);
        h.scores.noalias() = scaledQuery * k_j.transpose();  // n_q x n_k

        // 3. Masked, stable softmax over each row (keys).
        h.attention = softmaxForward(h.scores, mask, fullyMasked);  // n_q x n_k

        // 4. head_i = A_i V_j, written straight into its block of Concat(head_1..head_h).
        result.headOutputs.middleCols(head * d_k, d_k).noalias() = h.attention * v_j;  // n_q x d_v
    }
    result.fullyMaskedRows = fullyMasked;  // the mask is the same for every head

    // 5. Output projection; an ablated head's block of Concat counts as zero (its rows of W^O
    //    are skipped), the usual head ablation.
    const bool anyAblated = std::find(result.ablated.begin(), result.ablated.end(), true) != result.ablated.end();
    if (!anyAblated) {
        result.output.noalias() = result.headOutputs * weights.outputProjection;  // n_q x d_model
    } else {
        result.output = MatrixF::Zero(n_q, d_model);
        for (Index head = 0; head < headCount; ++head)
            if (!result.isAblated(head))
                result.output.noalias() += result.headOutput(head) * weights.outputHead(head, grouping);
    }
    if (weights.hasBias()) result.output.rowwise() += *weights.outputBias;
    return result;
}

}  // namespace qkv
