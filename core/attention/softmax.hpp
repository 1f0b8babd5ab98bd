#pragma once
// Step 3 of the forward pass: the masked, numerically stable softmax over each row of scores
// (paper section 3.2.1, equation (1)). One rule for one row (softmaxRow); the forward pass
// applies it to blocks of rows while they are in cache, softmaxForward to a whole matrix.

#include <vector>

#include "core/attention/attention_mask.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

// attention[k] = exp(scores[k] - max) / sum for the keys `query` may see, 0 for every other key
// (n_k entries each; the two may be the same memory, to normalise in place).
//   - The maximum runs over the visible keys, starting from -infinity (no magic lower bound),
//     so exp() never overflows whatever the logits' magnitude (even +-1e30).
//   - A +inf logit is the limit of ever larger finite logits: the infinite entries share the
//     weight equally.
//   - No visible key, or every visible logit -inf: no distribution exists. The row becomes
//     zeros (never NaN) and the function returns false ("fully masked").
bool softmaxRow(const float* scores, float* attention, Index n_k, Index query, const AttentionMask& mask);

// softmaxRow on every row of `scores` (n_q x n_k). fullyMasked gets n_q flags (softmaxRow's
// false). Rows are shared among at most threadsFor(work) threads (parallelism.hpp; the app allows one).
MatrixF softmaxForward(const MatrixF& scores, const AttentionMask& mask, std::vector<bool>& fullyMasked);

}  // namespace qkv
