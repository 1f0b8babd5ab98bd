// The fused forward pass (scores, softmax and A_i V_j over blocks of query rows, heads shared
// among threads: core/attention/head_blocks.hpp) against a plain reference written here: every
// head's full score matrix, the mask as -inf, the softmax in double, one step after another.
// Random cases cover causal masks, key padding, fully masked rows, grouped-query heads, rotary
// positions, biases, ablation, cross-attention, blocks of any size, and logits of +-1e30 and
// +-inf.

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "core/attention/head_blocks.hpp"
#include "core/attention/multi_head_attention.hpp"
#include "core/common/parallelism.hpp"
#include "core/common/random.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

MatrixF randomMatrix(Index rows, Index cols, SplitMix64& stream, double scale = 1.0)
{
    MatrixF m(rows, cols);
    for (Index r = 0; r < rows; ++r)
        for (Index c = 0; c < cols; ++c) m(r, c) = static_cast<float>(scale * stream.normal());
    return m;
}

// d_model x d_model query and output projections, d_model x (g d_k) key and value projections.
AttentionWeights randomWeights(Index d_model, Index keyValueWidth, bool bias, SplitMix64& stream)
{
    const double scale = 1.0 / std::sqrt(static_cast<double>(d_model));
    AttentionWeights w;
    w.queryProjection = randomMatrix(d_model, d_model, stream, scale);
    w.keyProjection = randomMatrix(d_model, keyValueWidth, stream, scale);
    w.valueProjection = randomMatrix(d_model, keyValueWidth, stream, scale);
    w.outputProjection = randomMatrix(d_model, d_model, stream, scale);
    if (bias) {
        w.queryBias = randomMatrix(1, d_model, stream);
        w.keyBias = randomMatrix(1, keyValueWidth, stream);
        w.valueBias = randomMatrix(1, keyValueWidth, stream);
        w.outputBias = randomMatrix(1, d_model, stream);
    }
    return w;
}

// What the forward pass must give after its projections: steps 2-5 from Q, K and V (which the
// result holds, rotated when rotary), whole matrices, the softmax in double.
struct Reference {
    std::vector<MatrixF> scores;     // h x (n_q x n_k), scaled, before the mask
    std::vector<MatrixD> attention;  // h x (n_q x n_k)
    std::vector<bool> fullyMasked;   // n_q, the last head's rows without a distribution
    MatrixD headOutputs;             // n_q x d_model
    MatrixD output;                  // n_q x d_model
};

MatrixD referenceSoftmax(const MatrixF& scores, const AttentionMask& mask, std::vector<bool>& noDistribution)
{
    MatrixD a = MatrixD::Zero(scores.rows(), scores.cols());
    noDistribution.assign(static_cast<std::size_t>(scores.rows()), false);
    for (Index q = 0; q < scores.rows(); ++q) {
        double rowMax = -infinity;
        for (Index k = 0; k < scores.cols(); ++k)
            if (!mask.masked(q, k)) rowMax = std::max(rowMax, static_cast<double>(scores(q, k)));
        if (rowMax == -infinity) {
            noDistribution[static_cast<std::size_t>(q)] = true;
            continue;
        }
        for (Index k = 0; k < scores.cols(); ++k) {
            if (mask.masked(q, k)) continue;
            const double s = scores(q, k);
            a(q, k) = rowMax == infinity ? (s == infinity ? 1.0 : 0.0) : std::exp(s - rowMax);
        }
        a.row(q) /= a.row(q).sum();
    }
    return a;
}

Reference referenceForward(const AttentionResult& r, const AttentionWeights& w, const AttentionOptions& options)
{
    const Index h = r.headCount(), d_k = r.d_k(), n_q = r.queryCount();
    const float scale = options.scaleScores ? 1.0f / std::sqrt(static_cast<float>(d_k)) : 1.0f;
    Reference ref;
    ref.headOutputs = MatrixD::Zero(n_q, h * d_k);
    MatrixD concat = ref.headOutputs;  // ablated blocks stay zero
    for (Index i = 0; i < h; ++i) {
        const MatrixF scores = (r.queryHead(i) * scale) * r.keyHead(i).transpose();  // n_q x n_k
        ref.attention.push_back(referenceSoftmax(scores, options.mask, ref.fullyMasked));
        ref.scores.push_back(scores);
        const MatrixD head = ref.attention.back() * r.valueHead(i).cast<double>();  // n_q x d_k
        ref.headOutputs.middleCols(i * d_k, d_k) = head;
        if (options.ablated.empty() || !options.ablated[static_cast<std::size_t>(i)]) concat.middleCols(i * d_k, d_k) = head;
    }
    ref.output = concat * w.outputProjection.cast<double>();
    if (w.hasBias()) ref.output.rowwise() += w.outputBias->cast<double>();
    return ref;
}

// Float rounding: a score is a float dot product of d_k terms (the GEMM's summation order depends
// on the block's shape), and a weight moves with its logit, so a few float epsilons times the
// logits' size (~10 here). Any error in the method is orders of magnitude larger.
constexpr double tolerance = 1e-5;

// Largest |a - b| / (1 + |b|): float rounding of values of any size.
double relativeDifference(const MatrixF& a, const MatrixD& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols()) return infinity;
    if (a.size() == 0) return 0.0;
    return ((a.cast<double>() - b).array().abs() / (1.0 + b.array().abs())).maxCoeff();
}

void expectMatchesReference(const AttentionResult& r, const AttentionWeights& w, const AttentionOptions& options)
{
    const Reference ref = referenceForward(r, w, options);
    ASSERT_EQ(r.headCount(), static_cast<Index>(ref.attention.size()));
    for (Index i = 0; i < r.headCount(); ++i) {
        SCOPED_TRACE("head " + std::to_string(i + 1));
        const HeadAttention& head = r.heads[static_cast<std::size_t>(i)];
        if (options.keepScores) {
            EXPECT_LE(relativeDifference(head.scores, ref.scores[static_cast<std::size_t>(i)].cast<double>()), tolerance);
        } else {
            EXPECT_EQ(head.scores.size(), 0);
        }
        EXPECT_MATRIX_NEAR(head.attention, ref.attention[static_cast<std::size_t>(i)], tolerance);
        // Masked weights are exactly zero, not merely small.
        for (Index q = 0; q < head.attention.rows(); ++q) {
            for (Index k = 0; k < head.attention.cols(); ++k) {
                if (options.mask.masked(q, k)) {
                    ASSERT_EQ(head.attention(q, k), 0.0f) << q << ", " << k;
                }
            }
        }
    }
    EXPECT_EQ(r.fullyMaskedRows, ref.fullyMasked);
    EXPECT_LE(relativeDifference(r.headOutputs, ref.headOutputs), tolerance);
    EXPECT_LE(relativeDifference(r.output, ref.output), tolerance);
    EXPECT_TRUE(r.output.allFinite());
}

struct RandomCase {
    Index n_q, n_k, d_model, h, g;
    AttentionOptions options;
    bool bias;
};

RandomCase randomCase(std::uint64_t seed, SplitMix64& stream)
{
    RandomCase c{};
    const Index dks[] = {2, 4, 6, 8};
    const Index hs[] = {1, 2, 3, 4, 6};
    const Index d_k = dks[stream.next() % 4];
    c.h = hs[stream.next() % 5];
    c.d_model = c.h * d_k;
    const Index groups[] = {1, c.h};  // multi-query or multi-head, plus a middle when h allows
    c.g = c.h % 2 == 0 && seed % 3 == 0 ? c.h / 2 : groups[stream.next() % 2];
    c.options.mask.causal = seed % 2 == 0;
    c.n_k = 1 + static_cast<Index>(stream.next() % 70);
    c.n_q = c.options.mask.causal ? c.n_k : 1 + static_cast<Index>(stream.next() % 70);
    if (seed % 4 < 2) {  // key padding, sometimes every key
        c.options.mask.keyPadding.resize(static_cast<std::size_t>(c.n_k));
        const bool all = seed % 8 == 1;
        for (std::size_t k = 0; k < c.options.mask.keyPadding.size(); ++k)
            c.options.mask.keyPadding[k] = all || stream.next() % 3 == 0;
    }
    const RotaryLayout layouts[] = {RotaryLayout::None, RotaryLayout::RotateHalf, RotaryLayout::Interleaved};
    c.options.rotary = layouts[stream.next() % 3];
    c.options.scaleScores = seed % 5 != 0;
    c.options.ablated.assign(static_cast<std::size_t>(c.h), false);
    if (seed % 3 == 1) c.options.ablated[static_cast<std::size_t>(stream.next() % static_cast<std::uint64_t>(c.h))] = true;
    c.options.keepScores = seed % 7 != 3;
    c.bias = seed % 2 == 1;
    return c;
}

TEST(FusedForward, EqualsTheReferenceOnRandomCases)
{
    SplitMix64 stream(2024);
    int fullyMaskedSeen = 0;
    for (std::uint64_t seed = 0; seed < 120; ++seed) {
        const RandomCase c = randomCase(seed, stream);
        SCOPED_TRACE("seed " + std::to_string(seed) + ": n_q " + std::to_string(c.n_q) + ", n_k " +
                     std::to_string(c.n_k) + ", d_model " + std::to_string(c.d_model) + ", h " + std::to_string(c.h) +
                     ", g " + std::to_string(c.g) + (c.options.mask.causal ? ", causal" : ""));
        const MatrixF x_q = randomMatrix(c.n_q, c.d_model, stream, 2.0);
        const MatrixF x_kv = c.options.mask.causal ? x_q : randomMatrix(c.n_k, c.d_model, stream, 2.0);
        const AttentionWeights w = randomWeights(c.d_model, c.g * (c.d_model / c.h), c.bias, stream);
        ASSERT_EQ(w.shapeProblem(c.h), "");
        const AttentionResult r = multiHeadAttentionForward(x_q, x_kv, w, w.grouping(c.h), c.options);
        expectMatchesReference(r, w, c.options);
        for (const bool flagged : r.fullyMaskedRows) fullyMaskedSeen += flagged ? 1 : 0;

        // The same numbers with blocks of 1, 3 and 16 rows (any block boundary, partial last
        // blocks): the block size changes where work is cut, never the result.
        for (const Index blockRows : {1, 3, 16}) {
            AttentionResult blocked = r;
            attendHeadsInRowBlocks(blocked, c.options.keepScores, blockRows);
            for (Index i = 0; i < r.headCount(); ++i) {
                const auto head = static_cast<std::size_t>(i);
                EXPECT_MATRIX_NEAR(blocked.heads[head].attention, r.heads[head].attention, tolerance);
                EXPECT_LE(relativeDifference(blocked.heads[head].scores, r.heads[head].scores.cast<double>()), tolerance);
            }
            EXPECT_EQ(blocked.fullyMaskedRows, r.fullyMaskedRows);
            EXPECT_LE(relativeDifference(blocked.headOutputs, r.headOutputs.cast<double>()), tolerance);
        }
    }
    EXPECT_GT(fullyMaskedSeen, 0);  // the generator reaches fully masked rows
}

TEST(FusedForward, WithoutKeptScoresTheWeightsAndOutputsAreTheSame)
{
    SplitMix64 stream(77);
    for (const bool causal : {false, true}) {
        const Index n = 150, d_model = 16, h = 4;
        const MatrixF x = randomMatrix(n, d_model, stream);
        const AttentionWeights w = randomWeights(d_model, d_model, true, stream);
        AttentionOptions options;
        options.mask.causal = causal;
        const AttentionResult kept = multiHeadAttentionForward(x, x, w, w.grouping(h), options);
        options.keepScores = false;
        const AttentionResult lean = multiHeadAttentionForward(x, x, w, w.grouping(h), options);
        EXPECT_TRUE(kept.keepsScores());
        EXPECT_FALSE(lean.keepsScores());
        for (std::size_t i = 0; i < kept.heads.size(); ++i) {
            EXPECT_EQ(lean.heads[i].scores.size(), 0);
            EXPECT_MATRIX_NEAR(lean.heads[i].attention, kept.heads[i].attention, tolerance);
        }
        EXPECT_MATRIX_NEAR(lean.output, kept.output, tolerance);
        // Raw scores come from Q_i and K_j when the scores were not kept.
        for (const auto& [head, q, k] : {std::tuple<Index, Index, Index>{0, 0, 0}, {3, 149, 7}, {2, 40, 120}})
            EXPECT_NEAR(lean.rawScore(head, q, k), kept.rawScore(head, q, k), 1e-5 * (1.0 + std::abs(kept.rawScore(head, q, k))));
    }
}

// Logits of +-1e30 and +-inf reach the softmax through the whole forward pass: the inputs hold
// huge entries and the projections are the identity, so q . k is a product of two of them
// (1e15 * 1e15 = 1e30; 1e20 * 1e20 overflows to inf).
TEST(FusedForward, ExtremeLogitsThroughTheForwardPass)
{
    const float big = 1e15f, huge = 1e20f;
    MatrixF keys(5, 2);  // X_kv
    keys << big, 0, -big, 0, 0, huge, 0, huge, 0, -huge;
    MatrixF queries(5, 2);  // X_q; logits against keys 0..4:
    queries << big, 0,      // 1e30, -1e30, 0, 0, 0: key 0 takes everything
        0, huge,            // 0, 0, inf, inf, -inf: keys 2 and 3 share
        0, -huge,           // 0, 0, -inf, -inf, inf: key 4
        -big, 0,            // -1e30, 1e30, 0, 0, 0: key 1
        0, 0;               // all 0: uniform
    AttentionWeights w;
    w.queryProjection = w.keyProjection = w.valueProjection = w.outputProjection = MatrixF::Identity(2, 2);
    AttentionOptions options;
    options.scaleScores = false;
    const std::vector<bool> none, firstTwo{true, true, false, false, false}, allButLast{true, true, true, true, false},
        all(5, true);
    for (const std::vector<bool>& padding : {none, firstTwo, allButLast, all}) {
        options.mask.keyPadding = padding;
        for (const Index blockRows : {0, 1, 2}) {
            AttentionResult r = multiHeadAttentionForward(queries, keys, w, w.grouping(1), options);
            if (blockRows > 0) attendHeadsInRowBlocks(r, true, blockRows);
            const MatrixF& a = r.heads[0].attention;
            ASSERT_FALSE(a.hasNaN()) << a;
            if (padding.empty()) {
                EXPECT_EQ(a(0, 0), 1.0f) << a;
                EXPECT_EQ(a(1, 2), 0.5f) << a;
                EXPECT_EQ(a(1, 3), 0.5f) << a;
                EXPECT_EQ(a(2, 4), 1.0f) << a;
                EXPECT_EQ(a(3, 1), 1.0f) << a;
                EXPECT_NEAR(a(4, 0), 0.2f, 1e-7) << a;
            }
            if (padding == allButLast) {  // query 1 sees only key 4, at -inf: no distribution
                EXPECT_EQ(r.fullyMaskedRows, (std::vector<bool>{false, true, false, false, false}));
                EXPECT_EQ(a(2, 4), 1.0f) << a;
            }
            if (padding == all) {
                EXPECT_EQ(r.fullyMaskedRows, std::vector<bool>(5, true));
            }
            expectMatchesReference(r, w, options);
        }
    }
}

TEST(FusedForward, OneThreadAndTwoThreadsGiveTheSameNumbers)
{
    SplitMix64 stream(5);
    const Index n = 300, d_model = 64, h = 8;  // enough work for the parallel loop
    const MatrixF x = randomMatrix(n, d_model, stream);
    const AttentionWeights w = randomWeights(d_model, d_model / 2, false, stream);  // g = 4
    AttentionOptions options;
    options.mask.causal = true;
    const int saved = computeThreads();
    setComputeThreads(1);
    const AttentionResult one = multiHeadAttentionForward(x, x, w, w.grouping(h), options);
    setComputeThreads(2);
    const AttentionResult two = multiHeadAttentionForward(x, x, w, w.grouping(h), options);
    setComputeThreads(saved);
    for (std::size_t i = 0; i < one.heads.size(); ++i) {
        EXPECT_MATRIX_NEAR(two.heads[i].scores, one.heads[i].scores, tolerance);
        EXPECT_MATRIX_NEAR(two.heads[i].attention, one.heads[i].attention, tolerance);
    }
    EXPECT_MATRIX_NEAR(two.output, one.output, tolerance);
    expectMatchesReference(two, w, options);
}

}  // namespace
}  // namespace qkv
