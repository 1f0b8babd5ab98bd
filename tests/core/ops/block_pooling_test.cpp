// Blocks of a map (core/ops/block_pooling.hpp), the rule tested once across every path that pools
// a map: a streamed head's pooled maps, the analysis' map pooling (thumbnails and the rollout's
// pool), the factored matrices (a matrix, and W_i from its factors) and the row strip. Each path
// pools its own map; every one must lay its blocks by blockEdges, cover the map exactly, and give
// each block the mean and maximum of all its cells, worked here cell by cell. Then the NaN policy
// on every path that takes any map, and the masked blocks on hand-built masks.

#include "core/ops/block_pooling.hpp"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "core/analysis/map_pooling.hpp"
#include "core/analysis/row_strip.hpp"
#include "core/ops/attention_mask.hpp"
#include "core/attention/streamed_attention.hpp"
#include "core/factored/matrix_pooling.hpp"

namespace qkv {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// What a path made of its map: the map itself (R x C, in double), the blocks it used (empty when
// the path does not say), its block means and maxima (r x c; max empty when it keeps none).
struct Pooled {
    MatrixD map;
    std::vector<Index> rowEdges, columnEdges;
    MatrixD mean, max;
    double tolerance = 0;  // the path's rounding against the double reference
};

// A path pools a map it builds from the seed to r x c blocks (r and c within the map's sides).
struct PoolingPath {
    const char* name;
    std::function<Pooled(Index rows, Index columns, Index r, Index c)> pool;
    bool anyMap;  // pools any map handed to it (so a NaN can be put in); see poolGiven
    std::function<Pooled(const MatrixD& map, Index r, Index c)> poolGiven;
};

void PrintTo(const PoolingPath& path, std::ostream* out) { *out << path.name; }

MatrixD randomMap(Index rows, Index columns)
{
    return MatrixD::Random(rows, columns).cwiseAbs();
}

// A streamed head with no mask: its map is the softmax of the scores, recomputed exactly by
// attentionRegion (the stream's weights, summed in double and kept in float).
Pooled streamedPath(Index rows, Index columns, Index r, Index c)
{
    const MatrixF query = MatrixF::Random(rows, 8) * 2.0f, key = MatrixF::Random(columns, 8) * 2.0f;
    const AttentionMask mask;
    const HeadScoresInput input{query, key, 0.5f, 0.0, mask};
    Expected<StreamedAttention> streamed = streamHeadAttention(input, r, c);
    Expected<MatrixF> map = attentionRegion(input, 0, rows, 0, columns);
    EXPECT_TRUE(streamed.ok() && map.ok());
    if (!streamed.ok() || !map.ok()) return {};
    const PooledAttention& pooled = streamed->pooled;
    return {map->cast<double>(), pooled.rowEdges, pooled.columnEdges, pooled.mean.cast<double>(),
            pooled.max.cast<double>(), 1e-6};
}

Pooled mapPoolingFloatGiven(const MatrixD& map, Index r, Index c)
{
    const MatrixF single = map.cast<float>();
    Expected<MatrixF> means = blockMeans(single, r, c);
    EXPECT_TRUE(means.ok());
    // The path's input is the float map: the reference is taken over it.
    return {single.cast<double>(), {}, {}, means.ok() ? MatrixD(means->cast<double>()) : MatrixD(), {}, 1e-6};
}

Pooled mapPoolingDoubleGiven(const MatrixD& map, Index r, Index c)
{
    const BlockMeansAndMaxima pooled = blockMeansAndMaxima(map, r, c);
    return {map, {}, {}, pooled.mean, pooled.max, 1e-12};
}

Pooled matrixPoolingGiven(const MatrixD& map, Index r, Index c)
{
    return {map, binEdges(0, map.rows(), r), binEdges(0, map.cols(), c),
            poolMatrix(map, MatrixWindow::whole(map.rows(), map.cols()), r, c), {}, 1e-12};
}

Pooled matrixPoolingFloatGiven(const MatrixD& map, Index r, Index c)
{
    const MatrixF single = map.cast<float>();
    return {single.cast<double>(), binEdges(0, map.rows(), r), binEdges(0, map.cols(), c),
            poolMatrix(single, MatrixWindow::whole(map.rows(), map.cols()), r, c).cast<double>(), {}, 1e-6};
}

// W_i = W_i^Q (W_i^K)^T pooled from its factors, never formed.
// W_i = W_i^Q (W_i^K)^T is d_model x d_model: the map is square, its side the shape's rows.
Pooled factorProductPath(Index rows, Index, Index r, Index c)
{
    const FactoredMatrix f(MatrixD::Random(rows, 3), MatrixD::Random(rows, 3));
    const Index rowBlocks = blockCount(rows, r), columnBlocks = blockCount(rows, c);
    return {f.dense(), binEdges(0, rows, rowBlocks), binEdges(0, rows, columnBlocks),
            pooledProduct(f, MatrixWindow::whole(rows, rows), rowBlocks, columnBlocks), {}, 1e-12};
}

// The row strip: one row (the first of the map) seen through c pixels.
Pooled rowStripGiven(const MatrixD& map, Index, Index c)
{
    std::vector<float> row(static_cast<std::size_t>(map.cols()));
    for (Index j = 0; j < map.cols(); ++j) row[static_cast<std::size_t>(j)] = static_cast<float>(map(0, j));
    const PixelMaxima pixels = maxPerPixel(row, c);
    MatrixD max(1, static_cast<Index>(pixels.maxima.size()));
    for (std::size_t b = 0; b < pixels.maxima.size(); ++b) max(0, static_cast<Index>(b)) = pixels.maxima[b];
    MatrixD single(1, map.cols());
    for (Index j = 0; j < map.cols(); ++j) single(0, j) = row[static_cast<std::size_t>(j)];
    return {single, {0, 1}, pixels.edges, {}, max, 0.0};
}

template <class Given>
std::function<Pooled(Index, Index, Index, Index)> onRandomMap(Given given)
{
    return [given](Index rows, Index columns, Index r, Index c) { return given(randomMap(rows, columns), r, c); };
}

const PoolingPath kPaths[] = {
    {"StreamedAttention", streamedPath, false, nullptr},
    {"MapPoolingFloat", onRandomMap(mapPoolingFloatGiven), true, mapPoolingFloatGiven},
    {"MapPoolingDouble", onRandomMap(mapPoolingDoubleGiven), true, mapPoolingDoubleGiven},
    {"MatrixPooling", onRandomMap(matrixPoolingGiven), true, matrixPoolingGiven},
    {"MatrixPoolingFloat", onRandomMap(matrixPoolingFloatGiven), true, matrixPoolingFloatGiven},
    {"FactorProduct", factorProductPath, false, nullptr},
    {"RowStrip", onRandomMap(rowStripGiven), true, rowStripGiven},
};

// The rule worked cell by cell: block (p, s) over the edges, every cell counted, NaN kept.
double referenceMean(const MatrixD& map, const std::vector<Index>& rows, const std::vector<Index>& columns, Index p,
                     Index s)
{
    double sum = 0;
    Index cells = 0;
    for (Index i = rows[static_cast<std::size_t>(p)]; i < rows[static_cast<std::size_t>(p) + 1]; ++i)
        for (Index j = columns[static_cast<std::size_t>(s)]; j < columns[static_cast<std::size_t>(s) + 1]; ++j, ++cells)
            sum += map(i, j);
    return sum / static_cast<double>(cells);
}

double referenceMax(const MatrixD& map, const std::vector<Index>& rows, const std::vector<Index>& columns, Index p,
                    Index s)
{
    double largest = -std::numeric_limits<double>::infinity();
    for (Index i = rows[static_cast<std::size_t>(p)]; i < rows[static_cast<std::size_t>(p) + 1]; ++i)
        for (Index j = columns[static_cast<std::size_t>(s)]; j < columns[static_cast<std::size_t>(s) + 1]; ++j) {
            if (std::isnan(map(i, j))) return kNaN;
            largest = std::max(largest, map(i, j));
        }
    return largest;
}

// The map's R x C asked as r x c: uneven blocks, one block, one position a block, more asked
// than there are positions (the paths that clamp make one position a block).
struct Shape {
    Index rows, columns, r, c;
};
const Shape kShapes[] = {{5, 7, 2, 3}, {13, 29, 4, 6}, {9, 9, 1, 1}, {6, 11, 6, 11}, {40, 33, 7, 5}, {3, 70, 2, 9}};

class BlockPoolingPaths : public ::testing::TestWithParam<PoolingPath> {};

TEST_P(BlockPoolingPaths, EveryPathLaysBlocksByOneRuleAndShowsTheirMeansAndMaxima)
{
    const PoolingPath& path = GetParam();
    std::srand(11);
    for (const Shape& shape : kShapes) {
        const Pooled pooled = path.pool(shape.rows, shape.columns, shape.r, shape.c);
        const std::string where = std::string(path.name) + " " + std::to_string(shape.rows) + "x" +
                                  std::to_string(shape.columns) + " -> " + std::to_string(shape.r) + "x" +
                                  std::to_string(shape.c);
        ASSERT_GT(pooled.map.size(), 0) << where;
        const Index R = pooled.map.rows(), C = pooled.map.cols();
        const std::vector<Index> rows = blockEdges(R, blockCount(R, R == 1 ? 1 : shape.r));
        const std::vector<Index> columns = blockEdges(C, blockCount(C, shape.c));
        // The path's blocks, where it says them, are the rule's.
        if (!pooled.rowEdges.empty()) EXPECT_EQ(pooled.rowEdges, rows) << where;
        if (!pooled.columnEdges.empty()) EXPECT_EQ(pooled.columnEdges, columns) << where;
        const auto r = static_cast<Index>(rows.size()) - 1, c = static_cast<Index>(columns.size()) - 1;
        for (const MatrixD* shown : {&pooled.mean, &pooled.max}) {
            if (shown->size() == 0) continue;
            ASSERT_EQ(shown->rows(), r) << where;
            ASSERT_EQ(shown->cols(), c) << where;
            for (Index p = 0; p < r; ++p)
                for (Index s = 0; s < c; ++s) {
                    const double expected = shown == &pooled.mean ? referenceMean(pooled.map, rows, columns, p, s)
                                                                  : referenceMax(pooled.map, rows, columns, p, s);
                    EXPECT_NEAR((*shown)(p, s), expected, pooled.tolerance * (1.0 + std::abs(expected)))
                        << where << (shown == &pooled.mean ? " mean " : " max ") << p << "," << s;
                }
        }
    }
}

TEST_P(BlockPoolingPaths, ACellWithoutValueLeavesItsBlockWithoutValueAndNoOtherBlock)
{
    const PoolingPath& path = GetParam();
    if (!path.anyMap) GTEST_SKIP() << path.name << " builds its own map (a non-finite score is refused there)";
    std::srand(5);
    MatrixD map = randomMap(9, 10);
    map(0, 7) = kNaN;  // in block (0, 2) of 3 x 3 blocks (columns {0-2}, {3-5}, {6-9}); the strip's pixel 2
    const Pooled pooled = path.poolGiven(map, 3, 3);
    for (const MatrixD* shown : {&pooled.mean, &pooled.max}) {
        if (shown->size() == 0) continue;
        for (Index p = 0; p < shown->rows(); ++p)
            for (Index s = 0; s < shown->cols(); ++s)
                EXPECT_EQ(std::isnan((*shown)(p, s)), p == 0 && s == 2) << path.name << " " << p << "," << s;
    }
}

INSTANTIATE_TEST_SUITE_P(EveryPath, BlockPoolingPaths, ::testing::ValuesIn(kPaths),
                         [](const ::testing::TestParamInfo<PoolingPath>& info) { return std::string(info.param.name); });

TEST(BlockEdges, CoverEverySideExactlyOnceInBlocksDifferingByAtMostOne)
{
    for (Index size : {1, 2, 5, 7, 128, 513, 4096})
        for (Index asked : {Index{-3}, Index{0}, Index{1}, Index{2}, Index{3}, Index{7}, Index{64}, Index{600}, Index{5000}}) {
            const Index blocks = blockCount(size, asked);
            ASSERT_GE(blocks, 1);
            ASSERT_LE(blocks, size);
            const std::vector<Index> edges = blockEdges(size, blocks);
            ASSERT_EQ(edges.size(), static_cast<std::size_t>(blocks) + 1);
            EXPECT_EQ(edges.front(), 0);
            EXPECT_EQ(edges.back(), size);
            for (Index b = 0; b < blocks; ++b) {
                EXPECT_GE(blockLength(edges, b), size / blocks) << size << " " << blocks << " " << b;
                EXPECT_LE(blockLength(edges, b), size / blocks + 1) << size << " " << blocks << " " << b;
                EXPECT_EQ(edges[static_cast<std::size_t>(b)], blockStart(b, blocks, size));
            }
            for (Index position = 0; position < size; position += std::max<Index>(1, size / 50)) {
                const Index b = blockOfPosition(edges, position);
                ASSERT_GE(b, 0);
                EXPECT_GE(position, edges[static_cast<std::size_t>(b)]);
                EXPECT_LT(position, edges[static_cast<std::size_t>(b) + 1]);
            }
            EXPECT_EQ(blockOfPosition(edges, -1), -1);
            EXPECT_EQ(blockOfPosition(edges, size), -1);
        }
    EXPECT_EQ(blockEdges(5, 2), (std::vector<Index>{0, 2, 5}));  // R = 5, r = 2: {0, 1} and {2, 3, 4}
    EXPECT_EQ(blockCount(0, 5), 1);                               // one block over an empty side
    EXPECT_EQ(blockEdges(0, 1), (std::vector<Index>{0, 0}));
}

TEST(BlockMaxima, AnInfiniteCellIsAValueAndANaNCellIsNot)
{
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    MatrixF map(2, 4);  // 2 x 4, blocks of 2 x 2
    map << 0.5f, inf, 0.1f, nan,  //
        -inf, 0.2f, 0.3f, 0.4f;
    const MatrixF maxima = blockMaxima(map, {0, 2}, {0, 2, 4});
    EXPECT_EQ(maxima(0, 0), inf);
    EXPECT_TRUE(std::isnan(maxima(0, 1)));  // not 0.4: the NaN is not skipped
    const MatrixF means = blockMeans(map, {0, 2}, {0, 2, 4});
    EXPECT_TRUE(std::isnan(means(0, 0)));  // inf + -inf: no mean
    EXPECT_TRUE(std::isnan(means(0, 1)));
    // A NaN anywhere in a block, first or last, leaves it NaN.
    MatrixF first = MatrixF::Constant(3, 3, 0.25f);
    first(0, 0) = nan;
    EXPECT_TRUE(std::isnan(blockMaxima(first, {0, 3}, {0, 3})(0, 0)));
    first(0, 0) = 0.25f;
    first(2, 2) = nan;
    EXPECT_TRUE(std::isnan(blockMaxima(first, {0, 3}, {0, 3})(0, 0)));
}

// Every cell of every block checked against visible ranges and padding, block by block.
BlockFlags bruteMaskedBlocks(const std::vector<KeyRange>& visible, const std::vector<bool>& padded,
                             const std::vector<Index>& rows, const std::vector<Index>& columns)
{
    BlockFlags masked = BlockFlags::Constant(static_cast<Index>(rows.size()) - 1, static_cast<Index>(columns.size()) - 1, true);
    for (Index p = 0; p < masked.rows(); ++p)
        for (Index s = 0; s < masked.cols(); ++s)
            for (Index q = rows[static_cast<std::size_t>(p)]; q < rows[static_cast<std::size_t>(p) + 1]; ++q)
                for (Index j = columns[static_cast<std::size_t>(s)]; j < columns[static_cast<std::size_t>(s) + 1]; ++j) {
                    const KeyRange& keys = visible[static_cast<std::size_t>(q)];
                    const bool hidden = j < keys.begin || j >= keys.end || (!padded.empty() && padded[static_cast<std::size_t>(j)]);
                    if (!hidden) masked(p, s) = false;
                }
    return masked;
}

TEST(MaskedBlocks, ABlockIsMaskedExactlyWhenNoneOfItsCellsIsVisible)
{
    // By hand: 4 queries, 6 keys, causal; keys 4 and 5 padded.
    std::vector<KeyRange> causal;
    for (Index q = 0; q < 4; ++q) causal.push_back({0, q + 1});
    const BlockFlags masked = maskedBlocks(causal, {}, {0, 2, 4}, {0, 2, 4, 6});
    EXPECT_FALSE(masked(0, 0));
    EXPECT_TRUE(masked(0, 1));  // rows 0-1 see keys 0-1 only
    EXPECT_TRUE(masked(0, 2));
    EXPECT_FALSE(masked(1, 1));
    EXPECT_TRUE(masked(1, 2));
    std::vector<KeyRange> all(4, KeyRange{0, 6});
    const std::vector<bool> padded{false, false, false, false, true, true};
    const BlockFlags paddedBlocks = maskedBlocks(all, padded, {0, 2, 4}, {0, 2, 4, 6});
    EXPECT_FALSE(paddedBlocks(1, 1));
    EXPECT_TRUE(paddedBlocks(0, 2));  // every key of the block padded
    EXPECT_TRUE(paddedBlocks(1, 2));

    // Sliding windows, padding and uneven blocks, against every cell.
    std::srand(3);
    for (int trial = 0; trial < 40; ++trial) {
        const Index rows = 1 + std::rand() % 30, columns = 1 + std::rand() % 30, window = std::rand() % 6;
        std::vector<KeyRange> visible;
        for (Index q = 0; q < rows; ++q) {
            const Index end = std::min(q + 1 + trial % 3, columns);
            visible.push_back({window > 0 ? std::max<Index>(0, end - window) : 0, end});
        }
        std::vector<bool> pad;
        if (trial % 2)
            for (Index j = 0; j < columns; ++j) pad.push_back(std::rand() % 3 == 0);
        const std::vector<Index> rowEdges = blockEdges(rows, blockCount(rows, 1 + std::rand() % 8));
        const std::vector<Index> columnEdges = blockEdges(columns, blockCount(columns, 1 + std::rand() % 8));
        EXPECT_TRUE((maskedBlocks(visible, pad, rowEdges, columnEdges) ==
                     bruteMaskedBlocks(visible, pad, rowEdges, columnEdges)).all())
            << "trial " << trial;
    }
}

TEST(MaskedBlocks, MarkedBlocksAreNaNAndTheOthersKeepTheirBits)
{
    MatrixF pooled(2, 2);  // 2 x 2
    pooled << 0.125f, 0.0f, 0.5f, 0.75f;
    BlockFlags flags(2, 2);
    flags << false, true, false, false;
    markBlocks(pooled, flags);
    EXPECT_EQ(pooled(0, 0), 0.125f);
    EXPECT_TRUE(std::isnan(pooled(0, 1)));
    EXPECT_EQ(pooled(1, 0), 0.5f);
    EXPECT_EQ(pooled(1, 1), 0.75f);
}

}  // namespace
}  // namespace qkv
