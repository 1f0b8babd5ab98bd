// `qkv-studio export --layer all --corrupt TEXT --answer A --wrong B [--logit-lens]` end to end: the
// "patching" and "logit_lens" fields, named exactly as docs/formats.md says, against the core's own
// computation (tests/core/patching checks that against NumPy), the last layer's lens against
// "predictions", and every refusal with exit status 2 and its message.

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "core/pipeline/patching.hpp"
#include "core/pipeline/pretrained_run.hpp"
#include "support/test_paths.hpp"

namespace qkv::testing {
namespace {

std::string fixture(const std::string& folder) { return std::string(qkv::testDataDir()) + "/" + folder; }

constexpr const char* kClean = "the cat sat on the mat";
constexpr const char* kCorrupt = "the dog sat on the mat";

std::vector<std::string> patchingArguments(const std::string& out, const std::string& corrupt, const std::string& answer)
{
    return {"export", "--weights", fixture("patching/gpt2"), "--embeddings", "model", "--layer", "all",
            "--target", kClean, "--corrupt", corrupt, "--answer", answer, "--wrong", " a",
            "--logit-lens", "--format", "json", "--out", out};
}

TEST_F(ExportCli, PatchingAndTheLogitLensHoldTheCoresNumbers)
{
    const std::string out = path("model.json");
    const CommandRun run = qkv::testing::run(patchingArguments(out, kCorrupt, " the"));
    ASSERT_EQ(run.status, 0) << run.output;
    const nlohmann::json document = readJson(out);
    const nlohmann::json& patching = document["patching"];
    std::vector<std::string> keys;
    for (const auto& [key, value] : patching.items()) keys.push_back(key);
    EXPECT_EQ(keys, (std::vector<std::string>{"answer", "clean_logit_difference", "corrupt_logit_difference", "heads",
                                              "residual", "wrong"}));

    Expected<PretrainedModel> model = openPretrainedModel(fixture("patching/gpt2"));
    ASSERT_TRUE(model.ok()) << model.error();
    Expected<ModelSentences> clean = modelSentences(*model, "", kClean);
    Expected<ModelSentences> corrupt = modelSentences(*model, "", kCorrupt);
    ASSERT_TRUE(clean.ok() && corrupt.ok());
    Expected<std::int32_t> answer = singleTokenId(*model, " the", "answer");
    Expected<std::int32_t> wrong = singleTokenId(*model, " a", "wrong token");
    ASSERT_TRUE(answer.ok() && wrong.ok());
    EXPECT_EQ(patching["answer"]["id"], *answer);
    EXPECT_EQ(patching["answer"]["token"], "\xC4\xA0the");  // the vocabulary's entry: Ġthe
    EXPECT_EQ(patching["wrong"]["id"], *wrong);
    Expected<PatchingRuns> runs = patchingRuns(*model, clean->tokens.ids, corrupt->tokens.ids);
    ASSERT_TRUE(runs.ok()) << runs.error();
    Expected<PatchingReadouts> readouts = patchingReadouts(*model, *runs);
    ASSERT_TRUE(readouts.ok()) << readouts.error();
    Expected<PatchingGrids> grids = patchingGrids(*model, *readouts, *answer, *wrong);
    ASSERT_TRUE(grids.ok()) << grids.error();
    EXPECT_DOUBLE_EQ(patching["clean_logit_difference"].get<double>(), grids->cleanDifference);
    EXPECT_DOUBLE_EQ(patching["corrupt_logit_difference"].get<double>(), grids->corruptDifference);
    const auto n = clean->tokens.ids.size();
    ASSERT_EQ(patching["heads"].size(), 2u);  // layers in model order
    ASSERT_EQ(patching["residual"].size(), 2u);
    for (std::size_t l = 0; l < 2; ++l) {
        ASSERT_EQ(patching["heads"][l].size(), 4u);  // heads from 1
        for (std::size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(patching["heads"][l][i].get<double>(), grids->heads[l][i]);
        ASSERT_EQ(patching["residual"][l].size(), n);
        for (std::size_t p = 0; p < n; ++p)
            EXPECT_DOUBLE_EQ(patching["residual"][l][p].get<double>(), grids->residual[l][p]);
    }

    const nlohmann::json& lens = document["logit_lens"];
    ASSERT_EQ(lens.size(), 2u);
    for (std::size_t l = 0; l < lens.size(); ++l) {
        EXPECT_EQ(lens[l]["layer"], document["layers"][l]["index"]);
        ASSERT_EQ(lens[l]["positions"].size(), n);
        for (std::size_t p = 0; p < n; ++p) {
            EXPECT_EQ(lens[l]["positions"][p]["position"], p);
            ASSERT_EQ(lens[l]["positions"][p]["top"].size(), 5u);
            for (const auto& token : lens[l]["positions"][p]["top"]) {
                EXPECT_TRUE(token.contains("id") && token.contains("token") && token.contains("probability"));
                EXPECT_GE(token["probability"].get<double>(), 0.0);
            }
        }
    }
    // After the last layer the lens is the readout: the predictions, number for number.
    for (std::size_t p = 0; p < n; ++p)
        for (std::size_t k = 0; k < 5; ++k) {
            EXPECT_EQ(lens[1]["positions"][p]["top"][k]["id"], document["predictions"][p]["top"][k]["id"]);
            EXPECT_EQ(lens[1]["positions"][p]["top"][k]["probability"],
                      document["predictions"][p]["top"][k]["probability"]);
        }
}

TEST_F(ExportCli, NeitherFieldIsWrittenUnlessAskedFor)
{
    const std::string out = path("model.json");
    const CommandRun run = qkv::testing::run({"export", "--weights", fixture("patching/gpt2"), "--embeddings", "model",
                                              "--layer", "all", "--target", kClean, "--format", "json", "--out", out});
    ASSERT_EQ(run.status, 0) << run.output;
    const nlohmann::json document = readJson(out);
    EXPECT_FALSE(document.contains("patching"));
    EXPECT_FALSE(document.contains("logit_lens"));
}

void expectRefused(const CommandRun& run, const std::string& message)
{
    EXPECT_EQ(run.status, 2) << run.output;
    EXPECT_NE(run.output.find(message), std::string::npos) << run.output;
}

TEST_F(ExportCli, PatchingRefusesWhatItCannotMeasure)
{
    const std::string out = path("model.json");
    expectRefused(qkv::testing::run(patchingArguments(out, "the dog sat on the mat again", " the")),
                  "the clean prompt cuts into");
    expectRefused(qkv::testing::run(patchingArguments(out, kCorrupt, "zebra")),
                  "the answer \"zebra\" must be one token of the vocabulary; it cuts into");
    expectRefused(qkv::testing::run(patchingArguments(out, kClean, " the")), "same logit difference");
    expectRefused(qkv::testing::run({"export", "--weights", fixture("patching/gpt2"), "--embeddings", "model", "--layer",
                                     "all", "--target", kClean, "--answer", " the", "--format", "json", "--out", out}),
                  "patching needs all three of --corrupt TEXT");
    expectRefused(qkv::testing::run({"export", "--weights", fixture("patching/gpt2"), "--embeddings", "model", "--layer",
                                     "0", "--target", kClean, "--logit-lens", "--format", "json", "--out", out}),
                  "--logit-lens: goes in the whole-model export");
    expectRefused(qkv::testing::run({"export", "--weights", fixture("pretrained/bert"), "--embeddings", "model",
                                     "--layer", "all", "--source", "the cat sat", "--corrupt", "the dog sat",
                                     "--answer", "the", "--wrong", "a", "--format", "json", "--out", out}),
                  "is encoder-only");
    expectRefused(qkv::testing::run({"export", "--weights", fixture("circuits/bert_bare"), "--embeddings", "model",
                                     "--layer", "all", "--source", "the cat sat", "--corrupt", "the dog sat",
                                     "--answer", "the", "--wrong", "a", "--format", "json", "--out", out}),
                  "has no readout");
    expectRefused(qkv::testing::run({"export", "--weights", fixture("pretrained/bert"), "--embeddings", "model",
                                     "--layer", "all", "--source", "the cat sat", "--logit-lens", "--format", "json",
                                     "--out", out}),
                  "--logit-lens: reads a causal language model's readout");
    EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace qkv::testing
