#include "core/analysis/streamed_layer_maps.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/common/parallelism.hpp"
#include "core/ops/block_pooling.hpp"

namespace qkv {

namespace {

constexpr Index kKeyBlock = 256;  // keys whose transformed values are formed together

// G_j for every key, its lower triangle as rows of pairs (r, c <= r) over the heads that are on:
// grams(pair(r, c), j) = f_r(x_j) . f_c(x_j), in double (pairs x n_k).
MatrixD keyGrams(const AttentionResult& attention, const AttentionWeights& weights, const std::vector<Index>& on)
{
    const Index n_k = attention.keyCount(), h_on = static_cast<Index>(on.size());
    MatrixD grams(h_on * (h_on + 1) / 2, n_k);
    const Index blocks = (n_k + kKeyBlock - 1) / kKeyBlock;
    const int threads = threadsFor(static_cast<double>(n_k) * static_cast<double>(h_on * h_on) *
                                   static_cast<double>(weights.d_model()));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
    for (Index b = 0; b < blocks; ++b) {
        const Index j0 = b * kKeyBlock, count = std::min(kKeyBlock, n_k - j0);
        std::vector<Eigen::MatrixXd> transformed;  // per head on: count x d_model, f_i(x_j) of the block
        for (const Index head : on)
            transformed.emplace_back((attention.valueHead(head).middleRows(j0, count) *
                                      weights.outputHead(head, attention.grouping))
                                         .cast<double>());
        Index pair = 0;
        for (Index r = 0; r < h_on; ++r)
            for (Index c = 0; c <= r; ++c, ++pair)
                grams.row(pair).segment(j0, count) =
                    transformed[static_cast<std::size_t>(r)].cwiseProduct(transformed[static_cast<std::size_t>(c)]).rowwise().sum().transpose();
    }
    return grams;
}

// Pooled sums of N one thread gathers; merged at the end.
struct NormSums {
    MatrixD sum, max;
};

// The heads that are on, as the tiles' inputs: contiguous copies of Q_i and K_j (n x d_k) and
// their softmax constants.
struct HeadsOn {
    std::vector<MatrixF> queries, keys;
    std::vector<HeadScoresInput> inputs;
    std::vector<const RowNormalisers*> constants;

    HeadsOn(const AttentionResult& attention, const std::vector<StreamedAttention>& heads, const std::vector<Index>& on)
    {
        for (const Index head : on) {
            queries.emplace_back(attention.queryHead(head));
            keys.emplace_back(attention.keyHead(head));
        }
        for (std::size_t i = 0; i < on.size(); ++i) {
            inputs.push_back({queries[i], keys[i], attention.scoreScale, attention.scoreSoftCap, attention.mask});
            constants.push_back(&heads[static_cast<std::size_t>(on[i])].normalisers);
        }
    }
};

// Folds every tile's cells into what the request keeps: each row's N over the tile's keys, the
// heads' mean. Rows belong to one thread each; pooled sums go to the thread's own NormSums.
class LayerMapFolder {
public:
    LayerMapFolder(const StreamedLayerMapsRequest& request, const MatrixD& grams, Index h_on, Index n_k,
                   StreamedLayerMaps& maps, std::vector<NormSums>& perThread)
        : request_(request), grams_(grams), h_on_(h_on), maps_(maps), perThread_(perThread)
    {
        if (!request.pooled()) return;
        columnBlock_.resize(static_cast<std::size_t>(n_k));
        for (Index j = 0; j < n_k; ++j) columnBlock_[static_cast<std::size_t>(j)] = blockOfPosition(*request.columnEdges, j);
    }

    void operator()(const WeightTile& tile, int thread) const
    {
        std::vector<Eigen::ArrayXd> a(static_cast<std::size_t>(h_on_));  // each head's row, in double
        for (Index i = 0; i < tile.rows; ++i) {
            const Index q = tile.firstRow + i;
            for (Index head = 0; head < h_on_; ++head)
                a[static_cast<std::size_t>(head)] = tile.heads[static_cast<std::size_t>(head)].row(i).transpose().cast<double>().array();
            if (request_.headMean) {
                Eigen::ArrayXd mean = Eigen::ArrayXd::Zero(tile.keys);
                for (const Eigen::ArrayXd& weights : a) mean += weights;
                maps_.headMean.row(q).segment(tile.firstKey, tile.keys) = (mean / static_cast<double>(h_on_)).matrix().transpose();
            }
            const Eigen::ArrayXd norm = layerNorms(tile, a);
            if (request_.pooled()) foldPooled(norm, q, tile, perThread_[static_cast<std::size_t>(thread)]);
            if (request_.region() && q >= request_.firstRow && q < request_.endRow) foldRegion(norm, q, tile);
        }
    }

private:
    // N over the tile's keys for one row: N^2 = sum_r a_r (G_rr a_r + 2 sum_{c<r} G_rc a_c),
    // vectorised over the keys; rounding may leave a cancelled sum a hair below 0.
    Eigen::ArrayXd layerNorms(const WeightTile& tile, const std::vector<Eigen::ArrayXd>& a) const
    {
        Eigen::ArrayXd squared = Eigen::ArrayXd::Zero(tile.keys);
        Index pair = 0;
        for (Index r = 0; r < h_on_; ++r)
            for (Index c = 0; c <= r; ++c, ++pair)
                squared += grams_.row(pair).segment(tile.firstKey, tile.keys).transpose().array() *
                           a[static_cast<std::size_t>(r)] * a[static_cast<std::size_t>(c)] * (r == c ? 1.0 : 2.0);
        return squared.max(0.0).sqrt();
    }

    void foldPooled(const Eigen::ArrayXd& norm, Index q, const WeightTile& tile, NormSums& mine) const
    {
        const Index rowBlock = blockOfPosition(*request_.rowEdges, q);
        for (Index j = 0; j < tile.keys;) {
            const Index block = columnBlock_[static_cast<std::size_t>(tile.firstKey + j)];
            const Index stop =
                std::min(tile.keys, (*request_.columnEdges)[static_cast<std::size_t>(block) + 1] - tile.firstKey);
            mine.sum(rowBlock, block) += norm.segment(j, stop - j).sum();
            mine.max(rowBlock, block) = std::max(mine.max(rowBlock, block), norm.segment(j, stop - j).maxCoeff());
            j = stop;
        }
    }

    void foldRegion(const Eigen::ArrayXd& norm, Index q, const WeightTile& tile) const
    {
        const Index begin = std::max(tile.firstKey, request_.firstColumn);
        const Index end = std::min(tile.firstKey + tile.keys, request_.endColumn);
        if (begin < end)
            maps_.normRegion.row(q - request_.firstRow).segment(begin - request_.firstColumn, end - begin) =
                norm.segment(begin - tile.firstKey, end - begin).cast<float>().matrix().transpose();
    }

    const StreamedLayerMapsRequest& request_;
    const MatrixD& grams_;
    Index h_on_;
    StreamedLayerMaps& maps_;
    std::vector<NormSums>& perThread_;
    std::vector<Index> columnBlock_;  // n_k when pooled: the pooled column block of each key
};

// The threads' pooled sums merged, the sums divided by their blocks' cells.
void finishPooled(std::vector<NormSums>& perThread, const StreamedLayerMapsRequest& request, StreamedLayerMaps& maps)
{
    NormSums& total = perThread.front();
    for (std::size_t t = 1; t < perThread.size(); ++t) {
        total.sum += perThread[t].sum;
        total.max = total.max.cwiseMax(perThread[t].max);
    }
    for (Index b = 0; b < total.sum.rows(); ++b)
        for (Index d = 0; d < total.sum.cols(); ++d)
            total.sum(b, d) /= static_cast<double>(blockLength(*request.rowEdges, b) * blockLength(*request.columnEdges, d));
    maps.normMean = std::move(total.sum);
    maps.normMax = std::move(total.max);
}

}  // namespace

Expected<StreamedLayerMaps> streamedLayerMaps(const AttentionResult& attention, const std::vector<StreamedAttention>& heads,
                                              const AttentionWeights& weights, const StreamedLayerMapsRequest& request,
                                              const StreamControl& control)
{
    const Index n_q = attention.queryCount(), n_k = attention.keyCount(), h = attention.headCount();
    if (static_cast<Index>(heads.size()) != h) return Error{"a streamed layer has one StreamedAttention per head"};
    if (request.pooled() && (request.rowEdges->back() != n_q || request.columnEdges->back() != n_k))
        return Error{"the pooled edges do not end at the layer's sizes"};
    std::vector<Index> on;
    for (Index i = 0; i < h; ++i)
        if (!attention.isAblated(i)) on.push_back(i);
    const Index h_on = static_cast<Index>(on.size());
    StreamedLayerMaps maps;
    const Index r = request.pooled() ? static_cast<Index>(request.rowEdges->size()) - 1 : 0;
    const Index c = request.pooled() ? static_cast<Index>(request.columnEdges->size()) - 1 : 0;
    if (request.region()) maps.normRegion = MatrixF::Zero(request.endRow - request.firstRow, request.endColumn - request.firstColumn);
    if (request.headMean && h_on > 0) maps.headMean = MatrixD::Zero(n_q, n_k);
    std::vector<NormSums> perThread(static_cast<std::size_t>(std::max(1, computeThreads())),
                                    NormSums{MatrixD::Zero(r, c), MatrixD::Zero(r, c)});
    if (h_on > 0 && n_q > 0 && n_k > 0) {
        const MatrixD grams = keyGrams(attention, weights, on);  // pairs x n_k
        const HeadsOn heads_on(attention, heads, on);
        const LayerMapFolder fold(request, grams, h_on, n_k, maps, perThread);
        // The pool and the mean need every cell; a region alone only its tiles.
        const bool everyCell = request.pooled() || request.headMean;
        const Status visited =
            everyCell ? streamedWeightTiles(heads_on.inputs, heads_on.constants, 0, n_q, 0, n_k, fold, control)
                      : streamedWeightTiles(heads_on.inputs, heads_on.constants, request.firstRow, request.endRow,
                                            request.firstColumn, request.endColumn, fold, control);
        if (!visited) return Error{visited.error()};
    }
    if (request.pooled()) {
        finishPooled(perThread, request, maps);
    } else {
        maps.normMean = perThread.front().sum;
        maps.normMax = perThread.front().max;
    }
    return maps;
}

}  // namespace qkv
