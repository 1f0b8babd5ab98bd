#include "core/attention/streamed_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace qkv {

namespace {

constexpr Index kRowBlock = 64;    // query rows scored together
constexpr Index kKeyTile = 2048;   // keys per tile: a 64 x 2048 block of scores is 512 KiB
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Scores of rows [firstRow, firstRow + rows) against keys [firstKey, firstKey + keys), scaled
// and capped as the engine does (the scale on the thin query block, as head_blocks.cpp).
void scoreTile(const HeadScoresInput& head, Index firstRow, Index rows, Index firstKey, Index keys, MatrixF& tile)
{
    const MatrixF scaledQuery = head.query.middleRows(firstRow, rows) * head.scale;  // rows x d_k
    tile.resize(rows, keys);
    tile.noalias() = scaledQuery * head.key.middleRows(firstKey, keys).transpose();  // rows x keys
    if (head.softCap > 0.0) {
        const auto c = static_cast<float>(head.softCap);
        tile.array() = c * (tile.array() / c).tanh();
    }
}

bool visible(const AttentionMask& mask, Index query, Index key) { return !mask.masked(query, key); }

// Each row's maximum m_q over its visible keys and normaliser sum_j exp(s_qj - m_q), for the
// rows [firstRow, firstRow + rows), one tile of keys at a time (online: a larger maximum rescales
// the sum so far). A row without a visible key keeps m = -inf and sum = 0.
void rowNormalisers(const HeadScoresInput& head, Index firstRow, Index rows, std::vector<float>& maxima,
                    std::vector<double>& sums, MatrixF& tile)
{
    const Index n_k = head.key.rows();
    maxima.assign(static_cast<std::size_t>(rows), -std::numeric_limits<float>::infinity());
    sums.assign(static_cast<std::size_t>(rows), 0.0);
    // Keys some row of the block may see: from the first row's window to the last row's end.
    const Index begin = head.mask.visibleBegin(firstRow), end = head.mask.visibleEnd(firstRow + rows - 1, n_k);
    for (Index firstKey = begin; firstKey < end; firstKey += kKeyTile) {
        const Index keys = std::min(kKeyTile, end - firstKey);
        scoreTile(head, firstRow, rows, firstKey, keys, tile);
        for (Index i = 0; i < rows; ++i) {
            float& m = maxima[static_cast<std::size_t>(i)];
            double& sum = sums[static_cast<std::size_t>(i)];
            for (Index j = 0; j < keys; ++j) {
                if (!visible(head.mask, firstRow + i, firstKey + j)) continue;
                const float s = tile(i, j);
                if (s > m) {
                    sum = sum * std::exp(static_cast<double>(m) - static_cast<double>(s)) + 1.0;
                    m = s;
                } else {
                    sum += std::exp(static_cast<double>(s) - static_cast<double>(m));
                }
            }
        }
    }
}

// The weight of a visible score, given its row's maximum and normaliser.
double weightOf(float score, float maximum, double sum) { return std::exp(static_cast<double>(score) - maximum) / sum; }

// Which block of `edges` holds position p (edges ascending, edges.front() = 0).
Index blockOf(const std::vector<Index>& edges, Index p)
{
    return static_cast<Index>(std::upper_bound(edges.begin(), edges.end(), p) - edges.begin()) - 1;
}

std::string regionText(Index a, Index b, Index c, Index d)
{
    return "rows " + std::to_string(a) + ":" + std::to_string(b) + " and columns " + std::to_string(c) + ":" +
           std::to_string(d);
}

}  // namespace

std::vector<Index> blockEdges(Index size, Index blocks)
{
    std::vector<Index> edges(static_cast<std::size_t>(blocks) + 1);
    for (Index b = 0; b <= blocks; ++b) edges[static_cast<std::size_t>(b)] = b * size / blocks;
    return edges;
}

Expected<StreamedAttention> streamHeadAttention(const HeadScoresInput& head, Index pooledRows, Index pooledColumns)
{
    const Index n_q = head.query.rows(), n_k = head.key.rows();
    if (head.query.cols() != head.key.cols())
        return Error{"q and k have different widths (" + std::to_string(head.query.cols()) + " and " +
                     std::to_string(head.key.cols()) + ")"};
    if (pooledRows < 1 || pooledColumns < 1) return Error{"a pooled map needs at least one block each way"};
    StreamedAttention out;
    PooledAttention& pooled = out.pooled;
    pooled.rowEdges = blockEdges(n_q, std::min(pooledRows, std::max<Index>(n_q, 1)));
    pooled.columnEdges = blockEdges(n_k, std::min(pooledColumns, std::max<Index>(n_k, 1)));
    const Index r = static_cast<Index>(pooled.rowEdges.size()) - 1, c = static_cast<Index>(pooled.columnEdges.size()) - 1;
    pooled.mean = MatrixD::Zero(r, c);
    pooled.max = MatrixD::Zero(r, c);
    StreamedRowStatistics& stats = out.rows;
    stats.entropy = VectorD::Constant(n_q, kNaN);
    stats.meanDistance = VectorD::Constant(n_q, kNaN);
    stats.maxWeight = VectorD::Constant(n_q, kNaN);
    stats.selfWeight = VectorD::Constant(n_q, kNaN);
    if (n_q == 0 || n_k == 0) return out;

    // Block of each key column, computed once.
    std::vector<Index> columnBlock(static_cast<std::size_t>(n_k));
    for (Index j = 0; j < n_k; ++j) columnBlock[static_cast<std::size_t>(j)] = blockOf(pooled.columnEdges, j);
    MatrixF tile;
    std::vector<float> maxima;
    std::vector<double> sums;
    for (Index firstRow = 0; firstRow < n_q; firstRow += kRowBlock) {
        const Index rows = std::min(kRowBlock, n_q - firstRow);
        rowNormalisers(head, firstRow, rows, maxima, sums, tile);
        // Pass 2: the weights, folded into the pooled blocks and the row statistics.
        std::vector<double> entropy(static_cast<std::size_t>(rows), 0.0), distance(static_cast<std::size_t>(rows), 0.0),
            largest(static_cast<std::size_t>(rows), 0.0), own(static_cast<std::size_t>(rows), 0.0);
        const Index begin = head.mask.visibleBegin(firstRow), end = head.mask.visibleEnd(firstRow + rows - 1, n_k);
        for (Index firstKey = begin; firstKey < end; firstKey += kKeyTile) {
            const Index keys = std::min(kKeyTile, end - firstKey);
            scoreTile(head, firstRow, rows, firstKey, keys, tile);
            for (Index i = 0; i < rows; ++i) {
                const Index q = firstRow + i;
                const auto at = static_cast<std::size_t>(i);
                if (sums[at] == 0.0) continue;
                const Index rowBlock = blockOf(pooled.rowEdges, q);
                for (Index j = 0; j < keys; ++j) {
                    const Index k = firstKey + j;
                    if (!visible(head.mask, q, k)) continue;
                    const double a = weightOf(tile(i, j), maxima[at], sums[at]);
                    const Index block = columnBlock[static_cast<std::size_t>(k)];
                    pooled.mean(rowBlock, block) += a;
                    pooled.max(rowBlock, block) = std::max(pooled.max(rowBlock, block), a);
                    if (a > 0.0) entropy[at] -= a * std::log(a);
                    distance[at] += a * static_cast<double>(std::abs(k - q));
                    largest[at] = std::max(largest[at], a);
                    if (k == q) own[at] = a;
                }
            }
        }
        for (Index i = 0; i < rows; ++i) {
            const auto at = static_cast<std::size_t>(i);
            if (sums[at] == 0.0) continue;
            const Index q = firstRow + i;
            stats.entropy(q) = std::max(entropy[at], 0.0);
            stats.meanDistance(q) = distance[at];
            stats.maxWeight(q) = largest[at];
            stats.selfWeight(q) = q < n_k ? own[at] : kNaN;
        }
    }
    for (Index b = 0; b < r; ++b)
        for (Index d = 0; d < c; ++d) {
            const auto rows = static_cast<double>(pooled.rowEdges[static_cast<std::size_t>(b) + 1] -
                                                  pooled.rowEdges[static_cast<std::size_t>(b)]);
            const auto columns = static_cast<double>(pooled.columnEdges[static_cast<std::size_t>(d) + 1] -
                                                     pooled.columnEdges[static_cast<std::size_t>(d)]);
            pooled.mean(b, d) /= rows * columns;
        }
    return out;
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
    MatrixF tile;
    std::vector<float> maxima;
    std::vector<double> sums;
    for (Index blockRow = firstRow; blockRow < endRow; blockRow += kRowBlock) {
        const Index rows = std::min(kRowBlock, endRow - blockRow);
        rowNormalisers(head, blockRow, rows, maxima, sums, tile);
        for (Index firstKey = firstColumn; firstKey < endColumn; firstKey += kKeyTile) {
            const Index keys = std::min(kKeyTile, endColumn - firstKey);
            scoreTile(head, blockRow, rows, firstKey, keys, tile);
            for (Index i = 0; i < rows; ++i) {
                const auto at = static_cast<std::size_t>(i);
                if (sums[at] == 0.0) continue;
                for (Index j = 0; j < keys; ++j)
                    if (visible(head.mask, blockRow + i, firstKey + j))
                        region(blockRow + i - firstRow, firstKey + j - firstColumn) =
                            static_cast<float>(weightOf(tile(i, j), maxima[at], sums[at]));
            }
        }
    }
    return region;
}

}  // namespace qkv
