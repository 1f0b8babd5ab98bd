#pragma once
// Several query tokens selected together (a span, BertViz #125): one head's attention rows over
// queries [first, end) summarised per key, so that a phrase's attention reads as one row.
//   mean_j    = (1 / (end - first)) sum_q a_qj   (a distribution again: each row sums to 1, so
//               does their mean; a masked pair counts as 0)
//   maximum_j = max_q a_qj                       (the strongest any token of the span puts on j)
//   visible_j = some query of the span may see key j (the mask: causal, window, padding)
// Exact: from the held map, or recomputed from Q_i and K_j a block of rows at a time for a long
// layer (Result::streamed(), headAttentionRegion), never holding more than 256 rows.

#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/result/result.hpp"

namespace qkv {

struct SpanRow {
    Index first = 0, end = 0;   // query positions [first, end)
    std::vector<double> mean;   // n_k
    std::vector<float> maximum; // n_k
    std::vector<bool> visible;  // n_k

    Index size() const { return end - first; }
};

// Errors: a head outside the layer, an empty span or one outside the queries (named), and
// headAttentionRegion's for a long layer.
Expected<SpanRow> spanAttentionRow(const Result& result, Index head, Index first, Index end);

}  // namespace qkv
