#include "core/ops/softmax.hpp"

#include <algorithm>
#include <limits>

#include <Eigen/Core>

#include "core/common/parallelism.hpp"

namespace qkv {

bool softmaxRow(const float* scores, float* attention, Index n_k, Index query, const AttentionMask& mask)
{
    constexpr float infinity = std::numeric_limits<float>::infinity();
    const Index begin = mask.visibleBegin(query);
    const Index end = mask.visibleEnd(query, n_k);
    const bool padded = !mask.keyPadding.empty();
    // s and a may share memory: every expression below reads entry k before writing entry k.
    const Eigen::Map<const RowVectorF> s(scores + begin, end - begin);  // visible keys' scores
    Eigen::Map<RowVectorF> a(attention + begin, end - begin);           // their attention weights
    Eigen::Map<RowVectorF>(attention, begin).setZero();                 // keys before a sliding window
    Eigen::Map<RowVectorF>(attention + end, n_k - end).setZero();       // future keys of a causal query

    // 3a. The row maximum over visible keys, starting from -infinity.
    float rowMax = -infinity;
    if (!padded) {
        if (end > begin) rowMax = s.maxCoeff();
    } else {
        for (Index k = 0; k < end - begin; ++k)
            if (!mask.keyPadding[static_cast<std::size_t>(begin + k)]) rowMax = std::max(rowMax, s(k));
    }
    const SoftmaxRowCase rowCase = softmaxRowCase(rowMax);
    if (rowCase == SoftmaxRowCase::FullyMasked) {
        a.setZero();
        return false;
    }

    // 3b. exp(s - max), vectorised; at +inf the infinite entries share the weight.
    if (rowCase == SoftmaxRowCase::InfiniteLogits) a = (s.array() == infinity).cast<float>().matrix();
    else a = (s.array() - rowMax).exp().matrix();
    if (padded) {
        for (Index k = 0; k < end - begin; ++k)
            if (mask.keyPadding[static_cast<std::size_t>(begin + k)]) a(k) = 0.0f;
    }
    // 3c. Normalise. The sum is >= 1 because the maximum contributes exp(0) = 1; one reciprocal
    //     and n_k multiplies cost a fifth of n_k divisions (measured), at one rounding more.
    a *= 1.0f / a.sum();
    return true;
}

MatrixF softmaxForward(const MatrixF& scores, const AttentionMask& mask, std::vector<bool>& fullyMasked)
{
    const Index n_q = scores.rows();
    const Index n_k = scores.cols();
    MatrixF attention(n_q, n_k);  // n_q x n_k; masked entries are exactly 0

    // Rows are independent; vector<bool> flags are written after the loop (not thread-safe).
    std::vector<char> hasDistribution(static_cast<std::size_t>(n_q), 1);
    const int threads = threadsFor(static_cast<double>(n_q) * static_cast<double>(n_k) * workPerWeightWithExp);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (Index q = 0; q < n_q; ++q)
        hasDistribution[static_cast<std::size_t>(q)] =
            softmaxRow(scores.row(q).data(), attention.row(q).data(), n_k, q, mask) ? 1 : 0;

    fullyMasked.assign(static_cast<std::size_t>(n_q), false);
    for (Index q = 0; q < n_q; ++q) fullyMasked[static_cast<std::size_t>(q)] = hasDistribution[static_cast<std::size_t>(q)] == 0;
    return attention;
}

}  // namespace qkv
