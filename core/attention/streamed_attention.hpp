#pragma once
// One head's attention without its n_q x n_k map, for long prompts (at 32,768 tokens one head's
// map is 4 GiB of float). The scores are computed a tile of keys at a time, twice: first each
// row's maximum and normaliser (the online softmax of Milakov & Gimelshein 2018, "Online
// normalizer calculation for softmax"), then the weights, which are folded into what is kept and
// dropped, as FlashAttention tiles them (Dao et al. 2022). What is kept:
//   pooled   per block of rows x columns, the mean weight and the largest one (a single sharp key
//            stays visible in a pooled overview instead of being averaged away); with key scales
//            c_j also the mean and largest a_qj c_j (value_norms.hpp's N_i = a_qj ||f_i(x_j)||)
//   rows     per query row, exactly: the entropy, the mean distance sum_j a_qj |j - q|, the
//            largest weight, the own-position weight (head_statistics.hpp's definitions)
//   output   with V_j given, head_i = A_i V_j (paper equation (1)), n_q x d_v
//   region   the exact weights of rows [A, B) x columns [C, D), on their own
// The weights are the engine's (paper equation (1), multi_head_attention.hpp):
//   s_qj = c tanh((q_q . k_j) scale / c)  (without a soft cap: (q_q . k_j) scale)
//   a_qj = exp(s_qj - m_q) / sum_j' exp(s_qj' - m_q) over the keys the mask leaves; masked 0.
// Arithmetic: scores, exponentials and weights in float, vectorised over each row's visible keys
// (as the engine's softmax); every sum over more than one tile of keys in double.
// Memory: per thread one block of 64 rows x 2,048 keys of scores (512 KiB) and the pooled
// blocks, never n_q x n_k. Threads: blocks of rows shared among computeThreads() threads.
// Scores must be finite: a score that overflows float (or is NaN) is refused, named, rather
// than drawn (the engine's full maps share +inf logits equally; the stream does not try).

#include <atomic>
#include <functional>
#include <vector>

#include "core/ops/attention_mask.hpp"
#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/ops/block_pooling.hpp"

namespace qkv {

// One head's inputs: Q_i (after rotation) and K_j, as AttentionResult holds them.
struct HeadScoresInput {
    const MatrixF& query;  // n_q x d_k
    const MatrixF& key;    // n_k x d_k
    float scale = 1.0f;    // AttentionResult::scoreScale
    double softCap = 0.0;  // AttentionResult::scoreSoftCap; 0: none
    const AttentionMask& mask;
    const MatrixF* value = nullptr;      // V_j, n_k x d_v: when set, StreamedAttention::output is A_i V_j
    const RowVectorF* keyScales = nullptr;  // c_j, 1 x n_k: when set, the pooled a_qj c_j too
};

// Progress of a long computation and a way to stop it, shared with the caller's thread.
struct StreamControl {
    std::atomic<Index>* rowsDone = nullptr;      // counts query rows finished (all heads together)
    const std::atomic<bool>* stop = nullptr;     // set: the computation ends with streamStoppedError
};
inline constexpr const char* streamStoppedError = "stopped";

// The pooled maps: blocks as core/ops/block_pooling.hpp lays them (blockEdges), each block's mean
// and maximum by its rule, gathered here tile by tile as the stream passes (no map is ever held).
struct PooledAttention {
    std::vector<Index> rowEdges;     // r + 1
    std::vector<Index> columnEdges;  // c + 1
    // Summed in double, kept in float (a whole model at 8,192 tokens holds 144 heads' of them).
    MatrixF mean;                    // r x c: the mean weight of each block's cells (masked cells count as 0)
    MatrixF max;                     // r x c: the largest weight in each block
    MatrixF scaledMean;              // r x c, with key scales: the mean a_qj c_j (else empty)
    MatrixF scaledMax;               // r x c, with key scales: the largest a_qj c_j (else empty)
};

// Per query row; NaN where a row has no distribution (every key masked).
struct StreamedRowStatistics {
    VectorD entropy;       // -sum_j a ln a, natural log
    VectorD meanDistance;  // sum_j a_qj |j - q|
    VectorD maxWeight;
    VectorD selfWeight;  // a_qq; NaN where key q does not exist (q >= n_k)
};

// Each row's softmax constants: a_qj = exp(s_qj - maximum_q) / normaliser_q over the visible keys.
// With them a later pass over the same scores gets the weights without another pass for the
// constants (streamedWeightTiles). A row without a visible key: maximum -inf, normaliser 0.
struct RowNormalisers {
    std::vector<float> maximum;      // n_q
    std::vector<double> normaliser;  // n_q
};

struct StreamedAttention {
    PooledAttention pooled;
    StreamedRowStatistics rows;
    MatrixF output;  // n_q x d_v with HeadScoresInput::value (rows without a visible key 0), else empty
    RowNormalisers normalisers;
};

// The pooled map (at most pooledRows x pooledColumns blocks), the row statistics and, with V_j,
// the head's output. Errors: a pool size below 1; d_k of query and key differ; a non-finite
// score; stopped.
Expected<StreamedAttention> streamHeadAttention(const HeadScoresInput& head, Index pooledRows, Index pooledColumns,
                                                const StreamControl& control = {});

// Several heads' weights of the same cells together, a block of rows x a tile of keys at a time,
// from each head's softmax constants of an earlier stream: what needs every head's weight of a
// cell at once (the layer's value-weighted norm, the heads' mean for the attention rollout).
struct WeightTile {
    Index firstRow = 0, rows = 0;  // query rows [firstRow, firstRow + rows)
    Index firstKey = 0, keys = 0;  // keys [firstKey, firstKey + keys)
    const std::vector<MatrixF>& heads;  // one per head, rows x keys: a_qj (0 where masked)
};
// Visits rows [firstRow, endRow) x keys [firstColumn, endColumn) (only the tiles some row sees),
// blocks of rows shared among computeThreads() threads: the visitor may write its block's rows of
// shared outputs, and gets its thread's number for anything else. `heads` and `normalisers` pair
// up (same length; every head over the same keys and mask). Errors: a stop.
using WeightTileVisitor = std::function<void(const WeightTile& tile, int thread)>;
Status streamedWeightTiles(const std::vector<HeadScoresInput>& heads, const std::vector<const RowNormalisers*>& normalisers,
                           Index firstRow, Index endRow, Index firstColumn, Index endColumn,
                           const WeightTileVisitor& visitor, const StreamControl& control = {});

// The exact weights of rows [firstRow, endRow) x columns [firstColumn, endColumn): each row's
// maximum and normaliser over all its keys, then only the region's weights. Errors: an empty
// region, or one outside n_q x n_k (named); a non-finite score.
//                                                   (endRow - firstRow) x (endColumn - firstColumn)
Expected<MatrixF> attentionRegion(const HeadScoresInput& head, Index firstRow, Index endRow, Index firstColumn,
                                  Index endColumn);

}  // namespace qkv
