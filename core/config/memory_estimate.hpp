#pragma once
// The memory a computation needs at its peak, term by term, so that a configuration that would
// not fit is refused before anything is allocated (limits::maxResultBytes), and so the
// estimate can be compared with measured peaks (docs/benchmarks.md: within 10%).
//
// Symbols: n_q, n_k query and key/value tokens; d = d_model; h query heads, g key/value heads,
// d_k = d / h, kv = g d_k (the width of K and V); s_q, s_k the rows of the equivalence check
// (min(n, 256)); m = min(d, d_k). Floats are 4 bytes, doubles 8.
//
// The peak is  program + held + max(compute scratch, analysis):
//   held       lives from compute() to the end (the Result, and user embeddings the caller keeps)
//   scratch    lives only while compute() runs (each sentence's embeddings before the Result
//              copies them, one head's scaled Q_i)
//   analysis   lives only while an export writes, one head at a time (the factored analysis,
//              its spectrum, the per-head statistics and PCA)

#include <cstddef>

#include "core/config/config.hpp"

namespace qkv {

// Row counts of user-supplied embeddings that replace a sentence (-1: the sentence is typed and
// must be tokenized and checked).
struct SentenceOverrides {
    Index sourceRows = -1;
    Index targetRows = -1;
};

// What runs on a Result after compute(): nothing in the app's compute, the per-head analyses in
// a JSON or npy export (core/export decides; see exportAnalysisPlan).
struct AnalysisPlan {
    // Per head: W_i^Q, W_i^K in double and the equivalence check X_q W_i X_kv^T on s_q x s_k
    // sampled rows, which forms the dense d x d W_i.
    bool factored = false;
    Index equivalenceSampleRows = 256;
    // Per head: the thin-QR spectrum of W_i, O(d d_k^2) time (skipped at large d_k unless asked).
    bool spectrum = false;
    // Per head: statistics (a few n_q vectors), a 2-D PCA of [Q_i; K_i] and the effect of
    // ablating the head (one n_q x d output).
    bool headStatistics = false;
    // Each head's map kept pooled to at most pooledBlocks x pooledBlocks blocks (block means and
    // maxima) with its row statistics, never n_q x n_k (a long layer, streamed_layer.hpp); 0: the
    // full maps. pooledValueNorms: the value-weighted norms pooled alike.
    Index pooledBlocks = 0;
    bool pooledValueNorms = false;

    bool streamed() const { return pooledBlocks > 0; }
};

// `base` streamed with at most `pooledBlocks` blocks each way: the widest limits, which a
// session's sentences are held to (what the app or an export holds is each one's own check).
inline AnalysisPlan streamedPlan(AnalysisPlan base = {}, Index pooledBlocks = 1)
{
    base.pooledBlocks = pooledBlocks;
    return base;
}

// The most tokens a sentence may have when `plan` runs: limits::maxTokens for a streamed layer,
// limits::maxFullMapTokens when every map is held.
Index sentenceTokenLimit(const AnalysisPlan& plan);

struct MemoryEstimate {
    // Held from compute() to the end.
    std::size_t inputs = 0;       // X_q, X_kv (+ user embeddings the caller keeps)
    std::size_t weights = 0;      // W^Q, W^K, W^V, W^O and biases, times the copies kept
    std::size_t projections = 0;  // Q (n_q x d), K, V (n_k x kv), and Q, K before rotation
    std::size_t maps = 0;         // every head's scores and attention, 2 h n_q n_k floats
    std::size_t outputs = 0;      // Concat(head_1..head_h) and the output, 2 n_q d floats
    // Alive only while compute() runs.
    std::size_t computeScratch = 0;
    // Alive only while an export writes (0 without an AnalysisPlan).
    std::size_t analysis = 0;
    // The process itself: code, libraries, the allocator's and Eigen's GEMM buffers.
    std::size_t program = 0;

    std::size_t held() const { return inputs + weights + projections + maps + outputs; }
    std::size_t peak() const { return program + held() + (computeScratch > analysis ? computeScratch : analysis); }
};

// `queryTokens`, `keyTokens`: n_q and n_k as the mode takes them (validateConfig works them
// out). `overrides` says which sentences are user embeddings (kept by the caller besides X).
MemoryEstimate estimateMemory(const Config& config, Index queryTokens, Index keyTokens,
                              const SentenceOverrides& overrides = {}, const AnalysisPlan& plan = {});

// The terms of the analysis, per head and at its peak (bytes), for tests and docs.
std::size_t factoredAnalysisBytes(Index d_model, Index d_k, Index sampledQueries, Index sampledKeys);
std::size_t spectrumBytes(Index d_model, Index d_k);
std::size_t headStatisticsBytes(Index queryTokens, Index keyTokens, Index d_model, Index d_k);
// Every head's ablation effect (core/analysis/head_ablation), computed once per export.
std::size_t ablationBytes(Index queryTokens, Index d_model, Index d_k);

}  // namespace qkv
