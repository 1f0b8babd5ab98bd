#include "core/analysis/span_row.hpp"

#include <algorithm>
#include <string>

#include "core/attention/streamed_layer.hpp"

namespace qkv {
namespace {

// Rows recomputed at a time for a long layer: 256 x 32,768 floats is 32 MiB.
constexpr Index kRowsPerBlock = 256;

// Adds rows of weights (rows x n_k) into the mean's sums and the maxima.
void fold(const MatrixF& rows, std::vector<double>& sums, std::vector<float>& maximum)
{
    for (Index q = 0; q < rows.rows(); ++q)
        for (Index j = 0; j < rows.cols(); ++j) {
            const float a = rows(q, j);
            sums[static_cast<std::size_t>(j)] += a;
            maximum[static_cast<std::size_t>(j)] = std::max(maximum[static_cast<std::size_t>(j)], a);
        }
}

// Keys some query of [first, end) may see: each query's visible keys are one interval whose ends
// grow with the query, so their union is marked with a difference array in O(span + n_k).
std::vector<bool> visibleKeys(const AttentionMask& mask, Index keyCount, Index first, Index end)
{
    std::vector<int> starts(static_cast<std::size_t>(keyCount) + 1, 0);
    for (Index q = first; q < end; ++q) {
        const Index begin = mask.visibleBegin(q), stop = mask.visibleEnd(q, keyCount);
        if (begin >= stop) continue;
        ++starts[static_cast<std::size_t>(begin)];
        --starts[static_cast<std::size_t>(stop)];
    }
    std::vector<bool> visible(static_cast<std::size_t>(keyCount), false);
    int open = 0;
    for (Index j = 0; j < keyCount; ++j) {
        open += starts[static_cast<std::size_t>(j)];
        const bool padded = !mask.keyPadding.empty() && mask.keyPadding[static_cast<std::size_t>(j)];
        visible[static_cast<std::size_t>(j)] = open > 0 && !padded;
    }
    return visible;
}

}  // namespace

Expected<SpanRow> spanAttentionRow(const Result& result, Index head, Index first, Index end)
{
    const AttentionResult& attention = result.attention;
    const Index n_q = attention.queryCount(), n_k = attention.keyCount();
    if (head < 0 || head >= attention.headCount())
        return Error{"Head " + std::to_string(head + 1) + " is not in this layer of " +
                     std::to_string(attention.headCount()) + " heads."};
    if (first < 0 || end <= first || end > n_q)
        return Error{"The span of queries " + std::to_string(first) + ":" + std::to_string(end) +
                     " is empty or outside positions 0:" + std::to_string(n_q) + "."};
    SpanRow span{first, end, std::vector<double>(static_cast<std::size_t>(n_k), 0.0),
                 std::vector<float>(static_cast<std::size_t>(n_k), 0.0f), visibleKeys(attention.mask, n_k, first, end)};
    if (result.streamed()) {
        for (Index row = first; row < end; row += kRowsPerBlock) {
            Expected<MatrixF> rows = headAttentionRegion(attention, head, row, std::min(end, row + kRowsPerBlock), 0, n_k);
            if (!rows) return Error{rows.error()};
            fold(*rows, span.mean, span.maximum);
        }
    } else {
        fold(attention.heads[static_cast<std::size_t>(head)].attention.middleRows(first, end - first), span.mean,
             span.maximum);
    }
    for (double& sum : span.mean) sum /= static_cast<double>(end - first);
    return span;
}

}  // namespace qkv
