#pragma once
// Edits of one head's weights, for the per-head weights editor. Each takes
// the weights as they are and returns edited copies (the app keeps weights immutable and
// shared); none changes another head's blocks, except that W^K and W^V blocks are shared by a
// key/value group when g < h (AttentionWeights knows the layout).

#include <cstdint>
#include <string_view>

#include "core/common/expected.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

// A head's four blocks: W_i^Q, W_i^K, W_i^V (d_model x d_k) and its d_k rows of W^O.
enum class HeadMatrix { Query, Key, Value, Output };
std::string_view headMatrixName(HeadMatrix matrix);  // "W_i^Q", "W_i^K", "W_i^V", "W_i^O"

// The block's shape: d_model x d_k, or d_k x d_model for Output.
Index headMatrixRows(HeadMatrix matrix, const HeadGrouping& g, Index d_model);
Index headMatrixColumns(HeadMatrix matrix, const HeadGrouping& g, Index d_model);
// A copy of the block (float), for drawing and for tests.
MatrixF headBlock(const AttentionWeights& weights, const HeadGrouping& g, Index head, HeadMatrix matrix);

// One entry of the block set to `value` (finite). Errors name the bad index or value.
Expected<AttentionWeights> setHeadEntry(const AttentionWeights& weights, const HeadGrouping& g, Index head,
                                        HeadMatrix matrix, Index row, Index column, float value);
// The block times `factor` (finite).
Expected<AttentionWeights> scaleHeadBlock(const AttentionWeights& weights, const HeadGrouping& g, Index head,
                                          HeadMatrix matrix, float factor);
// W_i^Q and W_i^K exchanged: W_i becomes its transpose, so the head looks from keys to
// queries (scores(t, u) of the new head = the old form with the roles of the tokens swapped).
AttentionWeights swapQueryAndKey(const AttentionWeights& weights, const HeadGrouping& g, Index head);
// Fresh random blocks for the head (all four), drawn as initialiseWeights would draw a layer
// with this seed and initialisation, but for this head only.
AttentionWeights rerandomiseHead(const AttentionWeights& weights, const HeadGrouping& g, Index head, std::uint64_t seed,
                                 WeightInit init);
// Head `from`'s four blocks (and its biases' blocks) copied onto head `to`.
AttentionWeights copyHead(const AttentionWeights& weights, const HeadGrouping& g, Index from, Index to);

}  // namespace qkv
