#pragma once
// A causal self-attention layer typed on: the sentence keeps its first `kept` tokens and gains or
// changes the ones after. Query t of a causal layer reads keys 0..t only (paper section 3.2.3),
// so the first `kept` rows of Q, K, V, of every head's weights and of the output are those of the
// earlier run. Only the new rows are projected and attended; the earlier rows' kept scores gain
// the new keys' columns (the views show scores before the mask).
//
// The result has the bits of multiHeadAttentionForward on the whole input: every product gives a
// row the same bits whatever rows are multiplied with it (row_products.hpp, head_blocks.hpp).

#include "core/attention/multi_head_attention.hpp"

namespace qkv {

// `earlier`: this layer's result (same weights and options, causal, scores kept or not alike)
// on an input whose first `kept` rows are input's first `kept` rows; kept <= both row counts.
// input: X_q = X_kv, n x d_model. No key padding.
AttentionResult extendCausalAttention(const AttentionResult& earlier, Index kept, const MatrixF& input,
                                      const AttentionWeights& weights, const HeadGrouping& grouping,
                                      const AttentionOptions& options);

}  // namespace qkv
