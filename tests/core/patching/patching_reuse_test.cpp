// A patched run computed the fast way (RunOptions::previous = the corrupted run: the layers below
// the patch and the positions before its first changed row taken from it) holds the very bits of
// the same patch done by a full forward pass, on synthetic checkpoints with Hugging Face's names
// at widths the position reuse applies to: GPT-2, Qwen3 (grouped keys, q/k norms, bf16) and
// Llama 3 (grouped keys, llama3 rope scaling).

#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/pretrained/synthetic_checkpoints.hpp"
#include "core/common/random.hpp"
#include "core/pretrained/model_run.hpp"
#include "support/test_folder.hpp"

namespace qkv::bench {
inline void PrintTo(const SyntheticShape& shape, std::ostream* out) { *out << shape.name; }
}  // namespace qkv::bench

namespace qkv {
namespace {

using bench::SyntheticShape;

constexpr SyntheticShape tinyGpt2{"gpt2-tiny", bench::SyntheticFamily::Gpt2, 3, 64, 4, 128, 300, 96, 40};
constexpr SyntheticShape tinyQwen3{"qwen3-tiny", bench::SyntheticFamily::Qwen3, 3, 64, 4, 128, 300, 96, 40, 2, 32};
constexpr SyntheticShape tinyLlama{"llama-tiny", bench::SyntheticFamily::Llama, 3, 64, 4, 128, 300, 96, 40, 2, 16};

bool sameBits(const MatrixF& a, const MatrixF& b)
{
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
        EXPECT_TRUE(sameBits(x.attention.key, y.attention.key)) << layer << ": K";
        EXPECT_TRUE(sameBits(x.attention.value, y.attention.value)) << layer << ": V";
        for (std::size_t i = 0; i < x.attention.heads.size(); ++i)
            EXPECT_TRUE(sameBits(x.attention.heads[i].attention, y.attention.heads[i].attention)) << layer << " head " << i;
        EXPECT_TRUE(sameBits(x.attention.headOutputs, y.attention.headOutputs)) << layer << ": Concat";
        EXPECT_TRUE(sameBits(x.attention.output, y.attention.output)) << layer << ": output";
    }
    ASSERT_EQ(a.hiddenStates.size(), b.hiddenStates.size()) << what;
    for (std::size_t i = 0; i < a.hiddenStates.size(); ++i)
        EXPECT_TRUE(sameBits(a.hiddenStates[i], b.hiddenStates[i])) << what << ": hidden state " << i;
    EXPECT_EQ(a.logitPositions, b.logitPositions) << what;
    EXPECT_TRUE(sameBits(a.logits, b.logits)) << what << ": logits";
}

class PatchingReuseTest : public ::testing::TestWithParam<SyntheticShape> {
protected:
    void SetUp() override
    {
        Expected<std::string> folder = bench::syntheticCheckpoint(GetParam(), folder_.path().string());
        ASSERT_TRUE(folder.ok()) << (folder ? "" : folder.error());
        Expected<PretrainedModel> opened = openPretrainedModel(*folder);
        ASSERT_TRUE(opened.ok()) << (opened ? "" : opened.error());
        model_ = std::move(*opened);
        SplitMix64 stream(52);
        for (Index t = 0; t < 30; ++t)
            clean_.push_back(static_cast<std::int32_t>(stream.uniform(0.0, double(GetParam().vocabulary))));
        corrupt_ = clean_;
        corrupt_[17] = (corrupt_[17] + 1) % static_cast<std::int32_t>(GetParam().vocabulary);  // differ from 17 on
    }

    std::shared_ptr<const ModelRun> run(const std::vector<std::int32_t>& ids, const RunOptions& options)
    {
        Expected<ModelRun> ran = runPretrainedModel(model_, ModelTokens{ids, {}}, options);
        EXPECT_TRUE(ran.ok()) << (ran ? "" : ran.error());
        return std::make_shared<const ModelRun>(ran ? std::move(*ran) : ModelRun());
    }

    TestFolder folder_{"patching_reuse"};
    PretrainedModel model_;
    std::vector<std::int32_t> clean_, corrupt_;
};

TEST_P(PatchingReuseTest, APatchedRunTakenFromTheCorruptedRunHasTheBitsOfAFullOne)
{
    for (const bool keepScores : {true, false})
        for (const LogitRows rows : {LogitRows::All, LogitRows::Chosen}) {
            RunOptions options;
            options.keepScores = keepScores;
            options.keepWeights = keepScores;
            options.logitRows = rows;
            options.logitPositions = {29};
            const auto clean = run(clean_, options);
            const auto corrupt = run(corrupt_, options);
            struct Case {
                const char* name;
                ActivationPatch patch;
                Index layer, position;  // what the fast run recomputes from
                bool changes = true;    // false: the clean value equals the corrupted one (layer 0's
                                        // rows other than the changed token's)
            };
            std::vector<Case> cases;
            for (const Index layer : {Index(0), Index(1), Index(2)}) {
                ActivationPatch head;
                head.heads = {ModelHead{layer, 1}};
                cases.push_back({"head 1", head, layer, 17});
                for (const Index position : {Index(17), Index(23), Index(29)}) {
                    ActivationPatch residual;
                    residual.residualLayer = layer;
                    residual.residualPosition = position;
                    cases.push_back({"residual", residual, layer, position, layer > 0 || position == 17});
                }
            }
            ActivationPatch both;
            both.heads = {ModelHead{2, 0}, ModelHead{1, 3}};
            both.residualLayer = 2;
            both.residualPosition = 20;
            cases.push_back({"two heads and a residual row", both, 1, 17});
            for (Case& c : cases) {
                c.patch.source = clean;
                RunOptions fast = options;
                fast.previous = corrupt;
                fast.patch = c.patch;
                RunOptions full = options;
                full.patch = c.patch;
                const auto reused = run(corrupt_, fast);
                const std::string what = std::string(GetParam().name) + ", " + c.name + " at layer " +
                                         std::to_string(c.layer) + (keepScores ? "" : ", no maps") +
                                         (rows == LogitRows::All ? ", every logit" : ", one logit row");
                EXPECT_EQ(reused->firstRecomputedLayer, c.layer) << what;
                EXPECT_EQ(reused->firstRecomputedPosition, c.position) << what;
                const auto whole = run(corrupt_, full);
                EXPECT_EQ(whole->firstRecomputedPosition, 0) << what;
                expectSameRun(*reused, *whole, what);
                // The patch changed the run where the prompts' values differ, and only from its layer and row.
                EXPECT_EQ(sameBits(reused->hiddenStates.back(), corrupt->hiddenStates.back()), !c.changes) << what;
                EXPECT_TRUE(sameBits(reused->hiddenStates[static_cast<std::size_t>(c.layer)].topRows(c.position),
                                     corrupt->hiddenStates[static_cast<std::size_t>(c.layer)].topRows(c.position)))
                    << what;
            }
        }
}

// A residual row taken from the clean run is that row: the patched run's block input holds it.
TEST_P(PatchingReuseTest, TheResidualPatchPutsTheCleanRowIntoTheBlockInput)
{
    RunOptions options;
    const auto clean = run(clean_, options);
    const auto corrupt = run(corrupt_, options);
    RunOptions patched = options;
    patched.previous = corrupt;
    patched.patch.source = clean;
    patched.patch.residualLayer = 1;
    patched.patch.residualPosition = 20;
    const auto run1 = run(corrupt_, patched);
    EXPECT_TRUE(sameBits(run1->hiddenStates[1].row(20), clean->hiddenStates[1].row(20)));
    EXPECT_TRUE(sameBits(run1->hiddenStates[1].row(21), corrupt->hiddenStates[1].row(21)));
    // And a head patch puts the clean z into Concat.
    RunOptions head = options;
    head.previous = corrupt;
    head.patch.source = clean;
    head.patch.heads = {ModelHead{1, 2}};
    const auto run2 = run(corrupt_, head);
    const Index d_v = clean->layer(1).attention.d_v();
    EXPECT_TRUE(sameBits(run2->layer(1).attention.headOutputs.middleCols(2 * d_v, d_v),
                         clean->layer(1).attention.headOutputs.middleCols(2 * d_v, d_v)));
    EXPECT_TRUE(sameBits(run2->layer(1).attention.headOutputs.middleCols(1 * d_v, d_v),
                         corrupt->layer(1).attention.headOutputs.middleCols(1 * d_v, d_v)));
}

TEST_P(PatchingReuseTest, PatchesThatCannotBeTakenAreRefused)
{
    const auto clean = run(clean_, {});
    std::vector<std::int32_t> shorter(corrupt_.begin(), corrupt_.end() - 1);
    RunOptions options;
    options.patch.source = clean;
    options.patch.residualLayer = 0;
    options.patch.residualPosition = 3;
    const Expected<ModelRun> differentLength = runPretrainedModel(model_, ModelTokens{shorter, {}}, options);
    ASSERT_FALSE(differentLength.ok());
    EXPECT_NE(differentLength.error().find("30 tokens and this run 29"), std::string::npos) << differentLength.error();
    options.patch.residualPosition = 30;
    const Expected<ModelRun> position = runPretrainedModel(model_, ModelTokens{corrupt_, {}}, options);
    ASSERT_FALSE(position.ok());
    EXPECT_NE(position.error().find("no position 30"), std::string::npos) << position.error();
    options.patch.residualLayer = -1;
    options.patch.heads = {ModelHead{1, 9}};
    const Expected<ModelRun> head = runPretrainedModel(model_, ModelTokens{corrupt_, {}}, options);
    ASSERT_FALSE(head.ok());
    EXPECT_NE(head.error().find("no head 9"), std::string::npos) << head.error();
}

INSTANTIATE_TEST_SUITE_P(Families, PatchingReuseTest, ::testing::Values(tinyGpt2, tinyQwen3, tinyLlama),
                         [](const auto& info) {
                             std::string name = info.param.name;
                             for (char& c : name)
                                 if (c == '-') c = '_';
                             return name;
                         });

}  // namespace
}  // namespace qkv
