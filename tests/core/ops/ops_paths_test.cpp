// Each op's rule checked once over every path that runs it (manif's habit: one invariant suite,
// the path its parameter). A path feeds the op through the code around it: the attention
// layer's row blocks, the trainable model's steps, the streamed maps, a pretrained block, the
// first layer's input. A path that loses the rule (its own copy, a wrong range, a missed cap)
// fails here whatever the others do.

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/analysis/head_statistics.hpp"
#include "core/attention/head_blocks.hpp"
#include "core/attention/multi_head_attention.hpp"
#include "core/attention/streamed_attention.hpp"
#include "core/embedding/first_layer_input.hpp"
#include "core/trainable/model_steps.hpp"
#include "core/ops/layer_norm.hpp"
#include "core/ops/rms_norm.hpp"
#include "core/ops/softmax.hpp"
#include "core/pretrained/block_steps.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

template <class Path>
std::string pathName(const ::testing::TestParamInfo<Path>& info)
{
    return info.param.name;
}

// ---- Softmax (with the visible-key range and the soft cap) ---------------------------------------

struct SoftmaxPath {
    std::string name;
    // GoogleTest prints the path by its name, not its bytes.
    friend void PrintTo(const SoftmaxPath& path, std::ostream* out) { *out << path.name; }
    bool keyPadding = false;  // the path takes key padding (and so can mask a whole row)
    bool window = false;      // ... a sliding window
    bool softCap = false;     // ... Gemma 2's soft cap before the softmax
    // The weights of `scores` (n_q x n_k) under `mask` and cap c (0: none); fullyMasked gets n_q flags.
    std::function<MatrixF(const MatrixF& scores, const AttentionMask& mask, double c, std::vector<bool>& fullyMasked)>
        weights;
};

// The attention layer's row blocks (head_blocks.cpp, what multiHeadAttentionForward runs): one
// head whose queries are the scores and whose keys are the identity, so Q K^T is the scores exactly.
MatrixF headBlockWeights(const MatrixF& scores, const AttentionMask& mask, double c, std::vector<bool>& fullyMasked)
{
    const Index n_k = scores.cols();
    AttentionResult r;
    r.grouping = HeadGrouping{1, 1, n_k, 0};
    r.scoreScale = 1.0f;
    r.scoreSoftCap = c;
    r.query = scores;
    r.key = MatrixF::Identity(n_k, n_k);
    r.value = MatrixF::Random(n_k, n_k);
    r.headOutputs = MatrixF::Zero(scores.rows(), n_k);
    r.mask = mask;
    r.heads.resize(1);
    attendHeadsInRowBlocks(r, false, 0, true);
    fullyMasked = r.fullyMaskedRows;
    return r.heads[0].attention;
}

// The trainable model's attention step: Q K^T / sqrt(d_k) with d_k = n_k, keys the identity and
// queries the scores times sqrt(d_k). Causal masks only (the model has no padding or window).
template <typename Scalar>
MatrixF modelWeights(const MatrixF& scores, const AttentionMask& mask, double, std::vector<bool>& fullyMasked)
{
    const Index n_q = scores.rows(), n_k = scores.cols();
    using M = RowMajorMatrix<Scalar>;
    const M queries = (scores.cast<Scalar>() * std::sqrt(static_cast<Scalar>(n_k))).eval();
    const M keys = M::Identity(n_k, n_k);
    const M values = M::Random(n_k, n_k);
    M headOutputs(n_q, n_k), attention(n_q, n_k);
    attentionForward<Scalar>(headOutputs, attention.data(), queries, keys, values,
                             AttentionShape{1, n_k, n_k, false, mask.causal});
    fullyMasked.assign(static_cast<std::size_t>(n_q), false);
    return attention.template cast<float>();
}

// The streamed maps (streamed_attention.cpp): the weights of the whole map as a region, the
// flags from the stream's row normalisers (0: no distribution).
MatrixF streamedWeights(const MatrixF& scores, const AttentionMask& mask, double c, std::vector<bool>& fullyMasked)
{
    const MatrixF key = MatrixF::Identity(scores.cols(), scores.cols());
    const HeadScoresInput head{scores, key, 1.0f, c, mask};
    const Expected<MatrixF> region = attentionRegion(head, 0, scores.rows(), 0, scores.cols());
    const Expected<StreamedAttention> stream = streamHeadAttention(head, 1, 1);
    EXPECT_TRUE(region && stream);
    fullyMasked.clear();
    for (const double z : stream->normalisers.normaliser) fullyMasked.push_back(z == 0.0);
    return *region;
}

const SoftmaxPath kSoftmaxPaths[] = {
    {"AttentionMap", true, true, false,
     [](const MatrixF& s, const AttentionMask& m, double, std::vector<bool>& f) { return softmaxForward(s, m, f); }},
    {"HeadBlocks", true, true, true, headBlockWeights},
    {"ModelFloat", false, false, false, modelWeights<float>},
    {"ModelDouble", false, false, false, modelWeights<double>},
    {"Streamed", true, true, true, streamedWeights},
};

class SoftmaxPaths : public ::testing::TestWithParam<SoftmaxPath> {};

// The rule in double: exp(s - max) / sum over the visible, unpadded keys, zeros elsewhere.
MatrixD referenceSoftmax(const MatrixF& scores, const AttentionMask& mask)
{
    MatrixD a = MatrixD::Zero(scores.rows(), scores.cols());
    for (Index q = 0; q < scores.rows(); ++q) {
        double m = -std::numeric_limits<double>::infinity(), sum = 0.0;
        for (Index k = 0; k < scores.cols(); ++k)
            if (!mask.masked(q, k)) m = std::max(m, static_cast<double>(scores(q, k)));
        if (m == -std::numeric_limits<double>::infinity()) continue;
        for (Index k = 0; k < scores.cols(); ++k)
            if (!mask.masked(q, k)) sum += (a(q, k) = std::exp(static_cast<double>(scores(q, k)) - m));
        a.row(q) /= sum;
    }
    return a;
}

std::vector<AttentionMask> masksFor(const SoftmaxPath& path, Index n_k)
{
    std::vector<AttentionMask> masks(2);
    masks[1].causal = true;
    if (path.window) {
        AttentionMask windowed;
        windowed.causal = true;
        windowed.window = 3;
        masks.push_back(windowed);
    }
    if (path.keyPadding) {
        AttentionMask padded;
        padded.keyPadding.assign(static_cast<std::size_t>(n_k), false);
        padded.keyPadding[1] = padded.keyPadding[4] = true;
        masks.push_back(padded);
    }
    return masks;
}

TEST_P(SoftmaxPaths, RowsAreTheRuleOverTheVisibleKeysAndZeroElsewhere)
{
    const SoftmaxPath& path = GetParam();
    const Index n = 7;
    const MatrixF scores = MatrixF::Random(n, n) * 4.0f;
    for (const AttentionMask& mask : masksFor(path, n)) {
        std::vector<bool> fullyMasked;
        const MatrixF a = path.weights(scores, mask, 0.0, fullyMasked);
        ASSERT_EQ(a.rows(), n);
        ASSERT_EQ(a.cols(), n);
        EXPECT_MATRIX_NEAR(a, referenceSoftmax(scores, mask), 2e-6);
        for (Index q = 0; q < n; ++q) {
            EXPECT_NEAR(a.row(q).sum(), 1.0f, 2e-6f) << "row " << q;
            for (Index k = 0; k < n; ++k)
                if (mask.masked(q, k)) {
                    EXPECT_EQ(a(q, k), 0.0f) << "masked key " << k << " of query " << q;
                }
        }
        EXPECT_EQ(fullyMasked, std::vector<bool>(static_cast<std::size_t>(n), false));
    }
}

TEST_P(SoftmaxPaths, ExtremeScoresGiveNoNaN)
{
    MatrixF scores(3, 3);
    scores << 1e30f, -1e30f, 0.0f,  // one huge logit takes everything
        1e30f, 1e30f, -1e30f,       // two equal huge logits share
        -1e30f, -1e30f, -1e30f;     // all tiny: uniform
    std::vector<bool> fullyMasked;
    const MatrixF a = GetParam().weights(scores, AttentionMask{}, 0.0, fullyMasked);
    ASSERT_TRUE(a.allFinite()) << a;
    MatrixF expected(3, 3);
    expected << 1, 0, 0, 0.5, 0.5, 0, 1.0f / 3, 1.0f / 3, 1.0f / 3;
    EXPECT_MATRIX_NEAR(a, expected, 1e-6);
}

TEST_P(SoftmaxPaths, FullyMaskedRowsGiveZerosAndAFlag)
{
    const SoftmaxPath& path = GetParam();
    if (!path.keyPadding) GTEST_SKIP() << path.name << " cannot mask a whole row (every row sees key 0)";
    // Causal, keys 0 and 1 padded: queries 0 and 1 see nothing; query 2 sees key 2 only.
    AttentionMask mask;
    mask.causal = true;
    mask.keyPadding = {true, true, false, false};
    const MatrixF scores = MatrixF::Random(4, 4);
    std::vector<bool> fullyMasked;
    const MatrixF a = path.weights(scores, mask, 0.0, fullyMasked);
    ASSERT_TRUE(a.allFinite()) << a;
    EXPECT_EQ(a.row(0).cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_EQ(a.row(1).cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_EQ(a(2, 2), 1.0f);
    EXPECT_EQ(fullyMasked, (std::vector<bool>{true, true, false, false}));
}

// Gemma 2: the softmax reads c tanh(s / c). Scores 1000 and 2000 capped at 5 are both ~5 and
// share the weight, where uncapped the larger would take it all.
TEST_P(SoftmaxPaths, SoftCapComesBeforeTheSoftmax)
{
    const SoftmaxPath& path = GetParam();
    if (!path.softCap) GTEST_SKIP() << path.name << " has no soft cap";
    MatrixF scores(2, 3);
    scores << 1000.0f, 2000.0f, -3.0f,  //
        0.5f, -1.0f, 2.0f;
    const double c = 5.0;
    std::vector<bool> fullyMasked;
    const MatrixF a = path.weights(scores, AttentionMask{}, c, fullyMasked);
    MatrixF capped = scores;
    for (Index i = 0; i < capped.size(); ++i) capped.data()[i] = static_cast<float>(c * std::tanh(scores.data()[i] / c));
    EXPECT_MATRIX_NEAR(a, referenceSoftmax(capped, AttentionMask{}), 2e-6);
    EXPECT_NEAR(a(0, 0), a(0, 1), 1e-6f);
}

INSTANTIATE_TEST_SUITE_P(Ops, SoftmaxPaths, ::testing::ValuesIn(kSoftmaxPaths), pathName<SoftmaxPath>);

// The head statistics count a row's visible keys from the same range the softmaxes use.
TEST(VisibleKeysPaths, HeadStatisticsCountTheRangeTheSoftmaxSees)
{
    AttentionMask mask;
    mask.causal = true;
    mask.window = 3;
    mask.keyPadding = {false, false, true, false, false, false};
    const MatrixF scores = MatrixF::Random(6, 6);
    std::vector<bool> fullyMasked;
    const MatrixF a = softmaxForward(scores, mask, fullyMasked);
    const Expected<HeadStatistics> stats = attentionStatistics(a, mask, fullyMasked, true);
    ASSERT_TRUE(stats);
    for (Index q = 0; q < 6; ++q) {
        Index nonZero = 0;
        for (Index k = 0; k < 6; ++k) nonZero += a(q, k) > 0.0f ? 1 : 0;
        EXPECT_EQ(stats->visibleKeys[static_cast<std::size_t>(q)], nonZero) << "query " << q;
    }
}

// ---- GELU -------------------------------------------------------------------------------------------

struct ActivationPath {
    std::string name;
    // GoogleTest prints the path by its name, not its bytes.
    friend void PrintTo(const ActivationPath& path, std::ostream* out) { *out << path.name; }
    std::function<MatrixD(const MatrixD& a)> gelu;
};

const ActivationPath kGeluPaths[] = {
    {"ModelFloat",
     [](const MatrixD& a) {
         RowMajorMatrix<float> h(a.rows(), a.cols());
         activationForward<float>(h, RowMajorMatrix<float>(a.cast<float>()), Activation::Gelu);
         return MatrixD(h.cast<double>());
     }},
    {"ModelDouble",
     [](const MatrixD& a) {
         RowMajorMatrix<double> h(a.rows(), a.cols());
         activationForward<double>(h, RowMajorMatrix<double>(a), Activation::Gelu);
         return MatrixD(h);
     }},
    {"PretrainedBlock",
     [](const MatrixD& a) {
         MatrixF h = a.cast<float>();
         blockActivationForward(h, BlockActivation::GeluErf);
         return MatrixD(h.cast<double>());
     }},
};

class GeluPaths : public ::testing::TestWithParam<ActivationPath> {};

TEST_P(GeluPaths, IsAPhiOfAAndOddPartIsTheIdentity)
{
    MatrixD a(2, 40);
    for (Index i = 0; i < 40; ++i) {
        a(0, i) = -8.0 + 0.4 * static_cast<double>(i) + 0.1;
        a(1, i) = -a(0, i);
    }
    a = a.cast<float>().cast<double>();  // float-representable, so every path sees the same a
    const MatrixD h = GetParam().gelu(a);
    for (Index i = 0; i < 40; ++i) {
        const double x = a(0, i);
        EXPECT_NEAR(h(0, i), 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))), 1e-6 * std::max(1.0, std::abs(x)));
        // a Phi(a) - (-a) Phi(-a) = a (Phi(a) + Phi(-a)) = a
        EXPECT_NEAR(h(0, i) - h(1, i), x, 2e-6 * std::max(1.0, std::abs(x)));
        EXPECT_GE(h(0, i), -0.17) << "GELU's minimum is -0.16997 (at a = -0.7518)";
    }
}

INSTANTIATE_TEST_SUITE_P(Ops, GeluPaths, ::testing::ValuesIn(kGeluPaths), pathName<ActivationPath>);

// ---- LayerNorm and RMSNorm ------------------------------------------------------------------------

struct NormPath {
    std::string name;
    // GoogleTest prints the path by its name, not its bytes.
    friend void PrintTo(const NormPath& path, std::ostream* out) { *out << path.name; }
    // y = Norm(x) * gamma (+ beta for LayerNorm), epsilon 1e-5.
    std::function<MatrixD(const MatrixD& x, const RowVectorF& gamma, const RowVectorF& beta)> norm;
};

template <typename Scalar>
MatrixD modelLayerNorm(const MatrixD& x, const RowVectorF& gamma, const RowVectorF& beta)
{
    const RowMajorMatrix<Scalar> in = x.cast<Scalar>();
    RowMajorMatrix<Scalar> y(x.rows(), x.cols());
    std::vector<Scalar> mean(static_cast<std::size_t>(x.rows())), rstd(mean.size());
    const Eigen::Matrix<Scalar, 1, Eigen::Dynamic> g = gamma.cast<Scalar>(), b = beta.cast<Scalar>();
    layerNormForward<Scalar>(y, mean.data(), rstd.data(), in, g.data(), b.data(), 1e-5);
    return y.template cast<double>();
}

const NormPath kLayerNormPaths[] = {
    {"ModelFloat", modelLayerNorm<float>},
    {"ModelDouble", modelLayerNorm<double>},
    {"ModelInput",  // the first layer's input: LayerNorm(token rows + position rows), positions 0
     [](const MatrixD& x, const RowVectorF& gamma, const RowVectorF& beta) {
         const MatrixF tokens = x.cast<float>();
         const MatrixF positions = MatrixF::Zero(x.rows(), x.cols());
         std::vector<std::int32_t> ids;
         for (Index t = 0; t < x.rows(); ++t) ids.push_back(static_cast<std::int32_t>(t));
         const Expected<MatrixF> y =
             normalizedEmbeddingSum(ids, tokens, positions, 0, nullptr, LayerNormParameters{gamma, beta, 1e-5});
         EXPECT_TRUE(y);
         return MatrixD(y->cast<double>());
     }},
    {"PretrainedBlock",
     [](const MatrixD& x, const RowVectorF& gamma, const RowVectorF& beta) {
         return MatrixD(normRowsForward(x.cast<float>(), NormWeights{gamma, beta}, PretrainedNorm::LayerNorm, 1e-5)
                            .cast<double>());
     }},
};

const NormPath kRmsNormPaths[] = {
    {"RowsFloat",
     [](const MatrixD& x, const RowVectorF& gamma, const RowVectorF&) {
         RowMajorMatrix<float> y(x.rows(), x.cols());
         rmsNormForward<float>(y, RowMajorMatrix<float>(x.cast<float>()), gamma.data(), 1e-5);
         return MatrixD(y.cast<double>());
     }},
    {"RowsDouble",
     [](const MatrixD& x, const RowVectorF& gamma, const RowVectorF&) {
         RowMajorMatrix<double> y(x.rows(), x.cols());
         const Eigen::RowVectorXd g = gamma.cast<double>();
         rmsNormForward<double>(y, RowMajorMatrix<double>(x), g.data(), 1e-5);
         return MatrixD(y);
     }},
    {"QueryKeySegments",  // a q/k norm whose segment is the whole row
     [](const MatrixD& x, const RowVectorF& gamma, const RowVectorF&) {
         MatrixF y = x.cast<float>();
         rmsNormSegments(y, gamma, 1e-5f);
         return MatrixD(y.cast<double>());
     }},
    {"PretrainedBlock",
     [](const MatrixD& x, const RowVectorF& gamma, const RowVectorF&) {
         return MatrixD(
             normRowsForward(x.cast<float>(), NormWeights{gamma, RowVectorF()}, PretrainedNorm::RmsNorm, 1e-5)
                 .cast<double>());
     }},
};

class LayerNormPaths : public ::testing::TestWithParam<NormPath> {};
class RmsNormPaths : public ::testing::TestWithParam<NormPath> {};

MatrixD normInput()
{
    MatrixD x = (MatrixD::Random(5, 12) * 3.0).cast<float>().cast<double>();
    x.row(2).setConstant(1.5);  // a constant row: LayerNorm's variance 0, epsilon keeps it finite
    return x;
}

TEST_P(LayerNormPaths, RowsAreCentredScaledThenAffine)
{
    const MatrixD x = normInput();
    const RowVectorF ones = RowVectorF::Ones(12), zeros = RowVectorF::Zero(12);
    const MatrixD y = GetParam().norm(x, ones, zeros);
    ASSERT_TRUE(y.allFinite());
    for (Index r = 0; r < x.rows(); ++r) {
        EXPECT_NEAR(y.row(r).mean(), 0.0, 1e-6) << "row " << r;
        if (r != 2) {
            EXPECT_NEAR(y.row(r).squaredNorm() / 12.0, 1.0, 1e-4) << "row " << r;
        }
    }
    EXPECT_EQ(y.row(2).cwiseAbs().maxCoeff(), 0.0);

    const RowVectorF gamma = RowVectorF::Random(12), beta = RowVectorF::Random(12);
    const MatrixD affine = GetParam().norm(x, gamma, beta);
    MatrixD expected(x.rows(), x.cols());
    for (Index r = 0; r < x.rows(); ++r) {
        const double mean = x.row(r).mean();
        const double variance = (x.row(r).array() - mean).square().mean();
        expected.row(r) = ((x.row(r).array() - mean) / std::sqrt(variance + 1e-5) * gamma.cast<double>().array() +
                           beta.cast<double>().array())
                              .matrix();
    }
    EXPECT_MATRIX_NEAR(affine, expected, 1e-5);
    // Shifting a row changes nothing (the mean is taken out).
    EXPECT_MATRIX_NEAR(GetParam().norm((x.array() + 8.0).matrix(), gamma, beta), affine, 2e-5);
}

TEST_P(RmsNormPaths, RowsHaveUnitRootMeanSquareWithoutCentring)
{
    const MatrixD x = normInput();
    const RowVectorF ones = RowVectorF::Ones(12);
    const MatrixD y = GetParam().norm(x, ones, RowVectorF());
    for (Index r = 0; r < x.rows(); ++r) {
        const double meanSquare = x.row(r).squaredNorm() / 12.0;
        EXPECT_NEAR(y.row(r).squaredNorm() / 12.0, meanSquare / (meanSquare + 1e-5), 1e-5) << "row " << r;
    }
    EXPECT_MATRIX_NEAR(y.row(2), MatrixD::Constant(1, 12, 1.5 / std::sqrt(1.5 * 1.5 + 1e-5)), 1e-6)
        << "no centring: a constant row stays constant";

    const RowVectorF gamma = RowVectorF::Random(12);
    const MatrixD scaled = GetParam().norm(x, gamma, RowVectorF());
    MatrixD expected(x.rows(), x.cols());
    for (Index r = 0; r < x.rows(); ++r)
        expected.row(r) = (x.row(r).array() / std::sqrt(x.row(r).squaredNorm() / 12.0 + 1e-5) *
                           gamma.cast<double>().array())
                              .matrix();
    EXPECT_MATRIX_NEAR(scaled, expected, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Ops, LayerNormPaths, ::testing::ValuesIn(kLayerNormPaths), pathName<NormPath>);
INSTANTIATE_TEST_SUITE_P(Ops, RmsNormPaths, ::testing::ValuesIn(kRmsNormPaths), pathName<NormPath>);

}  // namespace
}  // namespace qkv
