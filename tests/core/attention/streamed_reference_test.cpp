// The streamed attention against NumPy (tests/data/streamed/make_streamed_fixtures.py: float64,
// block by block of query rows): pooled means and maxima of the weights and of a_qj c_j, the
// row statistics, the head output and an exact region, past one tile of keys and one block of
// rows, with a sliding window, padded keys, cross-attention and a soft cap. Then one head at
// 32,768 tokens, where no full map can be compared: sampled rows against a float64 row computed
// here, and the pooled map's invariants (every row's weights sum to 1).

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/attention/streamed_attention.hpp"
#include "core/io/npy.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

struct Fixture {
    const char* name;
    Index pooledRows, pooledColumns;
    bool causal;
    Index window;
    Index firstPadded, paddingStep;
    double softCap;
    Index regionRows[2], regionColumns[2];
};

MatrixF floats(const std::string& folder, const char* name)
{
    Expected<MatrixF> m = readNpyMatrix(folder + "/" + name + ".npy");
    EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error());
    return m.ok() ? *m : MatrixF();
}

MatrixD doubles(const std::string& folder, const char* name)
{
    Expected<MatrixD> m = readNpyMatrixD(folder + "/" + name + ".npy");
    EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error());
    return m.ok() ? *m : MatrixD();
}

class StreamedReference : public ::testing::TestWithParam<Fixture> {};

TEST_P(StreamedReference, EveryKeptNumberIsNumPysFloat64Own)
{
    const Fixture f = GetParam();
    const std::string folder = std::string(testDataDir()) + "/streamed/" + f.name;
    const MatrixF query = floats(folder, "query"), key = floats(folder, "key"), value = floats(folder, "value");
    const RowVectorF keyScales = floats(folder, "key_scales").row(0);
    ASSERT_GT(key.rows(), 2048) << "the fixture must cross a tile of keys";
    AttentionMask mask;
    mask.causal = f.causal;
    mask.window = f.window;
    mask.keyPadding.assign(static_cast<std::size_t>(key.rows()), false);
    for (Index j = f.firstPadded; j < key.rows(); j += f.paddingStep) mask.keyPadding[static_cast<std::size_t>(j)] = true;
    HeadScoresInput input{query, key, 1.0f / std::sqrt(static_cast<float>(query.cols())), f.softCap, mask};
    input.value = &value;
    input.keyScales = &keyScales;

    const Expected<StreamedAttention> streamed = streamHeadAttention(input, f.pooledRows, f.pooledColumns);
    ASSERT_TRUE(streamed.ok()) << streamed.error();
    const PooledAttention& pooled = streamed->pooled;
    // Weights are at most 1 and computed in float: a few float ulps.
    EXPECT_LT((pooled.mean.cast<double>() - doubles(folder, "pooled_mean")).cwiseAbs().maxCoeff(), 1e-7) << f.name;
    EXPECT_LT((pooled.max.cast<double>() - doubles(folder, "pooled_max")).cwiseAbs().maxCoeff(), 1e-6) << f.name;
    // Key scales up to 2.
    EXPECT_LT((pooled.scaledMean.cast<double>() - doubles(folder, "pooled_scaled_mean")).cwiseAbs().maxCoeff(), 2e-7) << f.name;
    EXPECT_LT((pooled.scaledMax.cast<double>() - doubles(folder, "pooled_scaled_max")).cwiseAbs().maxCoeff(), 2e-6) << f.name;
    // A_i V_j, values of order 1, sums over up to 2,100 keys in float.
    EXPECT_LT((streamed->output - floats(folder, "output")).cwiseAbs().maxCoeff(), 1e-5) << f.name;

    const MatrixD rows = doubles(folder, "row_statistics");  // n_q x 4: entropy, distance, max, own
    ASSERT_EQ(rows.rows(), query.rows());
    const StreamedRowStatistics& stats = streamed->rows;
    for (Index q = 0; q < query.rows(); ++q) {
        if (std::isnan(rows(q, 0))) {
            EXPECT_TRUE(std::isnan(stats.entropy(q))) << f.name << " row " << q;
            continue;
        }
        EXPECT_NEAR(stats.entropy(q), rows(q, 0), 2e-5) << f.name << " row " << q;
        EXPECT_NEAR(stats.meanDistance(q), rows(q, 1), 2e-6 * (1.0 + rows(q, 1))) << f.name << " row " << q;
        EXPECT_NEAR(stats.maxWeight(q), rows(q, 2), 1e-6) << f.name << " row " << q;
        if (!std::isnan(rows(q, 3))) EXPECT_NEAR(stats.selfWeight(q), rows(q, 3), 1e-6) << f.name << " row " << q;
    }

    const Expected<MatrixF> region =
        attentionRegion(input, f.regionRows[0], f.regionRows[1], f.regionColumns[0], f.regionColumns[1]);
    ASSERT_TRUE(region.ok()) << region.error();
    EXPECT_LT((region->cast<double>() - doubles(folder, "region")).cwiseAbs().maxCoeff(), 1e-6) << f.name;
}

// As make_streamed_fixtures.py's CASES.
INSTANTIATE_TEST_SUITE_P(NumPy, StreamedReference,
                         ::testing::Values(Fixture{"causal_window_padded", 7, 9, true, 700, 5, 11, 0.0,
                                                   {2014, 2030}, {1700, 2100}},
                                           Fixture{"cross_capped", 5, 13, false, 0, 2, 13, 3.0, {100, 116}, {2000, 2100}}),
                         [](const ::testing::TestParamInfo<Fixture>& info) { return std::string(info.param.name); });

// One row of a causal head in float64 from Q and K as floats, the definitions written out.
struct ReferenceRow {
    std::vector<double> weights;  // q + 1 entries
    double entropy = 0, distance = 0, largest = 0;
};
ReferenceRow referenceRow(const MatrixF& query, const MatrixF& key, double scale, Index q)
{
    ReferenceRow row;
    row.weights.resize(static_cast<std::size_t>(q) + 1);
    double top = -INFINITY;
    for (Index j = 0; j <= q; ++j) {
        const double s = query.row(q).cast<double>().dot(key.row(j).cast<double>()) * scale;
        row.weights[static_cast<std::size_t>(j)] = s;
        top = std::max(top, s);
    }
    double sum = 0;
    for (double& w : row.weights) sum += (w = std::exp(w - top));
    for (Index j = 0; j <= q; ++j) {
        double& w = row.weights[static_cast<std::size_t>(j)];
        w /= sum;
        if (w > 0) row.entropy -= w * std::log(w);
        row.distance += w * static_cast<double>(q - j);
        row.largest = std::max(row.largest, w);
    }
    return row;
}

TEST(StreamedAttentionLong, AtThirtyTwoThousandTokensSampledRowsAreExactAndEveryRowSumsToOne)
{
    const Index n = 32768, d_k = 4;
    std::srand(11);
    const MatrixF query = MatrixF::Random(n, d_k) * 3.0f, key = MatrixF::Random(n, d_k) * 3.0f;  // n x d_k
    AttentionMask mask;
    mask.causal = true;
    const float scale = 0.5f;
    const HeadScoresInput input{query, key, scale, 0.0, mask};
    const Expected<StreamedAttention> streamed = streamHeadAttention(input, 64, 64);
    ASSERT_TRUE(streamed.ok()) << streamed.error();
    const PooledAttention& pooled = streamed->pooled;
    // Every row's weights sum to 1, so a block row of the means, times its cells, counts its rows.
    for (Index b = 0; b < 64; ++b) {
        const auto rows = static_cast<double>(pooled.rowEdges[static_cast<std::size_t>(b) + 1] -
                                              pooled.rowEdges[static_cast<std::size_t>(b)]);
        double total = 0;
        for (Index c = 0; c < 64; ++c)
            total += static_cast<double>(pooled.mean(b, c)) * rows *
                     static_cast<double>(pooled.columnEdges[static_cast<std::size_t>(c) + 1] -
                                         pooled.columnEdges[static_cast<std::size_t>(c)]);
        EXPECT_NEAR(total, rows, 1e-4 * rows) << "block row " << b;
    }
    for (const Index q : {Index{0}, Index{1}, Index{2047}, Index{2048}, Index{20001}, n - 1}) {
        const ReferenceRow reference = referenceRow(query, key, static_cast<double>(scale), q);
        const Expected<MatrixF> row = attentionRegion(input, q, q + 1, 0, q + 1);
        ASSERT_TRUE(row.ok()) << row.error();
        double worst = 0;
        for (Index j = 0; j <= q; ++j)
            worst = std::max(worst, std::abs(static_cast<double>((*row)(0, j)) - reference.weights[static_cast<std::size_t>(j)]));
        EXPECT_LT(worst, 1e-6) << "row " << q;
        EXPECT_NEAR(streamed->rows.entropy(q), reference.entropy, 2e-5) << "row " << q;
        EXPECT_NEAR(streamed->rows.meanDistance(q), reference.distance, 2e-6 * (1.0 + reference.distance)) << "row " << q;
        EXPECT_NEAR(streamed->rows.maxWeight(q), reference.largest, 1e-6) << "row " << q;
        EXPECT_NEAR(streamed->rows.selfWeight(q), reference.weights.back(), 1e-6) << "row " << q;
        // The block holding the row's largest weight has a maximum at least that large.
        const Index rowBlock = static_cast<Index>(q * 64 / n);
        EXPECT_GE(pooled.max.row(rowBlock).maxCoeff(), reference.largest - 1e-6) << "row " << q;
    }
}

}  // namespace
}  // namespace qkv
