#include "core/attention/head_blocks.hpp"

#include <algorithm>
#include <vector>

#include <Eigen/Core>

#include "core/common/parallelism.hpp"
#include "core/common/row_products.hpp"
#include "core/common/stream_copy.hpp"
#include "core/ops/soft_cap.hpp"
#include "core/ops/softmax.hpp"

namespace qkv {

namespace {

// Floats in one block of scores: 1 MiB, half of a core's L2 on the development VM, so the
// block stays there from the scores' product through the softmax to A_i V_j (measured against
// blocks of 0.5 to 8 MiB in docs/benchmarks.md, BM_AttendBlockRows).
constexpr Index blockFloats = 256 * 1024;

// Every weight a_qj must have the same bits however the queries are cut into blocks and however
// many keys follow key j (a causal prompt typed on: model_run.hpp reuses the earlier rows). Three
// things in Eigen's GEMM would make them depend on it, and each is padded away here:
// - query rows go through the kernel four at a time (row_products.hpp): blocks are padded to a
//   multiple of four rows;
// - keys are the product's left-hand side, cut into panels of three packets (48 floats with
//   AVX-512; 24 and 12 on AVX and SSE divide it) and a last partial panel summed in another order:
//   the keys are scored in whole panels, the last ones beside zero keys;
// - in A_i V_j the keys are the depth, which Eigen cuts into blocks whose size depends on it, and
//   whose last steps (below the kernel's 8-step unrolling) go to other accumulators: the depth is
//   summed here in fixed blocks of keys from key 0, the last padded to 8 with zero weights.
constexpr Index kKeyPanel = 48;
constexpr Index kDepthStep = 8;
// At most Eigen's own depth block on any x86 level (288 floats with AVX2's 32 KiB L1), so
// Eigen never cuts these further.
constexpr Index kDepthBlock = 128;

Index roundUp(Index x, Index multiple) { return (x + multiple - 1) / multiple * multiple; }

// One thread's block: scores, then weights, of up to `rows` queries (a multiple of four) against
// n_k keys padded to whole panels.
MatrixF scratchBlock(Index rows, Index n_k)
{
    return MatrixF::Zero(roundUp(rows, kProductRowGroup), roundUp(std::max<Index>(n_k, 1), kKeyPanel));
}

// out = scaledQuery keys^T, whole key panels: out has at least roundUp(keys.rows(), 48) columns
// (the padded ones hold the scores of zero keys).          scaledQuery.rows() x keys.rows()
void scoreInWholePanels(const MatrixF& scaledQuery, const Eigen::Ref<const MatrixF>& keys, Eigen::Ref<MatrixF> out)
{
    const Index keyCount = keys.rows();
    const Index whole = keyCount - keyCount % kKeyPanel;
    if (whole > 0) out.leftCols(whole).noalias() = scaledQuery * keys.topRows(whole).transpose();
    if (whole == keyCount) return;
    MatrixF panel = MatrixF::Zero(kKeyPanel, keys.cols());  // 48 x d_k: the last keys, then zeros
    panel.topRows(keyCount - whole) = keys.bottomRows(keyCount - whole);
    out.middleCols(whole, kKeyPanel).noalias() = scaledQuery * panel.transpose();
}

// Rows [firstRow, firstRow + rows) of head `head`'s Q_i times the score scale, and copies of the
// last to fill a group of four (row_products.hpp).             roundUp(rows, 4) x d_k
MatrixF scaledQueryRows(const AttentionResult& r, Index head, Index firstRow, Index rows)
{
    MatrixF scaled(roundUp(rows, kProductRowGroup), r.d_k());
    for (Index i = 0; i < scaled.rows(); ++i)
        scaled.row(i) = r.queryHead(head).row(firstRow + std::min(i, rows - 1)) * r.scoreScale;
    return scaled;
}

// out = weights values over the keys [0, depth) in fixed blocks; weights' columns past the
// values' rows must be zero (they meet zero value rows).          weights.rows() x d_v
void weighValuesInFixedBlocks(const Eigen::Ref<const MatrixF>& weights, const Eigen::Ref<const MatrixF>& values,
                              Index depth, MatrixF& out)
{
    out.setZero(weights.rows(), values.cols());
    for (Index first = 0; first < depth; first += kDepthBlock) {
        const Index width = std::min(kDepthBlock, depth - first);
        const Index present = std::min(width, values.rows() - first);  // value rows that exist
        if (present == width) {
            out.noalias() += weights.middleCols(first, width) * values.middleRows(first, width);
        } else {
            MatrixF padded = MatrixF::Zero(width, values.cols());  // width x d_v
            padded.topRows(present) = values.middleRows(first, present);
            out.noalias() += weights.middleCols(first, width) * padded;
        }
    }
}

// One task: steps 2-4 for query rows [firstRow, firstRow + rows) of head `head`, worked in
// `block` (scratchBlock: this thread's own). Only the finished rows leave the cache, by streaming
// copies (stream_copy.hpp): the n_q x n_k maps are written once and read much later, so an
// ordinary store would first read each line from memory for nothing.
// hasDistribution: this head's n_q flags (softmaxRow's result per row).
void attendRowBlock(AttentionResult& r, Index head, Index firstRow, Index rows, bool keepScores, bool keepWeights,
                    char* hasDistribution, MatrixF& block)
{
    const Index n_k = r.keyCount();
    const Index paddedRows = roundUp(rows, kProductRowGroup);
    HeadAttention& h = r.heads[static_cast<std::size_t>(head)];
    // Keys some row of the block may see: a causal block stops at its last row's position.
    // Kept scores cover every key (the views show the scores before the mask).
    const Index visibleKeys = r.mask.visibleEnd(firstRow + rows - 1, n_k);
    const Index scoredKeys = keepScores ? n_k : visibleKeys;

    // 2. Scaled scores, equation (1): Q_i K_j^T / sqrt(d_k), for this block's queries (and copies
    // of the last to fill a group of four). The scale goes on the thin Q_i (rows d_k multiplies,
    // not rows n_k), and not into the product expression: Eigen evaluates "(A * B) * s" with
    // noalias() as a lazy coefficient-wise product, ten times slower than its GEMM.
    const MatrixF scaledQuery = scaledQueryRows(r, head, firstRow, rows);  // paddedRows x d_k
    auto scores = block.topRows(paddedRows);
    scoreInWholePanels(scaledQuery, r.keyHead(head).topRows(scoredKeys), scores);
    if (keepScores)
        for (Index i = 0; i < rows; ++i) streamCopy(block.row(i).data(), h.scores.row(firstRow + i).data(), n_k);

    // 2b. Gemma 2's soft cap: the softmax reads c tanh(s / c) (the kept scores are s). Over whole
    //     rows of the block, so every score takes the same (vectorised) path.
    if (r.scoreSoftCap > 0.0) softCapInPlace(scores.array(), static_cast<float>(r.scoreSoftCap));

    // 3. Masked, stable softmax over each row, in place, while the block is in cache. It writes
    //    all n_k weights of a row (zeros past the row's visible keys); the padded keys' columns
    //    and the padding rows are zeroed for step 4.
    for (Index i = 0; i < rows; ++i)
        hasDistribution[firstRow + i] = softmaxRow(block.row(i).data(), block.row(i).data(), n_k, firstRow + i, r.mask) ? 1 : 0;
    const Index depth = roundUp(visibleKeys, kDepthStep);
    if (depth > n_k) scores.middleCols(n_k, depth - n_k).setZero();
    scores.bottomRows(paddedRows - rows).setZero();

    // 4. head_i = A_i V_j, into the block's rows of Concat(head_1..head_h). Weights of keys past
    //    visibleKeys are exactly 0, so the product stops there.
    MatrixF headRows;  // paddedRows x d_v
    weighValuesInFixedBlocks(scores, r.valueHead(head), depth, headRows);
    r.headOutputs.block(firstRow, head * r.d_v(), rows, r.d_v()) = headRows.topRows(rows);
    if (keepWeights)
        for (Index i = 0; i < rows; ++i) streamCopy(block.row(i).data(), h.attention.row(firstRow + i).data(), n_k);
    finishStreamCopies();
}

}  // namespace

Index attentionBlockRows(Index n_k)
{
    const Index rows = std::clamp<Index>(blockFloats / std::max<Index>(n_k, 1), 16, 1024);
    return rows - rows % kProductRowGroup;
}

void attendQueryRows(AttentionResult& r, bool keepScores, Index firstQuery, Index blockRows, bool keepWeights)
{
    const Index headCount = r.headCount();
    const Index n_q = r.queryCount();
    const Index n_k = r.keyCount();
    const Index count = n_q - firstQuery;
    r.fullyMaskedRows.resize(static_cast<std::size_t>(n_q), false);
    if (count <= 0 || headCount == 0) return;

    blockRows = std::min(blockRows > 0 ? blockRows : attentionBlockRows(n_k), count);
    const Index blocksPerHead = (count + blockRows - 1) / blockRows;
    const Index tasks = headCount * blocksPerHead;
    std::vector<char> hasDistribution(static_cast<std::size_t>(headCount * n_q), 1);  // h x n_q
    // Multiply-adds of steps 2 and 4, all heads.
    const double work = static_cast<double>(headCount) * static_cast<double>(count) * static_cast<double>(n_k) *
                        static_cast<double>(r.d_k() + r.d_v());
    const int threads = threadsFor(work);
    // Blocks of one head are neighbours in the task order, so both threads read the same K_j
    // and V_j at a time; dynamic scheduling evens out causal blocks of unequal length and a
    // core that another process is using.
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        MatrixF block = scratchBlock(blockRows, n_k);  // this thread's scores, then weights
#pragma omp for schedule(dynamic, 1)
        for (Index task = 0; task < tasks; ++task) {
            const Index head = task / blocksPerHead;
            const Index firstRow = firstQuery + (task % blocksPerHead) * blockRows;
            const Index rows = std::min(blockRows, n_q - firstRow);
            attendRowBlock(r, head, firstRow, rows, keepScores, keepWeights, hasDistribution.data() + head * n_q, block);
        }
    }

    // The mask is the same for every head; the flags are the last head's, as they always were
    // (they differ only where a head's logits are all -inf, which a mask cannot cause).
    const char* lastHead = hasDistribution.data() + (headCount - 1) * n_q;
    for (Index q = firstQuery; q < n_q; ++q) r.fullyMaskedRows[static_cast<std::size_t>(q)] = lastHead[q] == 0;
}

void attendHeadsInRowBlocks(AttentionResult& r, bool keepScores, Index blockRows, bool keepWeights)
{
    const Index n_q = r.queryCount();
    const Index n_k = r.keyCount();
    for (HeadAttention& h : r.heads) {
        if (keepWeights) h.attention.resize(n_q, n_k);  // n_q x n_k
        else h.attention.resize(0, 0);
        if (keepScores) h.scores.resize(n_q, n_k);  // n_q x n_k
        else h.scores.resize(0, 0);
    }
    r.fullyMaskedRows.assign(static_cast<std::size_t>(n_q), false);
    attendQueryRows(r, keepScores, 0, blockRows, keepWeights);
}

void scoreLaterKeys(AttentionResult& r, Index queryCount, Index firstKey)
{
    const Index n_k = r.keyCount();
    if (queryCount <= 0 || firstKey >= n_k) return;
    const Index paddedRows = roundUp(queryCount, kProductRowGroup);
    MatrixF scores(paddedRows, roundUp(n_k - firstKey, kKeyPanel));  // paddedRows x new keys, padded
    for (Index head = 0; head < r.headCount(); ++head) {
        scoreInWholePanels(scaledQueryRows(r, head, 0, queryCount), r.keyHead(head).bottomRows(n_k - firstKey), scores);
        r.heads[static_cast<std::size_t>(head)].scores.block(0, firstKey, queryCount, n_k - firstKey) =
            scores.topLeftCorner(queryCount, n_k - firstKey);
    }
}

}  // namespace qkv
