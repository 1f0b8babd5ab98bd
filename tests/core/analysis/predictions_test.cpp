// Predictions and the heads' effect on them against NumPy
// (tests/data/analysis/make_model_analysis_fixtures.py), properties over random logits, bad input.

#include "core/analysis/predictions.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis_test_support.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

using testing::randomMatrixF;

nlohmann::json loadFixtures()
{
    std::ifstream file(std::string(qkv::testDataDir()) + "/analysis/model_analysis_fixtures.json");
    EXPECT_TRUE(file) << "missing fixture tests/data/analysis/model_analysis_fixtures.json";
    return file ? nlohmann::json::parse(file) : nlohmann::json::object();
}

std::vector<HeadCandidate> candidatesOf(const nlohmann::json& p)
{
    std::vector<HeadCandidate> candidates;
    for (const nlohmann::json& c : p.at("candidates")) candidates.push_back({c.at(0).get<Index>(), c.at(1).get<Index>()});
    return candidates;
}

std::vector<RowVectorF> candidateLogitsOf(const nlohmann::json& p)
{
    std::vector<RowVectorF> rows;
    for (const nlohmann::json& z : p.at("candidate_logits")) rows.push_back(testing::jsonRowF(z));
    return rows;
}

TEST(Predictions, TopKMatchesNumPyWithTiesBrokenBySmallerId)
{
    const nlohmann::json p = loadFixtures().at("predictions");
    const RowVectorF logits = testing::jsonRowF(p.at("logits"));
    for (const auto& [k, expected] : p.at("top").items()) {
        SCOPED_TRACE("k = " + k);
        const Expected<std::vector<TokenProbability>> top = topPredictions(logits, std::stoi(k));
        ASSERT_TRUE(top.ok()) << top.error();
        ASSERT_EQ(top->size(), expected.size());
        for (std::size_t r = 0; r < expected.size(); ++r) {
            EXPECT_EQ((*top)[r].id, expected[r].at("id").get<std::int32_t>()) << "rank " << r;
            EXPECT_NEAR((*top)[r].probability, expected[r].at("probability").get<double>(), 1e-14) << "rank " << r;
        }
    }
    // The fixture's ties: the two most likely tokens share a logit, and so do ranks 4 and 5.
    const Expected<std::vector<TokenProbability>> top = topPredictions(logits);
    ASSERT_TRUE(top.ok() && top->size() == 5u);
    EXPECT_EQ((*top)[0].probability, (*top)[1].probability);
    EXPECT_LT((*top)[0].id, (*top)[1].id);
    EXPECT_EQ((*top)[3].probability, (*top)[4].probability);
    EXPECT_LT((*top)[3].id, (*top)[4].id);
}

TEST(Predictions, ChangeAndRankingMatchNumPy)
{
    const nlohmann::json p = loadFixtures().at("predictions");
    const RowVectorF before = testing::jsonRowF(p.at("logits"));
    const auto token = p.at("token").get<std::int32_t>();
    const Expected<PredictionChange> change = predictionChange(before, testing::jsonRowF(p.at("after")), token);
    ASSERT_TRUE(change.ok()) << change.error();
    EXPECT_EQ(change->id, token);
    EXPECT_NEAR(change->before, p.at("change").at("before").get<double>(), 1e-14);
    EXPECT_NEAR(change->after, p.at("change").at("after").get<double>(), 1e-14);
    EXPECT_NEAR(change->change, p.at("change").at("change").get<double>(), 1e-14);

    const std::vector<HeadCandidate> candidates = candidatesOf(p);
    const std::vector<RowVectorF> rows = candidateLogitsOf(p);
    // Through a callback that runs "the model" for the candidate it is given...
    const Expected<std::vector<HeadEffect>> ranked =
        rankHeadsByPredictionChange(before, token, candidates, [&](const HeadCandidate& c) -> Expected<RowVectorF> {
            for (std::size_t i = 0; i < candidates.size(); ++i)
                if (candidates[i].layer == c.layer && candidates[i].head == c.head) return rows[i];
            return Error{"unknown candidate"};
        });
    // ...and with the logits precomputed.
    const Expected<std::vector<HeadEffect>> precomputed = rankHeadsByPredictionChange(before, token, candidates, rows);
    for (const Expected<std::vector<HeadEffect>>* result : {&ranked, &precomputed}) {
        ASSERT_TRUE(result->ok()) << result->error();
        const nlohmann::json& expected = p.at("ranking");
        ASSERT_EQ((*result)->size(), expected.size());
        for (std::size_t r = 0; r < expected.size(); ++r) {
            const HeadEffect& e = (**result)[r];
            EXPECT_EQ(e.candidate.layer, expected[r].at("layer").get<Index>()) << "rank " << r;
            EXPECT_EQ(e.candidate.head, expected[r].at("head").get<Index>()) << "rank " << r;
            EXPECT_EQ(e.change.id, token);
            EXPECT_NEAR(e.change.before, expected[r].at("before").get<double>(), 1e-14);
            EXPECT_NEAR(e.change.after, expected[r].at("after").get<double>(), 1e-14);
            EXPECT_NEAR(e.change.change, expected[r].at("change").get<double>(), 1e-14);
        }
    }
}

TEST(Predictions, PropertiesHoldOverRandomLogits)
{
    SplitMix64 rng(17);
    for (int trial = 0; trial < 50; ++trial) {
        SCOPED_TRACE("trial " + std::to_string(trial));
        const Index v = 1 + static_cast<Index>(rng.next() % 60);
        const Index k = 1 + static_cast<Index>(rng.next() % static_cast<std::uint64_t>(v));
        const double scale = std::pow(10.0, rng.uniform(-2.0, 4.0));  // from nearly flat to one-hot
        RowVectorF logits = randomMatrixF(1, v, rng, scale).row(0);
        if (v > 3) logits(2) = logits(1);  // a tie somewhere
        const Expected<std::vector<TokenProbability>> top = topPredictions(logits, k);
        ASSERT_TRUE(top.ok()) << top.error();
        ASSERT_EQ(static_cast<Index>(top->size()), k);
        double sum = 0.0;
        for (std::size_t r = 0; r < top->size(); ++r) {
            const TokenProbability& t = (*top)[r];
            EXPECT_GE(t.probability, 0.0);
            sum += t.probability;
            const Expected<double> alone = tokenProbability(logits, t.id);
            ASSERT_TRUE(alone.ok());
            EXPECT_EQ(*alone, t.probability);
            if (r > 0) {  // by logit: far below the maximum, different logits both give probability 0
                const TokenProbability& previous = (*top)[r - 1];
                EXPECT_GE(previous.probability, t.probability);
                EXPECT_TRUE(logits(previous.id) > logits(t.id) || (logits(previous.id) == logits(t.id) && previous.id < t.id));
            }
        }
        EXPECT_LE(sum, 1.0 + 1e-12);
        // No token outside the top k is more likely than the last one in it.
        std::vector<bool> inTop(static_cast<std::size_t>(v), false);
        for (const TokenProbability& t : *top) inTop[static_cast<std::size_t>(t.id)] = true;
        for (Index id = 0; id < v; ++id)
            if (!inTop[static_cast<std::size_t>(id)]) {
                EXPECT_LE(*tokenProbability(logits, static_cast<std::int32_t>(id)), top->back().probability);
            }
        const Expected<std::vector<TokenProbability>> all = topPredictions(logits, v);
        double total = 0.0;
        for (const TokenProbability& t : *all) total += t.probability;
        EXPECT_NEAR(total, 1.0, 1e-12);
        // A softmax does not see a constant added to every logit (exact here: a power of 2 at
        // which float keeps the logits' spacing).
        const RowVectorF shifted = (logits.array() + 1024.0f).matrix();
        if (((shifted.array() - 1024.0f) == logits.array()).all()) {
            const Expected<std::vector<TokenProbability>> same = topPredictions(shifted, k);
            for (std::size_t r = 0; r < top->size(); ++r) {
                EXPECT_EQ((*same)[r].id, (*top)[r].id);
                EXPECT_NEAR((*same)[r].probability, (*top)[r].probability, 1e-12);
            }
        }
    }
}

TEST(Predictions, HugeLogitsDoNotOverflow)
{
    RowVectorF logits(4);
    logits << 1e30f, -1e30f, 1e30f - 1e24f, 3e38f;
    const Expected<std::vector<TokenProbability>> top = topPredictions(logits, 4);
    ASSERT_TRUE(top.ok()) << top.error();
    EXPECT_EQ((*top)[0].id, 3);
    EXPECT_EQ((*top)[0].probability, 1.0);
    EXPECT_EQ((*top)[3].probability, 0.0);
}

TEST(Predictions, BadInputGetsAMessage)
{
    auto expectError = [](const auto& result, const std::string& words) {
        ASSERT_FALSE(result.ok());
        EXPECT_NE(result.error().find(words), std::string::npos) << result.error();
    };
    RowVectorF logits(3);
    logits << 0.5f, 1.0f, -2.0f;
    expectError(topPredictions(logits, 0), "k must be at least 1");
    expectError(topPredictions(logits, -2), "k must be at least 1");
    expectError(topPredictions(logits, 4), "the vocabulary has only 3");
    expectError(topPredictions(RowVectorF(0), 5), "logits are empty");
    RowVectorF bad = logits;
    bad(1) = std::numeric_limits<float>::quiet_NaN();
    expectError(topPredictions(bad, 2), "logit of token 1 is NaN");
    bad(1) = -std::numeric_limits<float>::infinity();
    expectError(topPredictions(bad, 2), "logit of token 1 is infinite");
    expectError(tokenProbability(logits, 3), "token id 3 is outside the vocabulary of 3 tokens");
    expectError(tokenProbability(logits, -1), "token id -1 is outside");
    expectError(predictionChange(logits, RowVectorF::Zero(4), 0), "have 4 entries but the logits before have 3");
    expectError(predictionChange(logits, bad, 0), "ablated logit of token 1 is infinite");
    expectError(predictionChange(bad, logits, 0), "original logit of token 1 is infinite");
    expectError(predictionChange(logits, logits, 5), "token id 5");

    const std::vector<HeadCandidate> candidates{{0, 0}, {1, 1}};
    expectError(rankHeadsByPredictionChange(logits, 0, candidates, std::vector<RowVectorF>{logits}), "1 rows of logits for 2 candidate heads");
    expectError(rankHeadsByPredictionChange(logits, 0, candidates, std::vector<RowVectorF>{logits, bad}),
                "logit of token 1 is infinite; a softmax over it has no meaning (without layer 1 head 1)");
    expectError(rankHeadsByPredictionChange(logits, 0, candidates,
                                            [](const HeadCandidate&) -> Expected<RowVectorF> { return Error{"the model is gone"}; }),
                "without layer 0 head 0: the model is gone");
    expectError(rankHeadsByPredictionChange(logits, 0, candidates, LogitsWithoutHead{}), "no way to compute");
    expectError(rankHeadsByPredictionChange(logits, 9, candidates, std::vector<RowVectorF>{logits, logits}), "token id 9");
}

TEST(Predictions, RankingSortsByMagnitudeThenLayerThenHead)
{
    std::vector<HeadEffect> effects{
        {{2, 0}, {1, 0.5, 0.4, -0.1}}, {{0, 2}, {1, 0.5, 0.6, 0.1}}, {{0, 1}, {1, 0.5, 0.6, 0.1}},
        {{1, 3}, {1, 0.5, 0.2, -0.3}}, {{0, 0}, {1, 0.5, 0.5, 0.0}},
    };
    sortByPredictionChange(effects);
    const std::vector<std::pair<Index, Index>> expected{{1, 3}, {0, 1}, {0, 2}, {2, 0}, {0, 0}};
    for (std::size_t r = 0; r < expected.size(); ++r) {
        EXPECT_EQ(effects[r].candidate.layer, expected[r].first) << "rank " << r;
        EXPECT_EQ(effects[r].candidate.head, expected[r].second) << "rank " << r;
    }
}

}  // namespace
}  // namespace qkv
