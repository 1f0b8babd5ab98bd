#pragma once
// What a streamed layer's heads give only together, computed from every head's weights a tile at
// a time (streamedWeightTiles), never from held maps (a long prompt's layer, streamed_layer.hpp):
//   layer value norm   N(q, j) = || sum_{i on} a^i_qj f_i(x_j) ||   (value_norms.hpp, Kobayashi et
//                      al. 2020), as sqrt(a^T G_j a) with the Gram matrix G_j of key j's transformed
//                      values f_i(x_j) over the heads that are on, in double
//   head mean          Ā(q, j) = (1 / |on|) sum_{i on} a^i_qj          (attention_rollout.hpp)
// N is kept pooled on given edges (block mean and maximum, masked cells count as 0) and/or over a
// region; Ā whole (n_q x n_k doubles), for the rollout of a model of up to 8,192 tokens.
// Cost per layer: one pass of scores per head, h_on (h_on + 1) / 2 multiply-adds per cell for N;
// G_j once per key (h_on^2 d_model / 2 in double, and the f_i(x_j) products in float).

#include <vector>

#include "core/attention/multi_head_attention.hpp"
#include "core/attention/streamed_attention.hpp"
#include "core/common/expected.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

struct StreamedLayerMapsRequest {
    // Pool N on these edges (PooledAttention's), when both are given.
    const std::vector<Index>* rowEdges = nullptr;
    const std::vector<Index>* columnEdges = nullptr;
    // N over rows [firstRow, endRow) x keys [firstColumn, endColumn), when not empty.
    Index firstRow = 0, endRow = 0, firstColumn = 0, endColumn = 0;
    bool headMean = false;  // Ā over every cell

    bool pooled() const { return rowEdges && columnEdges; }
    bool region() const { return endRow > firstRow && endColumn > firstColumn; }
};

struct StreamedLayerMaps {
    MatrixD normMean, normMax;  // r x c when pooled
    MatrixF normRegion;         // (endRow - firstRow) x (endColumn - firstColumn) when a region
    MatrixD headMean;           // n_q x n_k when asked; empty when every head is off (Â = I)
};

// `attention` is the streamed layer's (Q, K, V, mask, scale, ablation; its maps empty), `heads`
// its StreamedAttention (their softmax constants), `weights` the layer's (W^O). Errors: sizes that
// disagree, a stop.
Expected<StreamedLayerMaps> streamedLayerMaps(const AttentionResult& attention, const std::vector<StreamedAttention>& heads,
                                              const AttentionWeights& weights, const StreamedLayerMapsRequest& request,
                                              const StreamControl& control = {});

}  // namespace qkv
