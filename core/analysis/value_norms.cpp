// Value-weighted attention norms (definitions in value_norms.hpp).
//
// Symbols: n_q, n_k, h heads of which h_on are switched on, d_v (a head's value width), d_model;
// B keys per block.
// For each block of B keys:
//   (1) f_i(x_j) = V_kv(i)(j) W^O_i for every head and key of the block   (h blocks of B x d_model)
//   (2) ||f_i(x_j)||                                                       (B x h, in double)
//   (3) per key, the Gram matrix G_j = F_j^T F_j, F_j = [f_i(x_j)^T]_{i on}   (h_on x h_on, double)
//   (4) per (q, j): N_i(q, j) = a^i_qj ||f_i(x_j)||,  N(q, j) = sqrt(a_on^T G_j a_on)

#include "core/analysis/value_norms.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <string>

#include "core/attention/multi_head_attention.hpp"
#include "core/common/parallelism.hpp"
#include "core/common/shape_text.hpp"

namespace qkv {

namespace {

std::string shapeProblem(const AttentionResult& attention, const MatrixF& outputProjection)
{
    const HeadGrouping& grouping = attention.grouping;
    const Index h = attention.headCount();
    if (h < 1 || grouping.headCount != h || grouping.d_k < 1 || grouping.keyValueHeadCount < 1 ||
        h % grouping.keyValueHeadCount != 0)
        return "value norms: the layer's head layout (h = " + std::to_string(grouping.headCount) + ", g = " +
               std::to_string(grouping.keyValueHeadCount) + ", d_k = " + std::to_string(grouping.d_k) + ") does not fit its " +
               std::to_string(h) + " attention maps";
    if (outputProjection.rows() != grouping.concatWidth())
        return "value norms: W^O is " + shapeText(outputProjection.rows(), outputProjection.cols()) + " but " + std::to_string(h) +
               " heads of d_v = " + std::to_string(grouping.valueDim()) + " need " + std::to_string(grouping.concatWidth()) + " rows";
    if (attention.value.cols() != grouping.valueWidth())
        return "value norms: V has " + std::to_string(attention.value.cols()) + " columns but " +
               std::to_string(grouping.keyValueHeadCount) + " key/value heads of d_v = " + std::to_string(grouping.valueDim()) +
               " need " + std::to_string(grouping.valueWidth());
    const Index n_q = attention.heads.front().attention.rows();
    for (Index i = 0; i < h; ++i) {
        const MatrixF& a = attention.heads[static_cast<std::size_t>(i)].attention;
        if (a.rows() != n_q || a.cols() != attention.value.rows())
            return "value norms: head " + std::to_string(i + 1) + "'s attention is " + shapeText(a.rows(), a.cols()) + " but should be " +
                   shapeText(n_q, attention.value.rows()) + " (queries x the keys of V)";
    }
    if (!attention.ablated.empty() && static_cast<Index>(attention.ablated.size()) != h)
        return "value norms: " + std::to_string(attention.ablated.size()) + " ablation flags for " + std::to_string(h) + " heads";
    return {};
}

// One thread's work space for a block of B keys.
struct BlockBuffers {
    MatrixF transformed;  // (B h) x d_model: row b h + i is f_i(x_{j0 + b}), a key's heads together
    MatrixD norms;        // B x h: ||f_i(x_j)||
    MatrixD grams;        // B x (h_on h_on): G_j, row-major, lower triangle used
    MatrixD keyVectors;   // h_on x d_model: F_j^T of one key, in double
    VectorD weights;      // h_on: a_on of one (q, j)
};

// (1)-(3) for keys [j0, j0 + count).
void transformBlock(const AttentionResult& attention, const MatrixF& outputProjection, const std::vector<Index>& on, Index j0,
                    Index count, BlockBuffers& buffers)
{
    const Index h = attention.headCount();
    const Index d_v = attention.d_v();
    const Index d_model = outputProjection.cols();
    for (Index i = 0; i < h; ++i) {
        // Head i's rows of the block: every h-th row from row i.
        Eigen::Map<MatrixF, 0, Eigen::OuterStride<>> f(buffers.transformed.data() + i * d_model, count, d_model,
                                                       Eigen::OuterStride<>(h * d_model));  // count x d_model
        f.noalias() = attention.valueHead(i).middleRows(j0, count) * outputProjection.middleRows(i * d_v, d_v);  // (1)
        buffers.norms.col(i).head(count) = f.cast<double>().rowwise().norm();                                      // (2)
    }
    const Index h_on = static_cast<Index>(on.size());
    if (h_on == 0) return;
    for (Index b = 0; b < count; ++b) {
        for (Index c = 0; c < h_on; ++c)
            buffers.keyVectors.row(c) = buffers.transformed.row(b * h + on[static_cast<std::size_t>(c)]).cast<double>();
        Eigen::Map<MatrixD> gram(buffers.grams.row(b).data(), h_on, h_on);  // (3)
        gram.setZero();
        gram.selfadjointView<Eigen::Lower>().rankUpdate(buffers.keyVectors);
    }
}

// (4) for every query and the keys [j0, j0 + count). Returns the sum of the weights read, whose
// finiteness stands for theirs (one check instead of a scalar pass over every map).
double normsOfBlock(const AttentionResult& attention, const std::vector<Index>& on, Index j0, Index count, BlockBuffers& buffers,
                    ValueNorms& norms)
{
    const Index h = attention.headCount();
    const Index h_on = static_cast<Index>(on.size());
    double weightSum = 0.0;
    for (Index q = 0; q < norms.layer.rows(); ++q) {
        for (Index i = 0; i < h; ++i) {
            const float* a = attention.heads[static_cast<std::size_t>(i)].attention.row(q).data() + j0;
            float* out = norms.heads[static_cast<std::size_t>(i)].row(q).data() + j0;
            for (Index b = 0; b < count; ++b) {
                weightSum += static_cast<double>(a[b]);
                out[b] = static_cast<float>(static_cast<double>(a[b]) * buffers.norms(b, i));
            }
        }
        for (Index b = 0; b < count; ++b) {
            double* a = buffers.weights.data();
            for (Index c = 0; c < h_on; ++c)
                a[c] = static_cast<double>(attention.heads[static_cast<std::size_t>(on[static_cast<std::size_t>(c)])].attention(q, j0 + b));
            const double* g = buffers.grams.row(b).data();  // G_j, h_on x h_on row-major, lower triangle
            double squared = 0.0;                           // a^T G a = sum_r a_r (G_rr a_r + 2 sum_{c<r} G_rc a_c)
            for (Index r = 0; r < h_on; ++r) {
                double below = 0.0;
                for (Index c = 0; c < r; ++c) below += g[r * h_on + c] * a[c];
                squared += a[r] * (g[r * h_on + r] * a[r] + 2.0 * below);
            }
            // Rounding may leave a cancelled sum a hair below 0.
            norms.layer(q, j0 + b) = static_cast<float>(std::sqrt(std::max(squared, 0.0)));
        }
    }
    return weightSum;
}

// Keys per block: the block's f_i(x_j) (h B d_model floats) near 2 MiB, but at least 32 keys:
// every block packs each W^O_i again for its products in (1), and with fewer rows the packing
// costs more than the products (a LLaMA-7B-shaped layer took twice as long with 8 keys);
// with a team, about 4 blocks per thread so that they share the keys evenly.
Index keysPerBlock(Index h, Index d_model, Index n_k, int threads)
{
    constexpr Index fewestKeys = 32;
    const Index perKey = std::max<Index>(1, h * d_model);
    const Index byMemory = std::max<Index>(fewestKeys, (Index{1} << 19) / perKey);
    const Index byThreads = threads > 1 ? std::max<Index>(fewestKeys, (n_k + 4 * threads - 1) / (4 * threads)) : byMemory;
    return std::max<Index>(1, std::min({n_k, byMemory, byThreads}));
}

}  // namespace

Expected<ValueNorms> valueWeightedNorms(const AttentionResult& attention, const MatrixF& outputProjection)
{
    if (const std::string problem = shapeProblem(attention, outputProjection); !problem.empty()) return Error{problem};
    const Index h = attention.headCount();
    const Index n_q = attention.heads.front().attention.rows();
    const Index n_k = attention.value.rows();
    const Index d_model = outputProjection.cols();
    std::vector<Index> on;  // the heads in the layer sum
    for (Index i = 0; i < h; ++i)
        if (!attention.isAblated(i)) on.push_back(i);
    const Index h_on = static_cast<Index>(on.size());
    // (1) and (3) per key, (4) per (q, j), in multiply-adds.
    const double work = static_cast<double>(n_k) * (2.0 * static_cast<double>(d_model) * static_cast<double>(h) *
                                                        (static_cast<double>(attention.d_v()) + static_cast<double>(h_on))) +
                        static_cast<double>(n_q) * static_cast<double>(n_k) * static_cast<double>(h + h_on * h_on);
    const int team = threadsFor(work);
    const Index blockRows = keysPerBlock(h, d_model, n_k, team);
    const Index blocks = n_k == 0 ? 0 : (n_k + blockRows - 1) / blockRows;
    const int threads = std::max(1, std::min(team, static_cast<int>(std::max<Index>(1, blocks))));
    ValueNorms norms;
    std::vector<BlockBuffers> buffers(static_cast<std::size_t>(threads));
    try {
        norms.heads.assign(static_cast<std::size_t>(h), MatrixF(n_q, n_k));
        norms.layer.resize(n_q, n_k);
        norms.transformedNorms.resize(n_k, h);
        for (BlockBuffers& b : buffers) {
            b.transformed.resize(h * blockRows, d_model);
            b.norms.resize(blockRows, h);
            b.grams.resize(blockRows, h_on * h_on);
            b.keyVectors.resize(h_on, d_model);
            b.weights.resize(h_on);
        }
    } catch (const std::bad_alloc&) {
        return Error{"value norms: not enough memory for " + std::to_string(h + 1) + " matrices of " + shapeText(n_q, n_k)};
    }

    // Blocks write disjoint columns of the results and their own rows of transformedNorms.
    std::vector<char> nonFinite(static_cast<std::size_t>(blocks), 0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
    for (Index block = 0; block < blocks; ++block) {
        BlockBuffers& mine = buffers[static_cast<std::size_t>(threadNumber())];
        const Index j0 = block * blockRows;
        const Index count = std::min(blockRows, n_k - j0);
        transformBlock(attention, outputProjection, on, j0, count, mine);
        norms.transformedNorms.middleRows(j0, count) = mine.norms.topRows(count);
        const double weightSum = normsOfBlock(attention, on, j0, count, mine, norms);
        const bool finite = std::isfinite(weightSum) && std::isfinite(mine.norms.topRows(count).sum()) &&
                            (h_on == 0 || std::isfinite(mine.grams.topRows(count).sum()));
        nonFinite[static_cast<std::size_t>(block)] = finite ? 0 : 1;
    }
    if (std::find(nonFinite.begin(), nonFinite.end(), 1) != nonFinite.end())
        return Error{"value norms: the attention weights, V, W^O or their products contain NaN or infinite values"};
    return norms;
}

Expected<ValueNorms> valueWeightedNorms(const AttentionResult& attention, const AttentionWeights& weights)
{
    return valueWeightedNorms(attention, weights.outputProjection);
}

}  // namespace qkv
