#include "core/attention/head_blocks.hpp"

#include <algorithm>
#include <vector>

#include <Eigen/Core>

#include "core/attention/softmax.hpp"
#include "core/common/parallelism.hpp"
#include "core/common/stream_copy.hpp"

namespace qkv {

namespace {

// Floats in one block of scores: 1 MiB, half of a core's L2 on the development VM, so the
// block stays there from the scores' product through the softmax to A_i V_j (measured against
// blocks of 0.5 to 8 MiB in docs/benchmarks.md, BM_AttendBlockRows).
constexpr Index blockFloats = 256 * 1024;

// One task: steps 2-4 for query rows [firstRow, firstRow + rows) of head `head`, worked in
// `block` (at least rows x n_k, this thread's own). Only the finished rows leave the cache,
// by streaming copies (stream_copy.hpp): the n_q x n_k maps are written once and read much
// later, so an ordinary store would first read each line from memory for nothing.
// hasDistribution: this head's n_q flags (softmaxRow's result per row).
void attendRowBlock(AttentionResult& r, Index head, Index firstRow, Index rows, bool keepScores,
                    char* hasDistribution, MatrixF& block)
{
    const Index n_k = r.keyCount();
    HeadAttention& h = r.heads[static_cast<std::size_t>(head)];
    // Keys some row of the block may see: a causal block stops at its last row's position.
    // Kept scores cover every key (the views show the scores before the mask).
    const Index visibleKeys = r.mask.visibleEnd(firstRow + rows - 1, n_k);
    const Index scoredKeys = keepScores ? n_k : visibleKeys;

    // 2. Scaled scores, equation (1): Q_i K_j^T / sqrt(d_k), for this block's queries.
    // The scale goes on the thin Q_i (rows d_k multiplies, not rows n_k), and not into the
    // product expression: Eigen evaluates "(A * B) * s" with noalias() as a lazy
    // coefficient-wise product, ten times slower than its GEMM.
    const MatrixF scaledQuery = r.queryHead(head).middleRows(firstRow, rows) * r.scoreScale;  // rows x d_k
    block.topLeftCorner(rows, scoredKeys).noalias() =
        scaledQuery * r.keyHead(head).topRows(scoredKeys).transpose();  // rows x scoredKeys
    if (keepScores)
        for (Index i = 0; i < rows; ++i) streamCopy(block.row(i).data(), h.scores.row(firstRow + i).data(), n_k);

    // 2b. Gemma 2's soft cap: the softmax reads c tanh(s / c) (the kept scores are s).
    if (r.scoreSoftCap > 0.0) {
        const auto c = static_cast<float>(r.scoreSoftCap);
        auto scores = block.topLeftCorner(rows, scoredKeys).array();
        scores = c * (scores / c).tanh();
    }

    // 3. Masked, stable softmax over each row, in place, while the block is in cache. It writes
    //    all n_k weights of a row (zeros past the row's visible keys).
    for (Index i = 0; i < rows; ++i)
        hasDistribution[firstRow + i] = softmaxRow(block.row(i).data(), block.row(i).data(), n_k, firstRow + i, r.mask) ? 1 : 0;

    // 4. head_i = A_i V_j, straight into the block's rows of Concat(head_1..head_h). Weights of
    //    keys past visibleKeys are exactly 0, so the product skips them.
    r.headOutputs.block(firstRow, head * r.d_v(), rows, r.d_v()).noalias() =
        block.topLeftCorner(rows, visibleKeys) * r.valueHead(head).topRows(visibleKeys);  // rows x d_v
    for (Index i = 0; i < rows; ++i) streamCopy(block.row(i).data(), h.attention.row(firstRow + i).data(), n_k);
    finishStreamCopies();
}

}  // namespace

Index attentionBlockRows(Index n_k)
{
    return std::clamp<Index>(blockFloats / std::max<Index>(n_k, 1), 16, 1024);
}

void attendHeadsInRowBlocks(AttentionResult& r, bool keepScores, Index blockRows)
{
    const Index headCount = r.headCount();
    const Index n_q = r.queryCount();
    const Index n_k = r.keyCount();
    for (HeadAttention& h : r.heads) {
        h.attention.resize(n_q, n_k);  // n_q x n_k
        if (keepScores) h.scores.resize(n_q, n_k);  // n_q x n_k
        else h.scores.resize(0, 0);
    }
    if (n_q == 0 || headCount == 0) {
        r.fullyMaskedRows.assign(static_cast<std::size_t>(n_q), false);
        return;
    }

    blockRows = std::min(blockRows > 0 ? blockRows : attentionBlockRows(n_k), n_q);
    const Index blocksPerHead = (n_q + blockRows - 1) / blockRows;
    const Index tasks = headCount * blocksPerHead;
    std::vector<char> hasDistribution(static_cast<std::size_t>(headCount * n_q), 1);  // h x n_q
    // Multiply-adds of steps 2 and 4, all heads.
    const double work = static_cast<double>(headCount) * static_cast<double>(n_q) * static_cast<double>(n_k) *
                        static_cast<double>(r.d_k() + r.d_v());
    const int threads = threadsFor(work);
    // Blocks of one head are neighbours in the task order, so both threads read the same K_j
    // and V_j at a time; dynamic scheduling evens out causal blocks of unequal length and a
    // core that another process is using.
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        MatrixF block(blockRows, n_k);  // blockRows x n_k, this thread's scores, then weights
#pragma omp for schedule(dynamic, 1)
        for (Index task = 0; task < tasks; ++task) {
            const Index head = task / blocksPerHead;
            const Index firstRow = (task % blocksPerHead) * blockRows;
            const Index rows = std::min(blockRows, n_q - firstRow);
            attendRowBlock(r, head, firstRow, rows, keepScores, hasDistribution.data() + head * n_q, block);
        }
    }

    // The mask is the same for every head; the flags are the last head's, as they always were
    // (they differ only where a head's logits are all -inf, which a mask cannot cause).
    r.fullyMaskedRows.assign(static_cast<std::size_t>(n_q), false);
    const char* lastHead = hasDistribution.data() + (headCount - 1) * n_q;
    for (Index q = 0; q < n_q; ++q) r.fullyMaskedRows[static_cast<std::size_t>(q)] = lastHead[q] == 0;
}

}  // namespace qkv
