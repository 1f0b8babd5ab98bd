#include "core/ops/block_pooling.hpp"

#include <cmath>
#include <limits>

namespace qkv {
namespace {

template <class Matrix, class Map>
Matrix meansOfBlocks(const Map& map, const std::vector<Index>& rowEdges, const std::vector<Index>& columnEdges)
{
    using Scalar = typename Matrix::Scalar;
    const auto r = static_cast<Index>(rowEdges.size()) - 1, c = static_cast<Index>(columnEdges.size()) - 1;
    Matrix pooled(r, c);  // r x c
    for (Index p = 0; p < r; ++p) {
        const Index top = rowEdges[static_cast<std::size_t>(p)], height = blockLength(rowEdges, p);
        for (Index s = 0; s < c; ++s) {
            const Index left = columnEdges[static_cast<std::size_t>(s)], width = blockLength(columnEdges, s);
            // A NaN cell makes the sum NaN: the block shows no value (the header's policy).
            const double sum = map.block(top, left, height, width).template cast<double>().sum();
            pooled(p, s) = static_cast<Scalar>(sum / static_cast<double>(height * width));
        }
    }
    return pooled;
}

template <class Matrix, class Map>
Matrix rowMeansOfBlocks(const Map& map, const std::vector<Index>& rowEdges)
{
    using Scalar = typename Matrix::Scalar;
    const auto r = static_cast<Index>(rowEdges.size()) - 1;
    Matrix pooled(r, map.cols());  // r x C
    for (Index p = 0; p < r; ++p) {
        const Index length = blockLength(rowEdges, p);
        pooled.row(p) = (map.middleRows(rowEdges[static_cast<std::size_t>(p)], length).template cast<double>().colwise().sum() /
                         static_cast<double>(length))
                            .template cast<Scalar>();
    }
    return pooled;
}

template <class Matrix, class Map>
Matrix maximaOfBlocks(const Map& map, const std::vector<Index>& rowEdges, const std::vector<Index>& columnEdges)
{
    using Scalar = typename Matrix::Scalar;
    const auto r = static_cast<Index>(rowEdges.size()) - 1, c = static_cast<Index>(columnEdges.size()) - 1;
    Matrix maxima = Matrix::Constant(r, c, -std::numeric_limits<Scalar>::infinity());  // r x c
    for (Index p = 0; p < r; ++p)
        for (Index row = rowEdges[static_cast<std::size_t>(p)]; row < rowEdges[static_cast<std::size_t>(p) + 1]; ++row)
            for (Index s = 0; s < c; ++s) {
                Scalar m = maxima(p, s);
                for (Index j = columnEdges[static_cast<std::size_t>(s)]; j < columnEdges[static_cast<std::size_t>(s) + 1]; ++j) {
                    const Scalar v = map(row, j);
                    m = v > m || std::isnan(v) ? v : m;  // once NaN, nothing compares above it: it stays
                }
                maxima(p, s) = m;
            }
    return maxima;
}

}  // namespace

std::vector<Index> blockEdges(Index size, Index blocks)
{
    std::vector<Index> edges(static_cast<std::size_t>(blocks) + 1);
    for (Index b = 0; b <= blocks; ++b) edges[static_cast<std::size_t>(b)] = blockStart(b, blocks, size);
    return edges;
}

Index blockOfPosition(const std::vector<Index>& edges, Index position)
{
    if (edges.size() < 2 || position < edges.front() || position >= edges.back()) return -1;
    return static_cast<Index>(std::upper_bound(edges.begin(), edges.end(), position) - edges.begin()) - 1;
}

MatrixF blockMeans(const Eigen::Ref<const MatrixF>& map, const std::vector<Index>& rowEdges,
                   const std::vector<Index>& columnEdges)
{
    return meansOfBlocks<MatrixF>(map, rowEdges, columnEdges);
}

MatrixD blockMeans(const Eigen::Ref<const MatrixD>& map, const std::vector<Index>& rowEdges,
                   const std::vector<Index>& columnEdges)
{
    return meansOfBlocks<MatrixD>(map, rowEdges, columnEdges);
}

MatrixF blockRowMeans(const Eigen::Ref<const MatrixF>& map, const std::vector<Index>& rowEdges)
{
    return rowMeansOfBlocks<MatrixF>(map, rowEdges);
}

MatrixD blockRowMeans(const Eigen::Ref<const MatrixD>& map, const std::vector<Index>& rowEdges)
{
    return rowMeansOfBlocks<MatrixD>(map, rowEdges);
}

MatrixF blockMaxima(const Eigen::Ref<const MatrixF>& map, const std::vector<Index>& rowEdges,
                    const std::vector<Index>& columnEdges)
{
    return maximaOfBlocks<MatrixF>(map, rowEdges, columnEdges);
}

MatrixD blockMaxima(const Eigen::Ref<const MatrixD>& map, const std::vector<Index>& rowEdges,
                    const std::vector<Index>& columnEdges)
{
    return maximaOfBlocks<MatrixD>(map, rowEdges, columnEdges);
}

BlockFlags maskedBlocks(const std::vector<KeyRange>& visible, const std::vector<bool>& padded,
                        const std::vector<Index>& rowEdges, const std::vector<Index>& columnEdges)
{
    const auto r = static_cast<Index>(rowEdges.size()) - 1, c = static_cast<Index>(columnEdges.size()) - 1;
    // unpadded[j]: the columns before j that no padding hides, so a span's count is one subtraction.
    std::vector<Index> unpadded;
    if (!padded.empty()) {
        unpadded.assign(padded.size() + 1, 0);
        for (std::size_t j = 0; j < padded.size(); ++j) unpadded[j + 1] = unpadded[j] + (padded[j] ? 0 : 1);
    }
    auto anyVisible = [&](Index r0, Index r1, Index c0, Index c1) {
        for (Index q = r0; q < r1; ++q) {
            const KeyRange& keys = visible[static_cast<std::size_t>(q)];
            const Index begin = std::max(keys.begin, c0), end = std::min(keys.end, c1);
            if (begin >= end) continue;
            if (unpadded.empty() ||
                unpadded[static_cast<std::size_t>(end)] > unpadded[static_cast<std::size_t>(begin)])
                return true;
        }
        return false;
    };
    BlockFlags masked(r, c);
    for (Index i = 0; i < r; ++i)
        for (Index j = 0; j < c; ++j)
            masked(i, j) = !anyVisible(rowEdges[static_cast<std::size_t>(i)], rowEdges[static_cast<std::size_t>(i) + 1],
                                       columnEdges[static_cast<std::size_t>(j)], columnEdges[static_cast<std::size_t>(j) + 1]);
    return masked;
}

void markBlocks(MatrixF& pooled, const BlockFlags& flagged)
{
    pooled = flagged.select(std::numeric_limits<float>::quiet_NaN(), pooled.array()).matrix();
}

}  // namespace qkv
