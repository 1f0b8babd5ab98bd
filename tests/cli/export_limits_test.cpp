// The export's limits: a configuration whose estimated peak exceeds the
// limit is refused before anything is allocated, naming the option; the spectrum of W_i is
// bounded at large d_k unless asked for, and the JSON says so; --help names each limit from
// where it is written once.

#include <gtest/gtest.h>

#include "cli/cli_support.hpp"
#include "core/common/limits.hpp"
#include "core/export/result_export.hpp"
#include "core/pipeline/generation.hpp"
#include "core/training/training_limits.hpp"

namespace qkv {
namespace {

using testing::CommandRun;
using testing::ExportCli;
using testing::readJson;
using testing::run;

std::string words(int count)
{
    std::string text;
    for (int i = 0; i < count; ++i) text += "w" + std::to_string(i) + " ";
    return text;
}

TEST_F(ExportCli, AConfigurationOverTheMemoryLimitIsRefusedBeforeComputing)
{
    // 4096 tokens, d_model 4096, h 16 fits (2.9 GiB estimated, 2.88 GiB measured); a scaled copy
    // of the weights does not.
    const CommandRun r = run({"export", "--mode", "self", "--source", words(4096), "--d-model", "4096", "--heads", "16",
                              "--scale-v", "2", "--format", "json", "--out", path("a.json")});
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_EQ(r.output.rfind("qkv-studio export: --source: This configuration needs about 3.", 0), 0u) << r.output;
    EXPECT_NE(r.output.find("GiB at its peak"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("the limit is 3 GiB"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(path("a.json")));
}

TEST_F(ExportCli, TheSpectrumIsSkippedAboveTheBoundUnlessAskedFor)
{
    // d_k = 1032 > 1024: null fields and the reason; the equivalence check still runs.
    const std::vector<std::string> wide{"export", "--mode",  "self", "--source", "a b c", "--d-model",
                                        "1032",   "--heads", "1",    "--format", "json"};
    std::vector<std::string> arguments = wide;
    arguments.insert(arguments.end(), {"--out", path("skipped.json")});
    CommandRun r = run(arguments);
    ASSERT_EQ(r.status, 0) << r.output;
    const nlohmann::json skipped = readJson(path("skipped.json")).at("heads")[0].at("factored");
    for (const char* field : {"singular_values", "rank", "rank_tolerance", "frobenius_norm"})
        EXPECT_TRUE(skipped.at(field).is_null()) << field;
    EXPECT_NE(skipped.at("spectrum_skipped").get<std::string>().find("d_k = 1032 is above 1024"), std::string::npos);
    EXPECT_LT(skipped.at("equivalence_error").get<double>(), 1e-5);

    arguments = wide;
    arguments.insert(arguments.end(), {"--spectrum", "--out", path("full.json")});
    r = run(arguments);
    ASSERT_EQ(r.status, 0) << r.output;
    const nlohmann::json full = readJson(path("full.json")).at("heads")[0].at("factored");
    EXPECT_EQ(full.at("singular_values").size(), 1032u);
    EXPECT_EQ(full.at("rank"), 1032);
    EXPECT_EQ(full.count("spectrum_skipped"), 0u);

    // At the bound and below, as before: computed without asking.
    r = run({"export", "--d-model", "1024", "--heads", "1", "--format", "json", "--out", path("bound.json")});
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(readJson(path("bound.json")).at("heads")[0].at("factored").at("singular_values").size(), 1024u);
}

// The usage texts (and so the manual page made from them) read the limits, never a copy.
TEST_F(ExportCli, TheHelpNamesTheLimitsWhereTheyAreWritten)
{
    const CommandRun help = run({"export", "--help"});
    ASSERT_EQ(help.status, 0) << help.output;
    const auto says = [&](const std::string& text) {
        EXPECT_NE(help.output.find(text), std::string::npos) << text << "\n" << help.output;
    };
    says("model width, 1 to " + std::to_string(limits::maxDModel));
    says("number of heads h, 1 to " + std::to_string(limits::maxHeads));
    says("1 to " + std::to_string(limits::maxHeadDim) + " with h d_k at most " + std::to_string(limits::maxQueryWidth));
    says("(1 to " + std::to_string(kMaxGeneratedTokens) + ")");
    says("even when d_k > " + std::to_string(kExportSpectrumMaxDk));
    says("up to " + std::to_string(limits::maxTokens) + " tokens per sentence");
    says("(default " + std::to_string(kDefaultMaxCells) + " = " + std::to_string(limits::maxFullMapTokens) + " x " +
         std::to_string(limits::maxFullMapTokens) + ")");

    const CommandRun train = run({"train", "--help"});
    ASSERT_EQ(train.status, 0) << train.output;
    for (const TrainingField field : {TrainingField::DModel, TrainingField::Steps, TrainingField::Batch}) {
        const TrainingLimit& limit = trainingLimit(field);
        const std::string range = limitText(field, limit.minimum) + " to " + limitText(field, limit.maximum);
        EXPECT_NE(train.output.find(range), std::string::npos) << range << "\n" << train.output;
    }
}

}  // namespace
}  // namespace qkv
