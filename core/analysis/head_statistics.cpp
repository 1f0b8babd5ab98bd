// Per-row statistics of one head's attention (definitions in head_statistics.hpp).
//
// Symbols: n_q, n_k; a = one row of A_i in double; s = sum a; v = visible keys of the row.
//   (1) H = -sum p ln p with p = a / s, rearranged to one pass: H = ln s - (1/s) sum a ln a
//   (2) H / ln v                       (0 when v = 1)
//   (3) sum_j a_j |j - q|
//   (4) max_j a_j, and a_q in self modes

#include "core/analysis/head_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/analysis/head_range.hpp"
#include "core/common/parallelism.hpp"
#include "core/result/result.hpp"

namespace qkv {

namespace {

constexpr double notANumber = std::numeric_limits<double>::quiet_NaN();

// Statistics (1)-(3) and the maximum of one row with v >= 1 visible keys, `a` the row in
// double. `keyIndex` holds 0, 1, ..., n_k - 1.
// `sum` = sum of a, finite and > 0.
void rowStatistics(const Eigen::Ref<const Eigen::ArrayXd>& a, double sum, Index q, Index visible,
                   const Eigen::ArrayXd& keyIndex, double& entropy, double& normalized, double& distance,
                   double& maxWeight)
{
    // (1) a ln a with 0 ln 0 = 0: max(a, DBL_MIN) keeps the log finite where a = 0 and the
    //     factor a makes the term 0; a positive float weight (>= 1.4e-45) is far above DBL_MIN.
    const double sumALogA = (a * a.max(std::numeric_limits<double>::min()).log()).sum();
    const double logVisible = std::log(static_cast<double>(visible));
    // Clamped: rounding must not put a uniform row a hair above ln v (or a one-hot row below 0).
    entropy = std::clamp(std::log(sum) - sumALogA / sum, 0.0, logVisible);
    // (2) One visible key: ln 1 = 0, the row is fully concentrated; defined as 0.
    normalized = visible > 1 ? std::min(entropy / logVisible, 1.0) : 0.0;
    // (3) Key index minus query index, on indices in every mode.
    distance = (a * (keyIndex.head(a.size()) - static_cast<double>(q)).abs()).sum();
    maxWeight = a.maxCoeff();
}

// Means over the rows that have a distribution.
HeadStatisticsSummary summarise(const HeadStatistics& stats, bool ownPosition)
{
    HeadStatisticsSummary summary;
    double selfSum = 0.0;
    for (Index q = 0; q < stats.entropy.size(); ++q) {
        if (!stats.hasDistribution(q)) continue;
        ++summary.rows;
        summary.entropy += stats.entropy(q);
        summary.normalizedEntropy += stats.normalizedEntropy(q);
        summary.meanDistance += stats.meanDistance(q);
        summary.maxWeight += stats.maxWeight(q);
        if (ownPosition) selfSum += std::isnan(stats.selfWeight(q)) ? 0.0 : stats.selfWeight(q);
    }
    const double rows = summary.rows > 0 ? static_cast<double>(summary.rows) : notANumber;
    summary.entropy /= rows;
    summary.normalizedEntropy /= rows;
    summary.meanDistance /= rows;
    summary.maxWeight /= rows;
    summary.selfWeight = ownPosition ? selfSum / rows : notANumber;
    return summary;
}

}  // namespace

std::vector<Index> visibleKeyCounts(const AttentionMask& mask, Index n_q, Index n_k)
{
    // Padded keys before each position, so a row costs O(1): hidden(end) = padded keys in [0, end).
    std::vector<Index> paddedBefore(static_cast<std::size_t>(n_k) + 1, 0);
    for (Index k = 0; k < n_k; ++k) {
        const bool padded = !mask.keyPadding.empty() && mask.keyPadding[static_cast<std::size_t>(k)];
        paddedBefore[static_cast<std::size_t>(k) + 1] = paddedBefore[static_cast<std::size_t>(k)] + (padded ? 1 : 0);
    }
    std::vector<Index> visible(static_cast<std::size_t>(n_q));
    for (Index q = 0; q < n_q; ++q) {
        const Index begin = mask.visibleBegin(q);  // a sliding window's first key
        const Index end = mask.visibleEnd(q, n_k);
        visible[static_cast<std::size_t>(q)] =
            end - begin - (paddedBefore[static_cast<std::size_t>(end)] - paddedBefore[static_cast<std::size_t>(begin)]);
    }
    return visible;
}

Expected<HeadStatistics> attentionStatistics(const MatrixF& attention, const AttentionMask& mask,
                                             const std::vector<bool>& fullyMaskedRows, bool ownPosition,
                                             const HeadStatistics* earlier, Index keptRows)
{
    const Index n_q = attention.rows();
    const Index n_k = attention.cols();
    if (!mask.keyPadding.empty() && static_cast<Index>(mask.keyPadding.size()) != n_k)
        return Error{"attention statistics: the key padding has " + std::to_string(mask.keyPadding.size()) +
                     " entries but there are " + std::to_string(n_k) + " keys"};
    if (!fullyMaskedRows.empty() && static_cast<Index>(fullyMaskedRows.size()) != n_q)
        return Error{"attention statistics: " + std::to_string(fullyMaskedRows.size()) +
                     " fully-masked flags for " + std::to_string(n_q) + " queries"};

    HeadStatistics stats;
    stats.visibleKeys = visibleKeyCounts(mask, n_q, n_k);
    stats.entropy = VectorD::Constant(n_q, notANumber);
    stats.normalizedEntropy = VectorD::Constant(n_q, notANumber);
    stats.meanDistance = VectorD::Constant(n_q, notANumber);
    stats.maxWeight = VectorD::Constant(n_q, notANumber);
    if (ownPosition) stats.selfWeight = VectorD::Constant(n_q, notANumber);
    const Index kept = earlier ? std::min({keptRows, n_q, static_cast<Index>(earlier->entropy.size())}) : 0;
    if (kept > 0) {
        stats.entropy.head(kept) = earlier->entropy.head(kept);
        stats.normalizedEntropy.head(kept) = earlier->normalizedEntropy.head(kept);
        stats.meanDistance.head(kept) = earlier->meanDistance.head(kept);
        stats.maxWeight.head(kept) = earlier->maxWeight.head(kept);
        if (ownPosition && earlier->hasSelfWeight()) stats.selfWeight.head(kept) = earlier->selfWeight.head(kept);
    }
    const Eigen::ArrayXd keyIndex = Eigen::ArrayXd::LinSpaced(n_k, 0.0, static_cast<double>(n_k - 1));

    // Rows are independent and write only their own entries; the thread count follows the one
    // policy (parallelism.hpp), so the app's one thread holds here too. Each thread converts its row to double once, into its own column of `rowBuffers` (the
    // passes below read it four times; lazily re-converting was 2.5x slower).
    const int threads = threadsFor(static_cast<double>(n_q - kept) * static_cast<double>(n_k) * workPerWeightWithExp);
    Eigen::MatrixXd rowBuffers(n_k, threads);  // n_k x threads
    std::vector<char> nonFinite(static_cast<std::size_t>(n_q), 0);  // per row: written by its thread only
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads) if (threads > 1)
    for (Index q = kept; q < n_q; ++q) {
        const auto u = static_cast<std::size_t>(q);
        const Index visible = stats.visibleKeys[u];
        if (visible == 0 || (!fullyMaskedRows.empty() && fullyMaskedRows[u])) continue;
        // Keys [0, end): the rest of a causal row is exactly 0 and adds nothing to any statistic;
        // so are the keys before a sliding window, which the visible counts leave out.
        const Index end = mask.visibleEnd(q, n_k);
        auto a = rowBuffers.col(threadNumber()).head(end).array();
        a = attention.row(q).head(end).transpose().cast<double>().array();
        const double sum = a.sum();
        // A NaN or infinity anywhere in the row makes the sum non-finite: one check per row
        // instead of a scalar pass over the matrix (Eigen's allFinite() took half the time).
        if (!std::isfinite(sum)) {
            nonFinite[u] = 1;
            continue;
        }
        if (!(sum > 0.0)) continue;  // no mass on any key: no distribution
        rowStatistics(a, sum, q, visible, keyIndex, stats.entropy(q), stats.normalizedEntropy(q), stats.meanDistance(q),
                      stats.maxWeight(q));
        // (4) The weight on the query's own token; 0 when that key is padded away.
        if (ownPosition && q < n_k) stats.selfWeight(q) = static_cast<double>(attention(q, q));
    }

    if (std::find(nonFinite.begin(), nonFinite.end(), 1) != nonFinite.end())
        return Error{"attention statistics: the attention weights contain NaN or infinite values"};

    stats.summary = summarise(stats, ownPosition);
    return stats;
}

Expected<HeadStatistics> headStatistics(const AttentionResult& attention, Index head, bool ownPosition,
                                        const HeadStatistics* earlier, Index keptRows)
{
    if (head < 0 || head >= attention.headCount()) return Error{headRangeProblem(head, attention.headCount())};
    return attentionStatistics(attention.heads[static_cast<std::size_t>(head)].attention, attention.mask,
                               attention.fullyMaskedRows, ownPosition, earlier, keptRows);
}

HeadStatistics streamedHeadStatistics(const StreamedRowStatistics& rows, const AttentionMask& mask, Index n_k,
                                      bool ownPosition)
{
    const Index n_q = rows.entropy.size();
    HeadStatistics stats;
    stats.visibleKeys = visibleKeyCounts(mask, n_q, n_k);
    stats.entropy = VectorD::Constant(n_q, notANumber);
    stats.normalizedEntropy = VectorD::Constant(n_q, notANumber);
    stats.meanDistance = rows.meanDistance;
    stats.maxWeight = rows.maxWeight;
    if (ownPosition) stats.selfWeight = rows.selfWeight;
    for (Index q = 0; q < n_q; ++q) {
        const Index visible = stats.visibleKeys[static_cast<std::size_t>(q)];
        if (std::isnan(rows.entropy(q)) || visible == 0) continue;
        // The same clamp and definition of (2) as a held row's.
        const double logVisible = std::log(static_cast<double>(visible));
        stats.entropy(q) = std::clamp(rows.entropy(q), 0.0, logVisible);
        stats.normalizedEntropy(q) = visible > 1 ? std::min(stats.entropy(q) / logVisible, 1.0) : 0.0;
    }
    stats.summary = summarise(stats, ownPosition);
    return stats;
}

Expected<HeadStatistics> headStatistics(const Result& result, Index head)
{
    if (result.streamed()) {
        if (head < 0 || head >= result.attention.headCount())
            return Error{headRangeProblem(head, result.attention.headCount())};
        return streamedHeadStatistics(result.streamedHeads[static_cast<std::size_t>(head)].rows, result.attention.mask,
                                      result.attention.keyCount(), hasOwnPosition(result.config.mode));
    }
    return headStatistics(result.attention, head, hasOwnPosition(result.config.mode));
}

std::vector<HeadStatisticsSummary> headStatisticsSummaries(const Result& result)
{
    std::vector<HeadStatisticsSummary> summaries;
    for (Index head = 0; head < result.attention.headCount(); ++head) {
        const Expected<HeadStatistics> stats = headStatistics(result, head);
        if (stats.ok()) {
            summaries.push_back(stats->summary);
        } else {
            HeadStatisticsSummary undefined{notANumber, notANumber, notANumber, notANumber, notANumber, 0};
            summaries.push_back(undefined);
        }
    }
    return summaries;
}

}  // namespace qkv
