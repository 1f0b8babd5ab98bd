#include "core/attention/streamed_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <string>

#include "core/common/parallelism.hpp"
#include "core/ops/soft_cap.hpp"
#include "core/ops/softmax.hpp"

namespace qkv {

namespace {

constexpr Index kRowBlock = 64;   // query rows scored together
constexpr Index kKeyTile = 2048;  // keys per tile: a 64 x 2048 block of scores is 512 KiB
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

const char* const kNotFinite =
    "a score q_i . k_j is not finite (it overflowed float, or is NaN): lower the weight scales or the size of the "
    "loaded weights or embeddings";

// The keys [begin, end) of one tile that `query` sees (before key padding, which scoreTile
// writes as -inf): the mask's visible range cut to the tile.
struct KeySpan {
    Index begin = 0, end = 0;
    Index size() const { return end > begin ? end - begin : 0; }
};
KeySpan visibleInTile(const AttentionMask& mask, Index query, Index keyCount, Index firstKey, Index keys)
{
    return {std::max(mask.visibleBegin(query), firstKey), std::min(mask.visibleEnd(query, keyCount), firstKey + keys)};
}

// The padded keys of a tile, as offsets from its first key (usually none).
using PaddedKeys = std::vector<Index>;

// Scores of `scaledQuery`'s rows (its first row is query firstRow, already times the scale, as
// head_blocks.cpp scales the thin query block) against keys [firstKey, firstKey + keys), capped
// as the engine does, padded keys -inf (and listed in `padded`). Row-major: each query's scores
// are contiguous.
void scoreTile(const HeadScoresInput& head, const MatrixF& scaledQuery, Index firstKey, Index keys, MatrixF& tile,
               PaddedKeys& padded)
{
    padded.clear();
    tile.resize(scaledQuery.rows(), keys);
    tile.noalias() = scaledQuery * head.key.middleRows(firstKey, keys).transpose();  // rows x keys
    if (head.softCap > 0.0) softCapInPlace(tile.array(), static_cast<float>(head.softCap));
    if (!head.mask.keyPadding.empty())
        for (Index j = 0; j < keys; ++j)
            if (head.mask.keyPadding[static_cast<std::size_t>(firstKey + j)]) {
                tile.col(j).setConstant(kMinusInfinity);
                padded.push_back(j);
            }
}

// Weights a = exp(s - m) / Z of the span of a tile's row that starts at key offset `offset`,
// vectorised, into `weights` (the span's length). A padded key's is exactly 0 (Eigen's vectorised
// exp clamps its argument, to about -88.7 for float on SSE, so exp(-inf) would be near 1e-38),
// and with clearPaddedScores its score becomes m, so that a sum of a (s - m) stays finite.
template <class Span>
void spanWeights(Span scores, Index offset, float maximum, double normaliser, const PaddedKeys& padded,
                 RowVectorF& weights, bool clearPaddedScores)
{
    runningSoftmaxWeights(scores, maximum, normaliser, weights);
    for (const Index j : padded)
        if (j >= offset && j < offset + scores.size()) {
            weights(j - offset) = 0.0f;
            if (clearPaddedScores) scores(j - offset) = maximum;
        }
}

// The keys any row of a block may see: from the first row's window to the last row's end.
KeySpan blockKeys(const HeadScoresInput& head, Index firstRow, Index rows)
{
    return {head.mask.visibleBegin(firstRow), head.mask.visibleEnd(firstRow + rows - 1, head.key.rows())};
}

// Each row's maximum m_q over its visible keys and normaliser Z_q = sum_j exp(s_qj - m_q), one
// tile of keys at a time (online: a larger maximum rescales the sum so far). A row without a
// visible key keeps m = -inf and Z = 0. False: a score is not finite.
bool rowNormalisers(const HeadScoresInput& head, Index firstRow, const MatrixF& scaledQuery,
                    std::vector<float>& maxima, std::vector<double>& sums, MatrixF& tile)
{
    const Index rows = scaledQuery.rows(), n_k = head.key.rows();
    PaddedKeys padded;
    maxima.assign(static_cast<std::size_t>(rows), kMinusInfinity);
    sums.assign(static_cast<std::size_t>(rows), 0.0);
    const KeySpan keys = blockKeys(head, firstRow, rows);
    for (Index firstKey = keys.begin; firstKey < keys.end; firstKey += kKeyTile) {
        const Index tileKeys = std::min(kKeyTile, keys.end - firstKey);
        scoreTile(head, scaledQuery, firstKey, tileKeys, tile, padded);
        for (Index i = 0; i < rows; ++i) {
            const KeySpan span = visibleInTile(head.mask, firstRow + i, n_k, firstKey, tileKeys);
            if (span.size() == 0) continue;
            const auto scores = tile.row(i).segment(span.begin - firstKey, span.size()).array();
            const auto at = static_cast<std::size_t>(i);
            float& m = maxima[at];
            double& sum = sums[at];
            if (!raiseRunningMaximum(scores.maxCoeff(), m, sum)) continue;  // every key here padded
            // A padded key adds exp(-inf), at most ~1e-38 where the vectorised exp clamps.
            sum += static_cast<double>((scores - m).exp().sum());
        }
    }
    for (Index i = 0; i < rows; ++i) {
        const auto at = static_cast<std::size_t>(i);
        if (!runningRowIsFinite(maxima[at], sums[at])) return false;
    }
    return true;
}

// The pooled sums and maxima one thread gathers; the threads' are merged at the end.
struct PooledSums {
    MatrixD mean, max, scaledMean, scaledMax;  // r x c each (scaled: with key scales only)
    PooledSums(Index r, Index c, bool scaled)
        : mean(MatrixD::Zero(r, c)), max(MatrixD::Zero(r, c)),
          scaledMean(scaled ? MatrixD::Zero(r, c) : MatrixD()), scaledMax(scaled ? MatrixD::Zero(r, c) : MatrixD())
    {
    }
};

// Everything pass 2 needs besides the tile: the head, where the pooled blocks lie, the outputs.
struct StreamTargets {
    const HeadScoresInput& head;
    const std::vector<Index>& columnEdges;
    const std::vector<Index>& columnBlock;  // n_k: the pooled column block of each key
    const std::vector<Index>& rowEdges;
    const RowVectorF& positions;            // 0, 1, ..., n_k - 1 as floats (exact below 2^24)
    StreamedAttention& out;
};

// Row statistics gathered over the tiles of one block of rows.
struct RowSums {
    std::vector<double> weight, weightTimesLogit, distance, own;
    explicit RowSums(Index rows)
        : weight(static_cast<std::size_t>(rows), 0.0), weightTimesLogit(weight), distance(weight), own(weight)
    {
    }
};

// One tile of scores being folded: keys [firstKey, firstKey + keys), its padded keys.
struct ScoreTile {
    MatrixF& scores;  // rows x keys
    const PaddedKeys& padded;
    Index firstKey = 0, keys = 0;
};

// Row i's weights over its visible keys of this tile, a = exp(s - m) / Z, folded into the pooled
// blocks and the row sums; the tile's row becomes the weights (0 outside the span) for A_i V_j.
void foldRow(const StreamTargets& t, Index q, const ScoreTile& tile, float m, double z, Index rowBlock,
             RowVectorF& weights, Index i, RowSums& sums, PooledSums& pooled)
{
    const Index firstKey = tile.firstKey, tileKeys = tile.keys;
    auto row = tile.scores.row(i);
    const KeySpan span = visibleInTile(t.head.mask, q, t.head.key.rows(), firstKey, tileKeys);
    if (span.size() == 0 || z == 0.0) {
        row.setZero();
        return;
    }
    const Index offset = span.begin - firstKey, length = span.size();
    row.head(offset).setZero();
    row.tail(tileKeys - offset - length).setZero();
    spanWeights(row.segment(offset, length), offset, m, z, tile.padded, weights, true);
    auto logits = row.segment(offset, length).array();
    logits -= m;  // a padded key's: 0 (spanWeights set its score to m)
    const auto at = static_cast<std::size_t>(i);
    // -sum a ln a = ln Z sum a - sum a (s - m).
    sums.weight[at] += static_cast<double>(weights.sum());
    sums.weightTimesLogit[at] += static_cast<double>((weights.array() * logits).sum());
    sums.distance[at] += static_cast<double>(
        weights.dot((t.positions.segment(span.begin, length).array() - static_cast<float>(q)).abs().matrix()));
    if (q >= span.begin && q < span.end) sums.own[at] = static_cast<double>(weights(q - span.begin));
    for (Index j = span.begin, block = t.columnBlock[static_cast<std::size_t>(span.begin)]; j < span.end; ++block) {
        const Index stop = std::min(span.end, t.columnEdges[static_cast<std::size_t>(block) + 1]);
        const auto part = weights.segment(j - span.begin, stop - j);
        pooled.mean(rowBlock, block) += static_cast<double>(part.sum());
        pooled.max(rowBlock, block) = std::max(pooled.max(rowBlock, block), static_cast<double>(part.maxCoeff()));
        if (t.head.keyScales) {
            const RowVectorF scaled = part.cwiseProduct(t.head.keyScales->segment(j, stop - j));
            pooled.scaledMean(rowBlock, block) += static_cast<double>(scaled.sum());
            pooled.scaledMax(rowBlock, block) =
                std::max(pooled.scaledMax(rowBlock, block), static_cast<double>(scaled.maxCoeff()));
        }
        j = stop;
    }
    row.segment(offset, length) = weights;
}

// Pass 2 over one block of rows: the weights tile by tile, folded; the row statistics; A_i V_j.
void streamRowBlock(const StreamTargets& t, Index firstRow, const MatrixF& scaledQuery,
                    const std::vector<float>& maxima, const std::vector<double>& sums, MatrixF& tile,
                    RowVectorF& weights, PooledSums& pooled)
{
    const HeadScoresInput& head = t.head;
    const Index rows = scaledQuery.rows();
    RowSums rowSums(rows);
    PaddedKeys padded;
    std::vector<Index> rowBlocks(static_cast<std::size_t>(rows));
    for (Index i = 0; i < rows; ++i) rowBlocks[static_cast<std::size_t>(i)] = blockOfPosition(t.rowEdges, firstRow + i);
    const KeySpan keys = blockKeys(head, firstRow, rows);
    for (Index firstKey = keys.begin; firstKey < keys.end; firstKey += kKeyTile) {
        const Index tileKeys = std::min(kKeyTile, keys.end - firstKey);
        scoreTile(head, scaledQuery, firstKey, tileKeys, tile, padded);
        const ScoreTile scores{tile, padded, firstKey, tileKeys};
        for (Index i = 0; i < rows; ++i) {
            const auto at = static_cast<std::size_t>(i);
            foldRow(t, firstRow + i, scores, maxima[at], sums[at], rowBlocks[at], weights, i, rowSums, pooled);
        }
        if (head.value)
            t.out.output.middleRows(firstRow, rows).noalias() += tile * head.value->middleRows(firstKey, tileKeys);
    }
    StreamedRowStatistics& stats = t.out.rows;
    for (Index i = 0; i < rows; ++i) {
        const auto at = static_cast<std::size_t>(i);
        if (sums[at] == 0.0) continue;
        const Index q = firstRow + i;
        stats.entropy(q) = std::max(std::log(sums[at]) * rowSums.weight[at] - rowSums.weightTimesLogit[at], 0.0);
        stats.meanDistance(q) = rowSums.distance[at];
        stats.maxWeight(q) = 1.0 / sums[at];  // the key at the maximum: exp(0) / Z
        stats.selfWeight(q) = q < head.key.rows() ? rowSums.own[at] : kNaN;
    }
}

std::string regionText(Index a, Index b, Index c, Index d)
{
    return "rows " + std::to_string(a) + ":" + std::to_string(b) + " and columns " + std::to_string(c) + ":" +
           std::to_string(d);
}

// Runs `work(firstRow, rows, threadNumber)` over blocks of kRowBlock rows of [firstRow, endRow)
// on computeThreads() threads; the first error (or a stop) ends the others at their next block.
template <class Work>
Status forRowBlocks(Index firstRow, Index endRow, int threads, const StreamControl& control, Work&& work)
{
    const Index blocks = (endRow - firstRow + kRowBlock - 1) / kRowBlock;
    std::mutex failure;
    std::string error;
    std::atomic<bool> failed{false};
    // Dynamic scheduling: a causal block's cost grows with its rows' positions.
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
    for (Index b = 0; b < blocks; ++b) {
        if (failed.load(std::memory_order_relaxed)) continue;
        if (control.stop && control.stop->load(std::memory_order_relaxed)) {
            failed = true;
            std::lock_guard lock(failure);
            if (error.empty()) error = streamStoppedError;
            continue;
        }
        const Index first = firstRow + b * kRowBlock, rows = std::min(kRowBlock, endRow - first);
        if (std::string problem = work(first, rows, threadNumber()); !problem.empty()) {
            failed = true;
            std::lock_guard lock(failure);
            if (error.empty()) error = std::move(problem);
            continue;
        }
        if (control.rowsDone) control.rowsDone->fetch_add(rows, std::memory_order_relaxed);
    }
    if (!error.empty()) return Error{error};
    return {};
}

// The threads' pooled sums merged, the sums divided by their blocks' cells, kept in float.
void finishPooled(std::vector<PooledSums>& perThread, PooledAttention& pooled)
{
    PooledSums& total = perThread.front();
    const bool scaled = total.scaledMean.size() > 0;
    for (std::size_t t = 1; t < perThread.size(); ++t) {
        total.mean += perThread[t].mean;
        total.max = total.max.cwiseMax(perThread[t].max);
        if (scaled) {
            total.scaledMean += perThread[t].scaledMean;
            total.scaledMax = total.scaledMax.cwiseMax(perThread[t].scaledMax);
        }
    }
    for (Index b = 0; b < total.mean.rows(); ++b)
        for (Index d = 0; d < total.mean.cols(); ++d) {
            const auto rows = static_cast<double>(blockLength(pooled.rowEdges, b));
            const auto columns = static_cast<double>(blockLength(pooled.columnEdges, d));
            total.mean(b, d) /= rows * columns;
            if (scaled) total.scaledMean(b, d) /= rows * columns;
        }
    pooled.mean = total.mean.cast<float>();
    pooled.max = total.max.cast<float>();
    pooled.scaledMean = total.scaledMean.cast<float>();
    pooled.scaledMax = total.scaledMax.cast<float>();
}

}  // namespace

Expected<StreamedAttention> streamHeadAttention(const HeadScoresInput& head, Index pooledRows, Index pooledColumns,
                                                const StreamControl& control)
{
    const Index n_q = head.query.rows(), n_k = head.key.rows();
    if (head.query.cols() != head.key.cols())
        return Error{"q and k have different widths (" + std::to_string(head.query.cols()) + " and " +
                     std::to_string(head.key.cols()) + ")"};
    if (pooledRows < 1 || pooledColumns < 1) return Error{"a pooled map needs at least one block each way"};
    if (head.value && head.value->rows() != n_k) return Error{"V has a row per key"};
    if (head.keyScales && head.keyScales->size() != n_k) return Error{"the key scales have one entry per key"};
    StreamedAttention out;
    PooledAttention& pooled = out.pooled;
    pooled.rowEdges = blockEdges(n_q, blockCount(n_q, pooledRows));
    pooled.columnEdges = blockEdges(n_k, blockCount(n_k, pooledColumns));
    const Index r = static_cast<Index>(pooled.rowEdges.size()) - 1, c = static_cast<Index>(pooled.columnEdges.size()) - 1;
    StreamedRowStatistics& stats = out.rows;
    stats.entropy = VectorD::Constant(n_q, kNaN);
    stats.meanDistance = VectorD::Constant(n_q, kNaN);
    stats.maxWeight = VectorD::Constant(n_q, kNaN);
    stats.selfWeight = VectorD::Constant(n_q, kNaN);
    if (head.value) out.output = MatrixF::Zero(n_q, head.value->cols());  // n_q x d_v
    out.normalisers.maximum.assign(static_cast<std::size_t>(n_q), kMinusInfinity);
    out.normalisers.normaliser.assign(static_cast<std::size_t>(n_q), 0.0);
    const bool scaled = head.keyScales != nullptr;
    if (n_q == 0 || n_k == 0) {
        const PooledSums empty(r, c, scaled);
        pooled.mean = empty.mean.cast<float>();
        pooled.max = empty.max.cast<float>();
        pooled.scaledMean = empty.scaledMean.cast<float>();
        pooled.scaledMax = empty.scaledMax.cast<float>();
        return out;
    }

    std::vector<Index> columnBlock(static_cast<std::size_t>(n_k));  // computed once
    for (Index j = 0; j < n_k; ++j) columnBlock[static_cast<std::size_t>(j)] = blockOfPosition(pooled.columnEdges, j);
    const RowVectorF positions = RowVectorF::LinSpaced(n_k, 0.0f, static_cast<float>(n_k - 1));
    const StreamTargets targets{head, pooled.columnEdges, columnBlock, pooled.rowEdges, positions, out};
    const int threads = std::max(1, computeThreads());
    std::vector<PooledSums> perThread(static_cast<std::size_t>(threads), PooledSums(r, c, scaled));
    const Status streamed = forRowBlocks(0, n_q, threads, control, [&](Index firstRow, Index rows, int thread) {
        const MatrixF scaledQuery = head.query.middleRows(firstRow, rows) * head.scale;  // rows x d_k
        MatrixF tile;
        RowVectorF weights;
        std::vector<float> maxima;
        std::vector<double> sums;
        if (!rowNormalisers(head, firstRow, scaledQuery, maxima, sums, tile)) return std::string(kNotFinite);
        std::copy(maxima.begin(), maxima.end(), out.normalisers.maximum.begin() + firstRow);
        std::copy(sums.begin(), sums.end(), out.normalisers.normaliser.begin() + firstRow);
        streamRowBlock(targets, firstRow, scaledQuery, maxima, sums, tile, weights,
                       perThread[static_cast<std::size_t>(thread)]);
        return std::string();
    });
    if (!streamed) return Error{streamed.error()};

    finishPooled(perThread, pooled);
    return out;
}

Status streamedWeightTiles(const std::vector<HeadScoresInput>& heads, const std::vector<const RowNormalisers*>& normalisers,
                           Index firstRow, Index endRow, Index firstColumn, Index endColumn,
                           const WeightTileVisitor& visitor, const StreamControl& control)
{
    if (heads.empty() || heads.size() != normalisers.size() || firstRow >= endRow || firstColumn >= endColumn) return {};
    const HeadScoresInput& first = heads.front();  // the mask and the keys' count are every head's
    const Index n_k = first.key.rows();
    return forRowBlocks(firstRow, endRow, std::max(1, computeThreads()), control, [&](Index blockRow, Index rows, int thread) {
        std::vector<MatrixF> scaledQueries, tiles(heads.size());
        PaddedKeys padded;
        RowVectorF weights;
        for (const HeadScoresInput& head : heads)
            scaledQueries.push_back(head.query.middleRows(blockRow, rows) * head.scale);  // rows x d_k
        const KeySpan seen = blockKeys(first, blockRow, rows);
        const Index begin = std::max(seen.begin, firstColumn), end = std::min(seen.end, endColumn);
        for (Index firstKey = begin; firstKey < end; firstKey += kKeyTile) {
            const Index tileKeys = std::min(kKeyTile, end - firstKey);
            for (std::size_t h = 0; h < heads.size(); ++h) {
                MatrixF& tile = tiles[h];
                scoreTile(heads[h], scaledQueries[h], firstKey, tileKeys, tile, padded);
                const RowNormalisers& constants = *normalisers[h];
                for (Index i = 0; i < rows; ++i) {
                    const auto q = static_cast<std::size_t>(blockRow + i);
                    const KeySpan span = visibleInTile(first.mask, blockRow + i, n_k, firstKey, tileKeys);
                    auto row = tile.row(i);
                    if (span.size() == 0 || constants.normaliser[q] == 0.0) {
                        row.setZero();
                        continue;
                    }
                    const Index offset = span.begin - firstKey;
                    row.head(offset).setZero();
                    row.tail(tileKeys - offset - span.size()).setZero();
                    spanWeights(row.segment(offset, span.size()), offset, constants.maximum[q], constants.normaliser[q],
                                padded, weights, false);
                    row.segment(offset, span.size()) = weights;
                }
            }
            visitor(WeightTile{blockRow, rows, firstKey, tileKeys, tiles}, thread);
        }
        return std::string();
    });
}

Expected<MatrixF> attentionRegion(const HeadScoresInput& head, Index firstRow, Index endRow, Index firstColumn,
                                  Index endColumn)
{
    const Index n_q = head.query.rows(), n_k = head.key.rows();
    if (head.query.cols() != head.key.cols()) return Error{"q and k have different widths"};
    if (firstRow < 0 || endRow > n_q || firstRow >= endRow || firstColumn < 0 || endColumn > n_k ||
        firstColumn >= endColumn)
        return Error{regionText(firstRow, endRow, firstColumn, endColumn) + " is not a region of the " +
                     std::to_string(n_q) + " x " + std::to_string(n_k) + " map (half-open, from 0, not empty)"};
    MatrixF region = MatrixF::Zero(endRow - firstRow, endColumn - firstColumn);
    const Status computed =
        forRowBlocks(firstRow, endRow, std::max(1, computeThreads()), {}, [&](Index blockRow, Index rows, int) {
            const MatrixF scaledQuery = head.query.middleRows(blockRow, rows) * head.scale;  // rows x d_k
            MatrixF tile;
            PaddedKeys padded;
            RowVectorF weights;
            std::vector<float> maxima;
            std::vector<double> sums;
            if (!rowNormalisers(head, blockRow, scaledQuery, maxima, sums, tile)) return std::string(kNotFinite);
            for (Index firstKey = firstColumn; firstKey < endColumn; firstKey += kKeyTile) {
                const Index tileKeys = std::min(kKeyTile, endColumn - firstKey);
                scoreTile(head, scaledQuery, firstKey, tileKeys, tile, padded);
                for (Index i = 0; i < rows; ++i) {
                    const auto at = static_cast<std::size_t>(i);
                    const KeySpan span = visibleInTile(head.mask, blockRow + i, n_k, firstKey, tileKeys);
                    if (sums[at] == 0.0 || span.size() == 0) continue;
                    spanWeights(tile.row(i).segment(span.begin - firstKey, span.size()), span.begin - firstKey,
                                maxima[at], sums[at], padded, weights, false);
                    region.row(blockRow + i - firstRow).segment(span.begin - firstColumn, span.size()) = weights;
                }
            }
            return std::string();
        });
    if (!computed) return Error{computed.error()};
    return region;
}

}  // namespace qkv
