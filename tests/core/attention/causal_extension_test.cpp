// extendCausalAttention: a causal layer typed on (rows kept from the run of an earlier sentence,
// the rest computed) holds the very bits of the whole forward pass on the new sentence: Q, K, V,
// every head's scores and weights, Concat and the output. Also the forward pass itself: its rows
// do not depend on how the queries are cut into blocks.

#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "core/attention/causal_extension.hpp"
#include "core/attention/head_blocks.hpp"
#include "core/common/random.hpp"

namespace qkv {
namespace {

MatrixF randomMatrix(Index rows, Index cols, SplitMix64& stream, double scale = 1.0)
{
    MatrixF m(rows, cols);
    for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(scale * stream.normal());
    return m;
}

bool sameBits(const MatrixF& a, const MatrixF& b)
{
    // memcmp never sees the null data of an empty matrix
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           (a.size() == 0 || std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(float)) == 0);
}

void expectSameBits(const AttentionResult& a, const AttentionResult& b, const std::string& what)
{
    EXPECT_TRUE(sameBits(a.query, b.query)) << what << ": Q";
    EXPECT_TRUE(sameBits(a.key, b.key)) << what << ": K";
    EXPECT_TRUE(sameBits(a.value, b.value)) << what << ": V";
    EXPECT_TRUE(sameBits(a.queryBeforeRotation, b.queryBeforeRotation)) << what << ": Q before rotation";
    EXPECT_TRUE(sameBits(a.keyBeforeRotation, b.keyBeforeRotation)) << what << ": K before rotation";
    ASSERT_EQ(a.heads.size(), b.heads.size());
    for (std::size_t i = 0; i < a.heads.size(); ++i) {
        EXPECT_TRUE(sameBits(a.heads[i].scores, b.heads[i].scores)) << what << ": scores of head " << i;
        EXPECT_TRUE(sameBits(a.heads[i].attention, b.heads[i].attention)) << what << ": weights of head " << i;
    }
    EXPECT_TRUE(sameBits(a.headOutputs, b.headOutputs)) << what << ": Concat";
    EXPECT_TRUE(sameBits(a.output, b.output)) << what << ": output";
    EXPECT_EQ(a.fullyMaskedRows, b.fullyMaskedRows) << what;
}

struct Layer {
    AttentionWeights weights;
    HeadGrouping grouping;
    AttentionOptions options;
};

// d_model 64 and heads of 16 or 32: the widths a prefix is reused at (model_run.hpp).
Layer randomLayer(std::uint64_t seed, SplitMix64& stream)
{
    const Index d_model = 64, h = seed % 2 == 0 ? 4 : 2, g = seed % 3 == 0 ? h / 2 : h, d_k = d_model / h;
    Layer layer;
    const double scale = 1.0 / 8.0;
    AttentionWeights& w = layer.weights;
    w.queryProjection = randomMatrix(d_model, h * d_k, stream, scale);
    w.keyProjection = randomMatrix(d_model, g * d_k, stream, scale);
    w.valueProjection = randomMatrix(d_model, g * d_k, stream, scale);
    w.outputProjection = randomMatrix(h * d_k, d_model, stream, scale);
    if (seed % 2 == 1) {
        w.queryBias = randomMatrix(1, h * d_k, stream);
        w.keyBias = randomMatrix(1, g * d_k, stream);
        w.valueBias = randomMatrix(1, g * d_k, stream);
        w.outputBias = randomMatrix(1, d_model, stream);
    }
    if (seed % 4 == 2) {  // Qwen3's norms of q and k
        w.queryNorm = randomMatrix(1, d_k, stream);
        w.keyNorm = randomMatrix(1, d_k, stream);
    }
    layer.grouping = w.grouping(h);
    AttentionOptions& o = layer.options;
    o.mask.causal = true;
    o.mask.window = seed % 5 == 3 ? 7 : 0;
    o.rotary = seed % 3 == 1 ? RotaryLayout::RotateHalf : seed % 3 == 2 ? RotaryLayout::Interleaved : RotaryLayout::None;
    o.conventions.scoreSoftCap = seed % 4 == 3 ? 5.0 : 0.0;
    o.keepScores = seed % 6 != 5;
    o.ablated.assign(static_cast<std::size_t>(h), false);
    if (seed % 7 == 4) o.ablated[1] = true;
    return layer;
}

TEST(CausalExtension, ATypedOnLayerHasTheBitsOfTheWholeForwardPass)
{
    SplitMix64 stream(2026);
    for (std::uint64_t seed = 0; seed < 24; ++seed) {
        const Layer layer = randomLayer(seed, stream);
        const Index n = 150;
        const MatrixF sentence = randomMatrix(n, 64, stream);
        const AttentionResult whole =
            multiHeadAttentionForward(sentence, sentence, layer.weights, layer.grouping, layer.options);
        // Earlier sentences: the first `kept` tokens of this one, then other tokens (or none).
        for (const auto& [kept, earlierLength] :
             {std::pair<Index, Index>{149, 149}, {149, 150}, {100, 100}, {100, 130}, {1, 1}, {1, 5}, {0, 20},
              {150, 150}, {150, 160}, {37, 37}}) {
            MatrixF earlierSentence(earlierLength, 64);
            earlierSentence.topRows(std::min(kept, earlierLength)) = sentence.topRows(std::min(kept, earlierLength));
            if (earlierLength > kept)
                earlierSentence.bottomRows(earlierLength - kept) = randomMatrix(earlierLength - kept, 64, stream);
            const AttentionResult earlier = multiHeadAttentionForward(earlierSentence, earlierSentence, layer.weights,
                                                                      layer.grouping, layer.options);
            const AttentionResult extended =
                extendCausalAttention(earlier, kept, sentence, layer.weights, layer.grouping, layer.options);
            expectSameBits(extended, whole,
                           "seed " + std::to_string(seed) + ", kept " + std::to_string(kept) + " of an earlier " +
                               std::to_string(earlierLength));
        }
        // Any cut into blocks gives the same bits.
        for (const Index blockRows : {1, 3, 16, 64}) {
            AttentionResult blocked = whole;
            attendHeadsInRowBlocks(blocked, layer.options.keepScores, blockRows);
            for (std::size_t i = 0; i < whole.heads.size(); ++i) {
                EXPECT_TRUE(sameBits(blocked.heads[i].attention, whole.heads[i].attention)) << blockRows;
                EXPECT_TRUE(sameBits(blocked.heads[i].scores, whole.heads[i].scores)) << blockRows;
            }
            EXPECT_TRUE(sameBits(blocked.headOutputs, whole.headOutputs)) << blockRows;
        }
    }
}

}  // namespace
}  // namespace qkv
