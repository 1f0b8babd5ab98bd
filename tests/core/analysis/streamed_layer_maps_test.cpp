// The maps a streamed layer gives only from every head together, against the held maps'
// (value_norms.hpp, attention_rollout.hpp, themselves NumPy- and PyTorch-checked): the layer's
// value norm pooled and over a region, the heads' mean, and the rollout folded a layer at a time,
// with the lower-triangular product for causal layers.

#include <vector>

#include <gtest/gtest.h>

#include "core/analysis/attention_rollout.hpp"
#include "core/analysis/map_pooling.hpp"
#include "core/analysis/streamed_layer_maps.hpp"
#include "core/analysis/value_norms.hpp"
#include "core/attention/streamed_layer.hpp"

namespace qkv {
namespace {

AttentionWeights randomWeights(Index d)
{
    AttentionWeights w;
    w.queryProjection = MatrixF::Random(d, d);
    w.keyProjection = MatrixF::Random(d, d);
    w.valueProjection = MatrixF::Random(d, d);
    w.outputProjection = MatrixF::Random(d, d);
    w.valueBias = RowVectorF::Random(d);
    w.queryBias = RowVectorF::Zero(d);
    w.keyBias = RowVectorF::Zero(d);
    w.outputBias = RowVectorF::Zero(d);
    return w;
}

TEST(StreamedLayerMaps, TheLayersValueNormAndHeadMeanAreTheHeldMapsOwn)
{
    std::srand(3);
    const Index n = 2150, d = 12;  // past one tile of keys
    const MatrixF x = MatrixF::Random(n, d);
    const AttentionWeights w = randomWeights(d);
    AttentionOptions options;
    options.mask.causal = true;
    options.ablated = {false, false, true};  // head 3 off: out of the layer's norm and the mean
    const HeadGrouping grouping = w.grouping(3);
    const AttentionResult full = multiHeadAttentionForward(x, x, w, grouping, options);
    const Expected<StreamedLayer> streamed = streamedMultiHeadAttention(x, x, w, grouping, options);
    ASSERT_TRUE(streamed.ok()) << streamed.error();

    const std::vector<Index> rows = blockEdges(n, 7), columns = blockEdges(n, 9);
    StreamedLayerMapsRequest request;
    request.rowEdges = &rows;
    request.columnEdges = &columns;
    request.firstRow = 2000;
    request.endRow = 2150;
    request.firstColumn = 1900;
    request.endColumn = 2150;
    request.headMean = true;
    const Expected<StreamedLayerMaps> maps = streamedLayerMaps(streamed->attention, streamed->heads, w, request);
    ASSERT_TRUE(maps.ok()) << maps.error();

    const Expected<ValueNorms> norms = valueWeightedNorms(full, w);
    ASSERT_TRUE(norms.ok()) << norms.error();
    const double scale = norms->layer.maxCoeff();
    const Expected<MatrixF> means = blockMeans(norms->layer, 7, 9);
    ASSERT_TRUE(means.ok());
    EXPECT_LT((maps->normMean - means->cast<double>()).cwiseAbs().maxCoeff(), 1e-5 * scale);
    EXPECT_NEAR(maps->normMax.maxCoeff(), scale, 1e-5 * scale);
    EXPECT_LT((maps->normRegion - norms->layer.block(2000, 1900, 150, 250)).cwiseAbs().maxCoeff(), 1e-5 * scale);
    EXPECT_LT((maps->headMean - meanAttentionOfActiveHeads(full)).cwiseAbs().maxCoeff(), 1e-6);

    // A region alone visits only its tiles (cut at other keys, so equal to float rounding).
    StreamedLayerMapsRequest regionOnly = request;
    regionOnly.rowEdges = regionOnly.columnEdges = nullptr;
    regionOnly.headMean = false;
    const Expected<StreamedLayerMaps> cut = streamedLayerMaps(streamed->attention, streamed->heads, w, regionOnly);
    ASSERT_TRUE(cut.ok()) << cut.error();
    EXPECT_LT((cut->normRegion - maps->normRegion).cwiseAbs().maxCoeff(), 1e-6 * scale);
    EXPECT_EQ(cut->headMean.size(), 0);
}

TEST(AttentionRollout, FoldedALayerAtATimeItIsTheWholeRolloutAndTriangularProductsChangeNothing)
{
    std::srand(9);
    const Index n = 600;  // not a multiple of the 256-row blocks
    std::vector<MatrixD> causalMeans, fullMeans;
    for (int l = 0; l < 3; ++l) {
        MatrixD causal = MatrixD::Random(n, n).cwiseAbs();
        causal.triangularView<Eigen::StrictlyUpper>().setZero();
        causal = causal.array().colwise() / causal.rowwise().sum().array();
        causalMeans.push_back(causal);
        MatrixD full = MatrixD::Random(n, n).cwiseAbs();
        fullMeans.push_back(full.array().colwise() / full.rowwise().sum().array());
    }
    causalMeans.insert(causalMeans.begin() + 1, MatrixD());  // a layer with every head off
    for (const bool triangular : {true, false}) {
        const std::vector<MatrixD>& means = triangular ? causalMeans : fullMeans;
        const Expected<MatrixD> whole = attentionRollout(means, static_cast<Index>(means.size()) - 1);
        ASSERT_TRUE(whole.ok()) << whole.error();
        MatrixD folded;
        for (const MatrixD& mean : means) ASSERT_TRUE(foldRolloutLayer(folded, mean, triangular).ok());
        EXPECT_LT((folded - *whole).cwiseAbs().maxCoeff(), 1e-14) << (triangular ? "lower triangular" : "full");
        EXPECT_LT((folded.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-12);
    }
    MatrixD folded = causalMeans.front();
    EXPECT_FALSE(foldRolloutLayer(folded, MatrixD::Identity(5, 5), true).ok()) << "sizes differ";
}

}  // namespace
}  // namespace qkv
