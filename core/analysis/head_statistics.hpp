#pragma once
// How one head spreads its attention: per query row, the entropy (natural log), the entropy
// divided by the log of the number of visible keys, the mean attention distance, the largest
// weight and, in self modes, the weight on the query's own position; and their means over the
// rows that have a distribution (the compact, sortable per-head table). docs/formats.md
// (`heads[i].statistics`) is the user-facing definition; this header is the same in code.
//
// Symbols: n_q queries (rows of A_i), n_k keys (columns), a_qj the weight of key j for query q,
// v_q the number of keys visible to q (not masked by the causal mask, a sliding window or key
// padding).
//   entropy             H_q = -sum_j p_qj ln p_qj,  p_qj = a_qj / sum_j a_qj,  0 ln 0 = 0
//   normalized entropy  H_q / ln v_q, in [0, 1]; 0 when v_q = 1 (one key: ln 1 = 0, and the
//                       row is as concentrated as a row can be)
//   mean distance       sum_j a_qj |j - q|  (key index minus query index; in cross-attention
//                       the same formula on the two sentences' indices)
//   max weight          max_j a_qj
//   self weight         a_qq (self modes only: encoder self and decoder causal); 0 when key q
//                       is padded away; absent in cross-attention (no own position)
// Entropy uses the row renormalised in double (a float row sums to 1 only within ~1e-7) and
// is clamped to [0, ln v_q], so rounding never puts a uniform row above its bound. The other
// statistics use the stored weights as they are, the numbers the app shows.
// A fully masked row (v_q = 0, or flagged by the softmax) has no distribution: every
// statistic is NaN (null in JSON) and the row is left out of the means.
// All arithmetic in double (docs/architecture.md, "Numerical conventions"). Cost: one pass over A_i, O(n_q n_k) with a
// log per visible weight; rows run in parallel on at most threadsFor(work) threads (parallelism.hpp).

#include <cmath>
#include <vector>

#include "core/ops/attention_mask.hpp"
#include "core/attention/streamed_attention.hpp"
#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/config/config.hpp"

namespace qkv {

struct Result;
struct AttentionResult;

// Encoder self and decoder causal attention: query q and key q are the same token.
inline bool hasOwnPosition(AttentionMode mode) { return mode != AttentionMode::Cross; }

// Means over the rows that have a distribution (NaN when there is none).
struct HeadStatisticsSummary {
    double entropy = 0.0;
    double normalizedEntropy = 0.0;
    double meanDistance = 0.0;
    double maxWeight = 0.0;
    double selfWeight = 0.0;  // NaN in cross-attention
    Index rows = 0;           // rows averaged: n_q minus the fully masked rows
};

struct HeadStatistics {
    std::vector<Index> visibleKeys;  // v_q, n_q entries (0 for a fully masked row)
    VectorD entropy;                 // n_q; NaN where the row has no distribution
    VectorD normalizedEntropy;       // n_q
    VectorD meanDistance;            // n_q
    VectorD maxWeight;               // n_q
    VectorD selfWeight;              // n_q in self modes; empty in cross-attention
    HeadStatisticsSummary summary;

    bool hasSelfWeight() const { return selfWeight.size() > 0; }
    // False for a fully masked row: its statistics are NaN.
    bool hasDistribution(Index query) const { return !std::isnan(entropy(query)); }
};

// v_q for every query: the keys `mask` leaves visible (n_q entries).
std::vector<Index> visibleKeyCounts(const AttentionMask& mask, Index n_q, Index n_k);

// The kernel, on any attention matrix (n_q x n_k, rows summing to 1 over visible keys, masked
// entries 0) with its mask and the softmax's fully-masked flags (n_q entries, or empty: then
// a row is fully masked when v_q = 0). ownPosition: self modes (then a_qq exists for q < n_k).
// Errors: a key padding of the wrong length, flags of the wrong length, non-finite weights in
// a row that has a distribution (the entries a statistic reads).
// `earlier`, with keptRows > 0: the statistics of a map whose first keptRows rows are this
// one's (a causal layer typed on, causal_extension.hpp): those rows are taken from it, the
// others computed, the same numbers as computing every row.
Expected<HeadStatistics> attentionStatistics(const MatrixF& attention, const AttentionMask& mask,
                                             const std::vector<bool>& fullyMaskedRows, bool ownPosition,
                                             const HeadStatistics* earlier = nullptr, Index keptRows = 0);

// The statistics of a streamed head (streamed_attention.hpp), which computed (1), (3), the
// maximum and (4) exactly from its rows; (2) and the means here, as for a held map.
HeadStatistics streamedHeadStatistics(const StreamedRowStatistics& rows, const AttentionMask& mask, Index n_k,
                                      bool ownPosition);

// Head `head` (0-based) of a computed layer (earlier, keptRows: as attentionStatistics).
Expected<HeadStatistics> headStatistics(const AttentionResult& attention, Index head, bool ownPosition,
                                        const HeadStatistics* earlier = nullptr, Index keptRows = 0);
// The same for a Result: self modes from Result::config.mode; a streamed layer's from its
// stream. What the views call.
Expected<HeadStatistics> headStatistics(const Result& result, Index head);
// Every head's summary (h entries), for the sortable per-head table. Keeps one head's
// per-row vectors at a time.
std::vector<HeadStatisticsSummary> headStatisticsSummaries(const Result& result);

}  // namespace qkv
