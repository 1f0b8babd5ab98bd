#pragma once
// A whole attention layer for long prompts: the engine's projections, rotation and output
// projection (multi_head_attention.hpp, steps 1 and 5) around each head streamed a tile of keys
// at a time (streamed_attention.hpp, steps 2-4), so that no head's n_q x n_k map is ever held.
// The layer's output, Concat(head_1..head_h) and Q, K, V are the engine's own numbers (to float
// rounding: the sums over keys run in tiles); each head's map is kept pooled, with its row
// statistics, and any region is recomputed exactly from Q_i and K_j on request.
//
// Memory (32,768 tokens, d_model 512, h 8, 512 x 512 pooled blocks): Q, K, V, Concat and the
// output (5 n d_model floats, 320 MiB), per head its pooled means and maxima (4 MiB, 8 MiB with
// value norms) and row statistics (1 MiB), per thread a 512 KiB tile. Against 32 GiB for the maps.

#include <vector>

#include "core/attention/multi_head_attention.hpp"
#include "core/attention/streamed_attention.hpp"
#include "core/common/expected.hpp"

namespace qkv {

struct StreamedLayerOptions {
    Index pooledRows = 512;     // at most this many blocks of query rows in each pooled map
    Index pooledColumns = 512;  // ... and of keys
    // Pool each head's value-weighted norms a_qj ||f_i(x_j)|| (value_norms.hpp's N_i) with its
    // weights (PooledAttention::scaledMean, scaledMax).
    bool valueNorms = false;
    StreamControl control;      // rowsDone counts h n_q rows in all
};

struct StreamedLayer {
    // As multiHeadAttentionForward's, except that heads[i].attention and scores are empty.
    AttentionResult attention;
    std::vector<StreamedAttention> heads;  // h entries, their output moved into attention.headOutputs
    // With valueNorms: ||f_i(x_j)||, n_k x h (ValueNorms::transformedNorms), else empty.
    MatrixD transformedNorms;
};

// Preconditions as multiHeadAttentionForward's. Errors: as streamHeadAttention's (a non-finite
// score, a stop), or an output that overflows float.
Expected<StreamedLayer> streamedMultiHeadAttention(const MatrixF& queryInput, const MatrixF& keyValueInput,
                                                   const AttentionWeights& weights, const HeadGrouping& grouping,
                                                   const AttentionOptions& options,
                                                   const StreamedLayerOptions& streamed = {});

// The exact weights of head `head` over rows [firstRow, endRow) x columns [firstColumn,
// endColumn) of a layer whose maps were not kept (attentionRegion on Q_i and K_j).
Expected<MatrixF> headAttentionRegion(const AttentionResult& attention, Index head, Index firstRow, Index endRow,
                                      Index firstColumn, Index endColumn);

}  // namespace qkv
