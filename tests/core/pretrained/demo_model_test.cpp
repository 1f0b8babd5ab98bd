// The demo checkpoint in docs/demo-model (a two-layer GPT-2 trained on the induction task by
// docs/demo-model/make_induction_gpt2.py): the app reads it as the script's PyTorch forward pass
// does (every layer's attention and the logits within 1e-4, with and without the induction head),
// its own tokenizer gives the script's ids, and it still does what its README shows: it predicts
// the repeated letters, layer 0 has a previous-token head, layer 1 an induction head, and switching
// the induction head off costs the right letters probability.

#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/analysis/head_roles.hpp"
#include "core/analysis/predictions.hpp"
#include "core/pipeline/model_overview.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/text/subword_tokenizer.hpp"
#include "support/matrix_assertions.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

constexpr double kTolerance = 1e-4;

// The demo lives with the documentation, not with the test data: it is for people to open.
std::string demoFolder() { return std::string(qkv::testDataDir()) + "/../../docs/demo-model"; }

nlohmann::json reference()
{
    std::ifstream in(demoFolder() + "/reference.json");
    EXPECT_TRUE(in.good()) << demoFolder() << "/reference.json cannot be read";
    return nlohmann::json::parse(in);
}

MatrixF matrix(const nlohmann::json& rows)
{
    MatrixF m(static_cast<Index>(rows.size()), rows.empty() ? 0 : static_cast<Index>(rows[0].size()));
    for (Index r = 0; r < m.rows(); ++r)
        for (Index c = 0; c < m.cols(); ++c) m(r, c) = rows[r][c].get<float>();
    return m;
}

ModelHead head(const nlohmann::json& pair) { return ModelHead{pair.at(0).get<Index>(), pair.at(1).get<Index>()}; }

// The layer-1 heads the script measured as induction heads (score > 0.5): the model learned
// several, so one switched off leaves the others to do the work.
std::set<ModelHead> inductionHeads(const nlohmann::json& ref)
{
    std::set<ModelHead> heads;
    for (const auto& pair : ref.at("induction_heads")) heads.insert(head(pair));
    return heads;
}

class DemoModel : public ::testing::Test {
protected:
    void SetUp() override
    {
        Expected<PretrainedModel> opened = openPretrainedModel(demoFolder());
        ASSERT_TRUE(opened.ok()) << opened.error();
        model = std::make_unique<PretrainedModel>(std::move(*opened));
        ref = reference();
        tokens.ids = ref.at("ids").get<std::vector<std::int32_t>>();
    }

    ModelRun run(std::set<ModelHead> ablated = {}) const
    {
        RunOptions options;
        options.ablatedHeads = std::move(ablated);
        Expected<ModelRun> result = runPretrainedModel(*model, tokens, options);
        EXPECT_TRUE(result.ok()) << (result ? "" : result.error());
        return result ? std::move(*result) : ModelRun{};
    }

    // Where the README's sentence repeats: from the first letter of the second copy on, the next
    // letter is the one after its first occurrence.
    Index repeatStart() const { return ref.at("block_length").get<Index>(); }

    std::unique_ptr<PretrainedModel> model;
    nlohmann::json ref;
    ModelTokens tokens;
};

void expectMatches(const ModelRun& run, const nlohmann::json& expected, const char* which)
{
    ASSERT_EQ(run.layers.size(), expected.at("attention").size()) << which;
    for (std::size_t l = 0; l < run.layers.size(); ++l) {
        const AttentionResult& attention = run.layers[l]->attention;
        ASSERT_EQ(static_cast<std::size_t>(attention.headCount()), expected["attention"][l].size());
        for (Index i = 0; i < attention.headCount(); ++i)
            EXPECT_MATRIX_NEAR(attention.heads[static_cast<std::size_t>(i)].attention,
                               matrix(expected["attention"][l][i]), kTolerance)
                << which << ": layer " << l << " head " << i;
    }
    EXPECT_MATRIX_NEAR(run.logits, matrix(expected.at("logits")), kTolerance) << which;
}

TEST_F(DemoModel, IsATwoLayerGpt2WithItsOwnTokenizer)
{
    EXPECT_EQ(model->recipe.family, Family::Gpt2);
    EXPECT_EQ(model->layerCount(), 2);
    Expected<SubwordTokenizer> tokenizer = loadSubwordTokenizer(demoFolder());
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.error();
    Expected<SubwordTokenization> typed = tokenizer->encode(ref.at("text").get<std::string>());
    ASSERT_TRUE(typed.ok()) << typed.error();
    EXPECT_EQ(typed->ids(), tokens.ids) << "one token per letter: \"a\", then \"Ġb\", \"Ġc\", ...";
}

TEST_F(DemoModel, EveryLayerAndTheLogitsMatchPyTorch)
{
    expectMatches(run(), ref.at("run"), "whole model");
    expectMatches(run(inductionHeads(ref)), ref.at("ablated"), "induction heads off");
}

TEST_F(DemoModel, PredictsTheRepeatedLetters)
{
    const ModelRun whole = run();
    ASSERT_EQ(whole.logits.rows(), static_cast<Index>(tokens.ids.size()));
    for (Index q = repeatStart(); q + 1 < static_cast<Index>(tokens.ids.size()); ++q) {
        Expected<std::vector<TokenProbability>> top = topPredictions(whole.logits.row(q), 1);
        ASSERT_TRUE(top.ok()) << top.error();
        EXPECT_EQ(top->front().id, tokens.ids[static_cast<std::size_t>(q + 1)]) << "position " << q;
        EXPECT_GT(top->front().probability, 0.5) << "position " << q;
    }
}

// Olsson et al. 2022: a previous-token head attends to q - 1; an induction head attends to the
// token after the previous occurrence of the current one (q - k + 1 on a block of k repeated).
TEST_F(DemoModel, Layer0HasAPreviousTokenHeadAndLayer1InductionHeads)
{
    const ModelRun whole = run();
    const ModelHead previous = head(ref.at("previous_token_head"));
    ASSERT_EQ(previous.layer, 0);
    const MatrixF& a0 = whole.layer(0).attention.heads[static_cast<std::size_t>(previous.head)].attention;
    const Index n = static_cast<Index>(tokens.ids.size()), k = repeatStart();
    double previousScore = 0.0;
    for (Index q = 1; q < n; ++q) previousScore += a0(q, q - 1) / static_cast<double>(n - 1);
    EXPECT_GT(previousScore, 0.8);
    ASSERT_FALSE(inductionHeads(ref).empty());
    for (const ModelHead& induction : inductionHeads(ref)) {
        ASSERT_EQ(induction.layer, 1);
        const MatrixF& a1 = whole.layer(1).attention.heads[static_cast<std::size_t>(induction.head)].attention;
        double inductionScore = 0.0;
        for (Index q = k; q < n; ++q) inductionScore += a1(q, q - k + 1) / static_cast<double>(n - k);
        EXPECT_GT(inductionScore, 0.4) << "layer 1 head " << induction.head;
    }
}

// The Model tab names heads from the typed sentence's attention (head_roles.hpp): the README's
// table, measured by the training script, is what the app finds, and names.
TEST_F(DemoModel, TheOverviewScoresAndNamesThePreviousTokenAndInductionHeads)
{
    auto shared = std::make_shared<const PretrainedModel>(std::move(*model));
    ModelOverviewRequest request;
    request.target = ref.at("text").get<std::string>();
    Expected<ModelOverview> overview = computeModelOverview(shared, request);
    ASSERT_TRUE(overview) << overview.error();
    const HeadStatisticGrids& g = overview->statistics;
    // docs/demo-model/README.md, "What to look at" (heads from 1 there, from 0 here). The
    // induction scores count a token as repeated when its id is: the second copy starts with
    // "·a" (id 256), not "a" (64), so six of the README's seven positions count (its "Model tab"
    // paragraph gives these six-position numbers, from the script's attention).
    const double previous[2][4] = {{0.38, 0.93, 0.17, 0.86}, {0.13, 0.18, 0.17, 0.15}};
    const double induction[2][4] = {{0.0004, 0.0000, 0.0001, 0.0000}, {0.8593, 0.7653, 0.0844, 0.4618}};
    const HeadRole role[2][4] = {{HeadRole::None, HeadRole::PreviousToken, HeadRole::None, HeadRole::PreviousToken},
                                 {HeadRole::Induction, HeadRole::Induction, HeadRole::None, HeadRole::Induction}};
    for (Index l = 0; l < 2; ++l)
        for (Index i = 0; i < 4; ++i) {
            EXPECT_NEAR(g.previousToken(l, i), previous[l][i], 0.006) << "layer " << l << " head " << i + 1;
            EXPECT_NEAR(g.induction(l, i), induction[l][i], 1e-3) << "layer " << l << " head " << i + 1;
            EXPECT_EQ(headRole(g.previousToken(l, i), g.induction(l, i)), role[l][i]) << "layer " << l << " head " << i + 1;
        }
}

TEST_F(DemoModel, SwitchingTheInductionHeadsOffCostsTheRightLetters)
{
    const ModelRun whole = run();
    const ModelRun ablated = run(inductionHeads(ref));
    double before = 0.0, after = 0.0;
    const Index n = static_cast<Index>(tokens.ids.size());
    for (Index q = repeatStart(); q + 1 < n; ++q) {
        Expected<PredictionChange> change =
            predictionChange(whole.logits.row(q), ablated.logits.row(q), tokens.ids[static_cast<std::size_t>(q + 1)]);
        ASSERT_TRUE(change.ok()) << change.error();
        before += change->before;
        after += change->after;
    }
    EXPECT_LT(after, 0.5 * before) << "mean p(right letter) " << before / double(n - 1 - repeatStart()) << " -> "
                                   << after / double(n - 1 - repeatStart());
}

}  // namespace
}  // namespace qkv
