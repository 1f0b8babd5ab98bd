// `qkv-studio export --layer all --circuits K` end to end: the "circuits" fields against the
// core's own per-head computation (tests/core/circuits checks that against NumPy), each head's
// "roles" against its attention map in the same file, a bad K, and the models refused.

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "core/circuits/head_circuits.hpp"
#include "support/test_paths.hpp"

namespace qkv::testing {
namespace {

std::string fixture(const std::string& folder) { return std::string(qkv::testDataDir()) + "/" + folder; }

constexpr const char* kPrompt = "the cat sat on the cat";

TEST_F(ExportCli, CircuitsListEveryHeadWithTheTopKOfEachDistinctPromptToken)
{
    const std::string out = path("model.json");
    const CommandRun run =
        qkv::testing::run({"export", "--weights", fixture("pretrained/gpt2"), "--embeddings", "model", "--layer", "all",
                           "--circuits", "3", "--target", kPrompt, "--format", "json", "--out", out});
    ASSERT_EQ(run.status, 0) << run.output;
    const nlohmann::json document = readJson(out);
    // The distinct tokens as the model reads them, in order of first appearance.
    std::vector<std::string> distinct;
    for (const auto& token : document["tokens"]["target"])
        if (std::find(distinct.begin(), distinct.end(), token.get<std::string>()) == distinct.end())
            distinct.push_back(token.get<std::string>());
    const nlohmann::json& circuits = document["circuits"];
    ASSERT_EQ(circuits.size(), 3u * 4u);  // 3 layers of 4 heads
    Expected<PretrainedModel> model = openPretrainedModel(fixture("pretrained/gpt2"));
    ASSERT_TRUE(model.ok()) << model.error();
    for (std::size_t i = 0; i < circuits.size(); ++i) {
        const nlohmann::json& head = circuits[i];
        EXPECT_EQ(head["layer"], document["layers"][i / 4]["index"]);
        EXPECT_EQ(head["head"], i % 4 + 1);
        EXPECT_EQ(head["kv_head"], i % 4 + 1);
        ASSERT_EQ(head["eigenvalues"].size(), 8u);  // d_k = 32 / 4
        double real = 0.0, magnitude = 0.0;
        for (const auto& lambda : head["eigenvalues"]) {
            real += lambda[0].get<double>();
            magnitude += std::hypot(lambda[0].get<double>(), lambda[1].get<double>());
        }
        EXPECT_NEAR(head["copying_score"].get<double>(), real / magnitude, 1e-9);
        std::vector<std::int32_t> ids;
        for (const char* side : {"qk", "ov"}) {
            ASSERT_EQ(head[side].size(), distinct.size()) << side;
            for (std::size_t a = 0; a < distinct.size(); ++a) {
                EXPECT_EQ(head[side][a]["token"], distinct[a]);
                ASSERT_EQ(head[side][a]["top"].size(), 3u);
                if (side[0] == 'q') ids.push_back(head[side][a]["id"].get<std::int32_t>());
            }
        }
        // The same top keys and promoted tokens as the core computes for this head alone.
        const CircuitHead which{static_cast<Index>(i / 4), static_cast<Index>(i % 4)};
        for (const auto& [side, name, valueName] :
             {std::tuple{CircuitSide::QK, "qk", "score"}, std::tuple{CircuitSide::OV, "ov", "logit"}}) {
            const auto expected = tokenCircuits(*model, which, side, ids, 3);
            ASSERT_TRUE(expected.ok()) << expected.error();
            for (std::size_t a = 0; a < ids.size(); ++a)
                for (std::size_t r = 0; r < 3; ++r) {
                    const nlohmann::json& entry = head[name][a]["top"][r];
                    EXPECT_EQ(entry["id"].get<std::int32_t>(), (*expected)[a].top[r].id);
                    EXPECT_NEAR(entry[valueName].get<double>(), (*expected)[a].top[r].value, 1e-5);
                    EXPECT_EQ(entry["token"].get<std::string>(), (*expected)[a].top[r].token);
                }
        }
    }
}

TEST_F(ExportCli, EveryHeadsRolesAreMeasuredOnItsAttentionMap)
{
    const std::string out = path("model.json");
    const CommandRun run =
        qkv::testing::run({"export", "--weights", fixture("pretrained/gpt2"), "--embeddings", "model", "--layer", "all",
                           "--target", kPrompt, "--format", "json", "--out", out});
    ASSERT_EQ(run.status, 0) << run.output;
    const nlohmann::json document = readJson(out);
    const nlohmann::json& tokens = document["tokens"]["target"];
    const std::size_t n = tokens.size();
    EXPECT_EQ(document.count("circuits"), 0u) << "only with --circuits";
    for (const auto& layer : document["layers"])
        for (const auto& head : layer["heads"]) {
            const nlohmann::json& a = head["attention"];
            const nlohmann::json& roles = head["roles"];
            double previous = 0.0, first = 0.0, duplicate = 0.0;
            int repeated = 0;
            for (std::size_t t = 0; t < n; ++t) {
                first += a[t][0].get<double>() / static_cast<double>(n);
                if (t > 0) previous += a[t][t - 1].get<double>() / static_cast<double>(n - 1);
                double sum = 0.0;
                bool earlier = false;
                for (std::size_t s = 0; s < t; ++s)
                    if (tokens[s] == tokens[t]) sum += a[t][s].get<double>(), earlier = true;
                if (earlier) duplicate += sum, ++repeated;
            }
            ASSERT_GT(repeated, 0);
            EXPECT_NEAR(roles["previous_token"].get<double>(), previous, 1e-5);
            EXPECT_NEAR(roles["first_token"].get<double>(), first, 1e-5);
            EXPECT_NEAR(roles["duplicate_token"].get<double>(), duplicate / repeated, 1e-5);
            EXPECT_TRUE(roles["induction"].is_number());  // "·cat" repeats three tokens later
        }
}

TEST_F(ExportCli, ABadKIsRefused)
{
    for (const char* k : {"0", "-2", "ten", "2.5"}) {
        const std::string out = path(std::string("bad_") + k + ".json");
        const CommandRun run =
            qkv::testing::run({"export", "--weights", fixture("pretrained/gpt2"), "--embeddings", "model", "--layer",
                               "all", "--circuits", k, "--target", kPrompt, "--format", "json", "--out", out});
        EXPECT_EQ(run.status, 2) << k << ": " << run.output;
        EXPECT_NE(run.output.find("--circuits"), std::string::npos) << run.output;
        EXPECT_FALSE(std::filesystem::exists(out));
    }
    // Only in the whole-model export.
    const CommandRun one =
        qkv::testing::run({"export", "--weights", fixture("pretrained/gpt2"), "--embeddings", "model", "--layer", "0",
                           "--circuits", "3", "--target", kPrompt, "--format", "json", "--out", path("one.json")});
    EXPECT_EQ(one.status, 2) << one.output;
    EXPECT_NE(one.output.find("--layer all"), std::string::npos) << one.output;
}

TEST_F(ExportCli, CircuitsAreRefusedForAModelWithoutADirectReadout)
{
    const std::vector<std::tuple<std::string, std::string, std::string>> refused{
        {"circuits/bert_bare", "--source", "no readout"},
        {"pretrained/bert", "--source", "masked language model"},
    };
    for (const auto& [model, sentence, words] : refused) {
        const std::string out = path("refused.json");
        const CommandRun run =
            qkv::testing::run({"export", "--weights", fixture(model), "--embeddings", "model", "--layer", "all",
                               "--circuits", "3", sentence, "d super /", "--format", "json", "--out", out});
        EXPECT_EQ(run.status, 2) << model << ": " << run.output;
        EXPECT_NE(run.output.find("--circuits: "), std::string::npos) << run.output;
        EXPECT_NE(run.output.find(words), std::string::npos) << run.output;
        EXPECT_FALSE(std::filesystem::exists(out));
    }
}

}  // namespace
}  // namespace qkv::testing
