// Generation (core/pipeline/generation.hpp): the greedy decode of the GPT-2 fixture equals the
// reference decode written from modeling_gpt2.py (tests/data/generation/make_generation_fixtures.py),
// with and without heads switched off; each step's run, which takes every earlier position from
// the step before, has the bits of a run of the whole sequence; sampling is seeded and follows
// softmax(z / T); and what cannot be generated is refused with its reason.

#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bench/pretrained/synthetic_checkpoints.hpp"
#include "core/pipeline/generation.hpp"
#include "support/pretrained_fixtures.hpp"
#include "support/test_folder.hpp"

namespace qkv {
namespace {

nlohmann::json reference()
{
    std::ifstream in(std::string(testDataDir()) + "/generation/greedy.json");
    return nlohmann::json::parse(in);
}

void expectReferenceDecode(const Generation& generation, const nlohmann::json& expected, std::size_t promptLength)
{
    const auto ids = expected["ids"].get<std::vector<std::int32_t>>();
    const auto probabilities = expected["probabilities"].get<std::vector<double>>();
    ASSERT_EQ(generation.generated.size(), ids.size());
    for (std::size_t t = 0; t < ids.size(); ++t) {
        const GeneratedToken& token = generation.generated[t];
        EXPECT_EQ(token.id, ids[t]) << "token " << t;
        EXPECT_EQ(token.position, static_cast<Index>(promptLength + t));
        EXPECT_NEAR(token.probability, probabilities[t], 2e-5 * probabilities[t]) << "token " << t;
        ASSERT_EQ(token.top.size(), 5u);
        EXPECT_EQ(token.top.front().id, token.id) << "greedy takes the most likely";
        EXPECT_EQ(token.top.front().probability, token.probability);
        EXPECT_EQ(generation.ids[promptLength + t], ids[t]);
    }
}

TEST(Generation, GreedyDecodeIsTheReferenceDecode)
{
    const PretrainedModel model = openPretrainedFixture("gpt2");
    const nlohmann::json expected = reference();
    const auto prompt = expected["prompt"].get<std::vector<std::int32_t>>();
    GenerationOptions options;
    options.newTokens = 12;  // to the fixture's 20 positions
    Expected<Generation> plain = generateTokens(model, prompt, options);
    ASSERT_TRUE(plain.ok()) << (plain ? "" : plain.error());
    EXPECT_FALSE(plain->stopped);
    expectReferenceDecode(*plain, expected["plain"], prompt.size());
    // The last run covers every token but the last.
    EXPECT_EQ(plain->lastRun->tokens.ids, std::vector<std::int32_t>(plain->ids.begin(), plain->ids.end() - 1));

    for (const auto& pair : expected["ablated_heads"])
        options.run.ablatedHeads.insert(ModelHead{pair[0].get<Index>(), pair[1].get<Index>()});
    Expected<Generation> ablated = generateTokens(model, prompt, options);
    ASSERT_TRUE(ablated.ok()) << (ablated ? "" : ablated.error());
    expectReferenceDecode(*ablated, expected["ablated"], prompt.size());
}

bool sameBits(const MatrixF& a, const MatrixF& b)
{
    // memcmp never sees the null data of an empty matrix
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           (a.size() == 0 || std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(float)) == 0);
}

// GPT-2's blocks at d_model 64 and heads of 16: every step takes the earlier positions from the
// step before. Each step's run equals a run of the whole sequence, bit for bit.
TEST(Generation, EveryStepsRunHasTheBitsOfAWholeRun)
{
    TestFolder folder("generation");
    constexpr bench::SyntheticShape shape{"gpt2-tiny", bench::SyntheticFamily::Gpt2, 2, 64, 4, 128, 300, 64, 40};
    Expected<std::string> path = bench::syntheticCheckpoint(shape, folder.path().string());
    ASSERT_TRUE(path.ok()) << (path ? "" : path.error());
    Expected<PretrainedModel> model = openPretrainedModel(*path);
    ASSERT_TRUE(model.ok()) << (model ? "" : model.error());
    const std::vector<std::int32_t> prompt{5, 17, 203, 44, 9, 120, 7};
    for (const double temperature : {0.0, 0.8}) {
        GenerationOptions options;
        options.newTokens = 9;
        options.temperature = temperature;
        options.seed = 42;
        int steps = 0;
        Expected<Generation> generation =
            generateTokens(*model, prompt, options, [&](const GeneratedToken& token, const ModelRun& run) {
                ++steps;
                EXPECT_EQ(run.firstRecomputedPosition, steps == 1 ? 0 : token.position - 1) << "only the new row";
                RunOptions whole;
                whole.logitRows = LogitRows::Chosen;
                whole.logitPositions = {token.position - 1};
                Expected<ModelRun> fresh = runPretrainedModel(*model, run.tokens, whole);
                EXPECT_TRUE(fresh.ok());
                if (!fresh) return false;
                for (std::size_t l = 0; l < run.layers.size(); ++l)
                    for (std::size_t i = 0; i < run.layers[l]->attention.heads.size(); ++i)
                        EXPECT_TRUE(sameBits(run.layers[l]->attention.heads[i].attention,
                                             fresh->layers[l]->attention.heads[i].attention))
                            << "step " << steps << ", layer " << l << ", head " << i;
                EXPECT_TRUE(sameBits(run.logits, fresh->logits)) << "step " << steps;
                return true;
            });
        ASSERT_TRUE(generation.ok()) << (generation ? "" : generation.error());
        EXPECT_EQ(steps, 9);
        EXPECT_EQ(generation->ids.size(), prompt.size() + 9);
    }
}

TEST(Generation, SamplingIsSeededAndFollowsTheTemperedSoftmax)
{
    const RowVectorF logits = (RowVectorF(5) << 1.0f, 2.0f, 0.5f, 2.0f, -1.0f).finished();
    for (const double T : {1.0, 0.5, 2.0}) {
        SplitMix64 random(7);
        std::vector<int> counts(5, 0);
        const int draws = 40000;
        for (int i = 0; i < draws; ++i) ++counts[static_cast<std::size_t>(*chooseToken(logits, T, random))];
        double sum = 0.0;
        for (Index v = 0; v < 5; ++v) sum += std::exp(logits(v) / T);
        for (Index v = 0; v < 5; ++v) {
            const double p = std::exp(logits(v) / T) / sum;
            const double sigma = std::sqrt(p * (1.0 - p) / draws);
            EXPECT_NEAR(counts[static_cast<std::size_t>(v)] / double(draws), p, 4.0 * sigma) << "T " << T << ", token " << v;
        }
    }
    // Greedy: the first of equal maxima.
    SplitMix64 unused(1);
    EXPECT_EQ(*chooseToken(logits, 0.0, unused), 1);
    // A seed decides the tokens; another seed other tokens.
    const PretrainedModel model = openPretrainedFixture("gpt2");
    const std::vector<std::int32_t> prompt{31, 7, 250, 12};
    GenerationOptions options;
    options.newTokens = 10;
    options.temperature = 1.5;
    const auto sampled = [&](std::uint64_t seed) {
        options.seed = seed;
        Expected<Generation> g = generateTokens(model, prompt, options);
        EXPECT_TRUE(g.ok()) << (g ? "" : g.error());
        return g ? g->ids : std::vector<std::int32_t>();
    };
    EXPECT_EQ(sampled(3), sampled(3));
    EXPECT_NE(sampled(3), sampled(4));
    // Each sampled token's probability is the model's (T = 1), not the tempered one.
    options.seed = 3;
    Expected<Generation> g = generateTokens(model, prompt, options);
    ASSERT_TRUE(g.ok());
    RunOptions last;
    last.logitRows = LogitRows::Chosen;
    last.logitPositions = {static_cast<Index>(g->ids.size()) - 2};
    Expected<ModelRun> run = runPretrainedModel(model, ModelTokens{g->lastRun->tokens.ids, {}}, last);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(*tokenProbability(run->logits.row(0), g->ids.back()), g->generated.back().probability);
}

TEST(Generation, StopsWhenAskedAndRefusesWhatCannotBeGenerated)
{
    const PretrainedModel gpt2 = openPretrainedFixture("gpt2");
    GenerationOptions options;
    options.newTokens = 8;
    Expected<Generation> stopped = generateTokens(gpt2, {31, 7, 250}, options,
                                                  [](const GeneratedToken& token, const ModelRun&) { return token.position < 5; });
    ASSERT_TRUE(stopped.ok());
    EXPECT_TRUE(stopped->stopped);
    EXPECT_EQ(stopped->generated.size(), 3u);  // positions 3, 4, 5

    const auto refusal = [](const PretrainedModel& model, Index prompt, Index tokens, double temperature) {
        GenerationOptions o;
        o.newTokens = tokens;
        o.temperature = temperature;
        const Status s = checkGeneration(model, prompt, o);
        return s ? std::string() : s.error();
    };
    EXPECT_NE(refusal(openPretrainedFixture("bert"), 5, 3, 0.0).find("masked LM"), std::string::npos);
    EXPECT_NE(refusal(openPretrainedFixture("bart"), 5, 3, 0.0).find("encoder-decoder"), std::string::npos);
    EXPECT_NE(refusal(gpt2, 5, 0, 0.0).find("1 to 4096, not 0"), std::string::npos);
    EXPECT_NE(refusal(gpt2, 5, 3, -1.0).find("temperature"), std::string::npos);
    EXPECT_NE(refusal(gpt2, 5, 3, std::nan("")).find("temperature"), std::string::npos);
    EXPECT_NE(refusal(gpt2, 8, 13, 0.0).find("would make 21; this model runs on up to 20"), std::string::npos)
        << refusal(gpt2, 8, 13, 0.0);
    EXPECT_EQ(refusal(gpt2, 8, 12, 0.0), "");
    EXPECT_FALSE(generateTokens(gpt2, {1, 2}, GenerationOptions{}).ok());
}

}  // namespace
}  // namespace qkv
