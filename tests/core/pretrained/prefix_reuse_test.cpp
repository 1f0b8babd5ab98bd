// A causal language model typed on (RunOptions::previous with other tokens): the positions both
// sentences share are taken from the previous run, the rest computed, and every layer, hidden
// state and logit holds the very bits of a run of the whole new sentence. On synthetic
// checkpoints with Hugging Face's names (bench/pretrained/synthetic_checkpoints.hpp) at widths
// the reuse applies to: GPT-2 (learned positions, LayerNorm, GELU), Qwen3 (rotary, grouped
// keys, q/k norms, SwiGLU, bf16) and Llama 3 (llama3 rope scaling).

#include <cstring>
#include <ostream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/pretrained/synthetic_checkpoints.hpp"
#include "core/common/parallelism.hpp"
#include "core/common/random.hpp"
#include "core/pretrained/model_run.hpp"
#include "support/pretrained_fixtures.hpp"
#include "support/test_folder.hpp"

namespace qkv::bench {
// gtest prints a failing case's parameter by its name.
inline void PrintTo(const SyntheticShape& shape, std::ostream* out) { *out << shape.name; }
}  // namespace qkv::bench

namespace qkv {
namespace {

using bench::SyntheticFamily;
using bench::SyntheticShape;

// Small models with d_model 64 and heads of 16 or 32 floats.
constexpr SyntheticShape tinyGpt2{"gpt2-tiny", SyntheticFamily::Gpt2, 2, 64, 4, 128, 300, 96, 40};
constexpr SyntheticShape tinyQwen3{"qwen3-tiny", SyntheticFamily::Qwen3, 2, 64, 4, 128, 300, 96, 40, 2, 32};
constexpr SyntheticShape tinyLlama{"llama-tiny", SyntheticFamily::Llama, 2, 64, 4, 128, 300, 96, 40, 2, 16};

bool sameBits(const MatrixF& a, const MatrixF& b)
{
    // memcmp never sees the null data of an empty matrix
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           (a.size() == 0 || std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(float)) == 0);
}

void expectSameRun(const ModelRun& a, const ModelRun& b, const std::string& what)
{
    ASSERT_EQ(a.layers.size(), b.layers.size()) << what;
    for (std::size_t l = 0; l < a.layers.size(); ++l) {
        const LayerRun& x = *a.layers[l];
        const LayerRun& y = *b.layers[l];
        const std::string layer = what + ", layer " + std::to_string(l);
        EXPECT_TRUE(sameBits(x.queryInput, y.queryInput)) << layer << ": X_q";
        EXPECT_TRUE(sameBits(x.keyValueInput, y.keyValueInput)) << layer << ": X_kv";
        EXPECT_TRUE(sameBits(x.attention.query, y.attention.query)) << layer << ": Q";
        EXPECT_TRUE(sameBits(x.attention.key, y.attention.key)) << layer << ": K";
        EXPECT_TRUE(sameBits(x.attention.value, y.attention.value)) << layer << ": V";
        ASSERT_EQ(x.attention.heads.size(), y.attention.heads.size());
        for (std::size_t i = 0; i < x.attention.heads.size(); ++i) {
            EXPECT_TRUE(sameBits(x.attention.heads[i].scores, y.attention.heads[i].scores)) << layer << " head " << i;
            EXPECT_TRUE(sameBits(x.attention.heads[i].attention, y.attention.heads[i].attention))
                << layer << " head " << i;
        }
        EXPECT_TRUE(sameBits(x.attention.headOutputs, y.attention.headOutputs)) << layer << ": Concat";
        EXPECT_TRUE(sameBits(x.attention.output, y.attention.output)) << layer << ": output";
    }
    ASSERT_EQ(a.hiddenStates.size(), b.hiddenStates.size()) << what;
    for (std::size_t i = 0; i < a.hiddenStates.size(); ++i)
        EXPECT_TRUE(sameBits(a.hiddenStates[i], b.hiddenStates[i])) << what << ": hidden state " << i;
    EXPECT_EQ(a.logitPositions, b.logitPositions) << what;
    EXPECT_TRUE(sameBits(a.logits, b.logits)) << what << ": logits";
}

std::vector<std::int32_t> randomIds(std::size_t count, SplitMix64& stream, Index vocabulary)
{
    std::vector<std::int32_t> ids(count);
    for (std::int32_t& id : ids) id = static_cast<std::int32_t>(stream.uniform(0.0, static_cast<double>(vocabulary)));
    return ids;
}

class PrefixReuseTest : public ::testing::TestWithParam<SyntheticShape> {
protected:
    void SetUp() override
    {
        Expected<std::string> folder = bench::syntheticCheckpoint(GetParam(), folder_.path().string());
        ASSERT_TRUE(folder.ok()) << (folder ? "" : folder.error());
        Expected<PretrainedModel> opened = openPretrainedModel(*folder);
        ASSERT_TRUE(opened.ok()) << (opened ? "" : opened.error());
        model_ = std::move(*opened);
    }

    ModelRun run(const std::vector<std::int32_t>& ids, RunOptions options = {})
    {
        Expected<ModelRun> ran = runPretrainedModel(model_, ModelTokens{ids, {}}, options);
        EXPECT_TRUE(ran.ok()) << (ran ? "" : ran.error());
        return ran ? std::move(*ran) : ModelRun();
    }

    TestFolder folder_{"prefix_reuse"};
    PretrainedModel model_;
};

TEST_P(PrefixReuseTest, TypingOnTakesTheSharedPositionsAndKeepsEveryBit)
{
    SplitMix64 stream(7);
    const Index V = GetParam().vocabulary;
    const std::vector<std::int32_t> first = randomIds(37, stream, V);
    std::vector<std::int32_t> oneMore = first;
    oneMore.push_back(5);
    std::vector<std::int32_t> severalMore = first;
    for (const std::int32_t id : randomIds(9, stream, V)) severalMore.push_back(id);
    std::vector<std::int32_t> editedInside(first.begin(), first.begin() + 21);
    for (const std::int32_t id : randomIds(30, stream, V)) editedInside.push_back(id);
    const std::vector<std::int32_t> shortened(first.begin(), first.begin() + 30);

    struct Case {
        const char* name;
        const std::vector<std::int32_t>* ids;
        Index shared;
    };
    for (const LogitRows rows : {LogitRows::All, LogitRows::Chosen})
        for (const bool keepScores : {true, false}) {
            RunOptions options;
            options.keepScores = keepScores;
            options.logitRows = rows;
            options.logitPositions = {36};
            if (GetParam().family == SyntheticFamily::Qwen3) options.ablatedHeads = {ModelHead{1, 2}};
            options.previous = std::make_shared<const ModelRun>(run(first, options));
            for (const Case& c : {Case{"one more token", &oneMore, 37}, Case{"nine more", &severalMore, 37},
                                  Case{"edited from token 21", &editedInside, 21}, Case{"shortened", &shortened, 30}}) {
                RunOptions typed = options;
                RunOptions fresh = options;
                fresh.previous = nullptr;
                if (rows == LogitRows::Chosen) typed.logitPositions = fresh.logitPositions = {0, Index(c.ids->size()) - 1};
                const ModelRun reused = run(*c.ids, typed);
                EXPECT_EQ(reused.firstRecomputedPosition, c.shared) << c.name;
                expectSameRun(reused, run(*c.ids, fresh),
                              std::string(GetParam().name) + ", " + c.name + (keepScores ? "" : ", no scores") +
                                  (rows == LogitRows::All ? ", every logit" : ", two logit rows"));
            }
        }
}

// The run below a layer whose input a view shows: stopped there, no maps kept, typed on.
TEST_P(PrefixReuseTest, AStoppedRunWithoutMapsTypedOnKeepsEveryBit)
{
    SplitMix64 stream(11);
    const std::vector<std::int32_t> first = randomIds(30, stream, GetParam().vocabulary);
    std::vector<std::int32_t> longer = first;
    for (const std::int32_t id : randomIds(4, stream, GetParam().vocabulary)) longer.push_back(id);
    RunOptions options;
    options.keepScores = false;
    options.keepWeights = false;
    options.lastLayer = 1;
    options.logitRows = LogitRows::None;
    options.previous = std::make_shared<const ModelRun>(run(first, options));
    const ModelRun typed = run(longer, options);
    EXPECT_EQ(typed.firstRecomputedPosition, 30);
    RunOptions fresh = options;
    fresh.previous = nullptr;
    const ModelRun whole = run(longer, fresh);
    expectSameRun(typed, whole, "stopped, no maps");
    EXPECT_EQ(typed.layer(1).attention.heads.front().attention.size(), 0);
    // A run that stopped elsewhere lends nothing.
    RunOptions other = options;
    other.lastLayer = 0;
    EXPECT_EQ(run(longer, other).firstRecomputedPosition, 0);
}

// Nothing is shared across other switched-off heads: the whole sentence is computed (and the
// earlier machinery reuses layers only for the very same tokens).
TEST_P(PrefixReuseTest, OtherSwitchedOffHeadsRunTheWholeSentence)
{
    SplitMix64 stream(8);
    const std::vector<std::int32_t> first = randomIds(20, stream, GetParam().vocabulary);
    std::vector<std::int32_t> longer = first;
    longer.push_back(3);
    RunOptions options;
    options.previous = std::make_shared<const ModelRun>(run(first));
    options.ablatedHeads = {ModelHead{0, 1}};
    const ModelRun typed = run(longer, options);
    EXPECT_EQ(typed.firstRecomputedPosition, 0);
    RunOptions fresh;
    fresh.ablatedHeads = options.ablatedHeads;
    expectSameRun(typed, run(longer, fresh), "other heads");
}

// The rows' bits do not depend on the thread count either (the export runs every core, the app one).
TEST_P(PrefixReuseTest, OneThreadAndTwoGiveTheSameBits)
{
    SplitMix64 stream(9);
    const std::vector<std::int32_t> ids = randomIds(90, stream, GetParam().vocabulary);
    setComputeThreads(1);
    const ModelRun one = run(ids);
    setComputeThreads(2);
    const ModelRun two = run(ids);
    setComputeThreads(0);
    expectSameRun(one, two, "threads");
}

INSTANTIATE_TEST_SUITE_P(Families, PrefixReuseTest, ::testing::Values(tinyGpt2, tinyQwen3, tinyLlama),
                         [](const ::testing::TestParamInfo<SyntheticShape>& info) {
                             return std::string(info.param.family == SyntheticFamily::Gpt2    ? "Gpt2"
                                                : info.param.family == SyntheticFamily::Qwen3 ? "Qwen3"
                                                                                              : "Llama");
                         });

// The fixtures' heads are 8 floats wide: too narrow for the reuse, so the whole sentence runs,
// with the same numbers.
TEST(PrefixReuse, NarrowHeadsRunTheWholeSentence)
{
    // tests/data/pretrained/gpt2: d_model 32 and d_ff 128 pass the model's check, its heads of 8
    // floats stop the reuse at the first layer.
    const PretrainedModel model = openPretrainedFixture("gpt2");
    SplitMix64 stream(10);
    const std::vector<std::int32_t> first = randomIds(12, stream, model.recipe.vocabularySize);
    std::vector<std::int32_t> longer = first;
    longer.push_back(17);
    Expected<ModelRun> before = runPretrainedModel(model, ModelTokens{first, {}});
    ASSERT_TRUE(before.ok()) << (before ? "" : before.error());
    RunOptions options;
    options.previous = std::make_shared<const ModelRun>(std::move(*before));
    Expected<ModelRun> typed = runPretrainedModel(model, ModelTokens{longer, {}}, options);
    Expected<ModelRun> fresh = runPretrainedModel(model, ModelTokens{longer, {}});
    ASSERT_TRUE(typed.ok() && fresh.ok());
    EXPECT_EQ(typed->firstRecomputedPosition, 0);
    expectSameRun(*typed, *fresh, "narrow heads");
}

}  // namespace
}  // namespace qkv
