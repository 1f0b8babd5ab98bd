#include "core/config/memory_estimate.hpp"

#include <algorithm>

#include "core/common/limits.hpp"
#include "core/common/parallelism.hpp"

namespace qkv {

namespace {

constexpr std::size_t kFloat = sizeof(float);
constexpr std::size_t kDouble = sizeof(double);
// Code, shared libraries (Qt is linked even when the export never starts it), the heap's own
// bookkeeping and Eigen's GEMM blocks: 20 MiB measured for the smallest export, plus room.
constexpr std::size_t kProgramBytes = std::size_t{24} << 20;

std::size_t count(Index value) { return static_cast<std::size_t>(std::max<Index>(value, 0)); }

}  // namespace

Index sentenceTokenLimit(const AnalysisPlan& plan)
{
    return plan.streamed() ? limits::maxTokens : limits::maxFullMapTokens;
}

std::size_t factoredAnalysisBytes(Index d_model, Index d_k, Index sampledQueries, Index sampledKeys)
{
    const std::size_t d = count(d_model), dk = count(d_k), sq = count(sampledQueries), sk = count(sampledKeys);
    // Equivalence check (factored_matrix.cpp, scoresBothWays): X_q, X_kv sampled in double, the
    // dense d x d W_i, X_q W_i, both score matrices, and the thin products X W_i^Q, X W_i^K.
    return kDouble * ((sq + sk) * d + d * d + sq * d + 2 * sq * sk + (sq + sk) * dk);
}

std::size_t spectrumBytes(Index d_model, Index d_k)
{
    const std::size_t d = count(d_model), dk = count(d_k), m = std::min(d, dk);
    // Equations (2), (3) of factored_matrix.cpp: while the second QR is built, a column-major
    // copy of W_i^K beside both QR factorisations (3 d d_k); then both factorisations, R_L and
    // R_R (2 m d_k), the middle R_L R_R^T (m^2), and Eigen's BDCSVD: its scaled copy, the
    // bidiagonalisation's Householder vectors, its (m+1) x m work matrix, and the dense
    // bidiagonal it copies from (4 m^2).
    return kDouble * std::max(3 * d * dk, 2 * d * dk + 2 * m * dk + m * m + 4 * m * m);
}

std::size_t headStatisticsBytes(Index queryTokens, Index keyTokens, Index d_model, Index d_k)
{
    const std::size_t nq = count(queryTokens), nk = count(keyTokens), d = count(d_model), dk = count(d_k);
    // The PCA of [Q_i; K_i]: its (n_q + n_k) x d_k working copy and a d_k x d_k covariance in
    // double; the effect of ablating the head: one n_q x d output in float.
    return kDouble * ((nq + nk) * dk + dk * dk) + kFloat * nq * d;
}

std::size_t ablationBytes(Index queryTokens, Index d_model, Index d_k)
{
    const std::size_t nq = count(queryTokens), d = count(d_model), dk = count(d_k), r = std::min(d, dk);
    // head_ablation.cpp, before the export's per-head loop: the sum of the ablated heads'
    // contributions (n_q x d), and for one head at a time its output and W^O rows in double, the
    // thin QR of (W^O_i)^T (d x d_k), its triangle (r x d_k) and head_i R^T (n_q x r).
    return kDouble * (nq * d + nq * dk + dk * d + d * dk + r * dk + nq * r);
}

MemoryEstimate estimateMemory(const Config& config, Index queryTokens, Index keyTokens,
                              const SentenceOverrides& overrides, const AnalysisPlan& plan)
{
    const std::size_t nq = count(queryTokens), nk = count(keyTokens), d = count(config.d_model);
    const std::size_t h = count(config.headCount), dk = count(config.d_k());
    const std::size_t kv = count(config.g()) * dk;  // width of K and V
    const std::size_t qw = h * dk;                   // width of Q and Concat: h d_k
    const bool rotary = isRotary(config.positional);

    MemoryEstimate e;
    e.program = kProgramBytes;
    // X_q and X_kv; user embeddings stay with the caller too (the export keeps them to the end).
    std::size_t userRows = 0;
    if (config.needsSource() && overrides.sourceRows >= 0) userRows += count(overrides.sourceRows);
    if (config.needsTarget() && overrides.targetRows >= 0) userRows += count(overrides.targetRows);
    e.inputs = kFloat * (nq + nk + userRows) * d;
    // W^Q, W^O (d x qw), W^K, W^V (d x kv), biases; a copy each for head presets and for scales.
    const std::size_t oneSet = kFloat * (2 * d * qw + 2 * d * kv + (config.withBias ? qw + d + 2 * kv : 0));
    const std::size_t copies = 1 + (config.presets.empty() ? 0 : 1) + (config.scales == ProjectionScales{} ? 0 : 1);
    e.weights = copies * oneSet;
    e.projections = kFloat * (nq * qw + 2 * nk * kv + (rotary ? nq * qw + nk * kv : 0));
    if (plan.streamed()) {
        // Per head: the pooled means and maxima in float (twice with value norms), four row
        // statistics in double and the softmax constants (a float and a double per row).
        const std::size_t r = std::min(nq, count(plan.pooledBlocks)), c = std::min(nk, count(plan.pooledBlocks));
        const std::size_t pooledMaps = (plan.pooledValueNorms ? 4 : 2) * r * c;
        e.maps = h * (kFloat * pooledMaps + (4 * kDouble + kFloat + kDouble) * nq) +
                 (plan.pooledValueNorms ? kDouble * nk * h : 0);
    } else {
        e.maps = kFloat * 2 * h * nq * nk;
    }
    e.outputs = kFloat * nq * (qw + d);  // Concat and the output

    // compute(): each sentence the mode reads is embedded (or copied from the user's matrix)
    // before X_q and X_kv are copied from it; in cross mode those are two sentences. One head's
    // Q_i / sqrt(d_k) at a time.
    const std::size_t sentenceRows = config.mode == AttentionMode::Cross ? nq + nk : nq;
    e.computeScratch = kFloat * (sentenceRows * d + nq * dk);
    if (plan.streamed()) {
        // Per thread a tile of scores and its own pooled sums; one head's Q_i, K_j, V_j copies and
        // its output while it streams.
        const std::size_t r = std::min(nq, count(plan.pooledBlocks)), c = std::min(nk, count(plan.pooledBlocks));
        const std::size_t threads = count(std::max(1, computeThreads()));
        e.computeScratch += threads * (kFloat * 64 * 2048 + kDouble * (plan.pooledValueNorms ? 4 : 2) * r * c) +
                            kFloat * (2 * nq + 2 * nk) * dk;
    }

    if (plan.factored || plan.spectrum || plan.headStatistics) {
        const Index sq = std::min<Index>(queryTokens, plan.equivalenceSampleRows);
        const Index sk = std::min<Index>(keyTokens, plan.equivalenceSampleRows);
        // One head at a time: W_i^Q, W_i^K in double and the sampled rows (float) stay while
        // the equivalence check and then the spectrum run.
        std::size_t factoredPhase = 0;
        if (plan.factored || plan.spectrum) {
            const std::size_t factors = kDouble * 2 * d * dk + kFloat * count(sq + sk) * d;
            factoredPhase = factors + std::max(plan.factored ? factoredAnalysisBytes(config.d_model, config.d_k(), sq, sk) : 0,
                                               plan.spectrum ? spectrumBytes(config.d_model, config.d_k()) : 0);
        }
        const std::size_t statisticsPhase =
            plan.headStatistics ? headStatisticsBytes(queryTokens, keyTokens, config.d_model, config.d_k()) : 0;
        // Per-head statistics kept for the document: four n_q vectors per head, in double.
        const std::size_t kept = plan.headStatistics ? kDouble * 4 * h * nq : 0;
        // The ablation effects of every head are computed once, before the per-head phases.
        const std::size_t ablationPhase =
            plan.headStatistics ? ablationBytes(queryTokens, config.d_model, config.d_k()) : 0;
        e.analysis = std::max({factoredPhase, statisticsPhase, ablationPhase}) + kept;
    }
    return e;
}

}  // namespace qkv
